package commands

import (
	"math"
	"sort"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/geohash"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/storage"
)

// The GEO searches: GEORADIUS, GEORADIUSBYMEMBER, their _RO forms,
// GEOSEARCH and GEOSEARCHSTORE, with Redis 7.0's argument rules, error
// order and replies. A search reads the score ranges of at most nine
// geohash cells around its centre (geohash.Shape.Cells), without the
// parts of them the shape cannot reach (geohash.Shape.ScanRanges), with
// one bounded iterator seeked to each, never the whole set; with COUNT
// (without ANY) it keeps only the nearest (or farthest) count points
// while it reads.

// geoKind is which command a search is.
type geoKind int

const (
	geoByCoords    geoKind = iota // GEORADIUS key longitude latitude radius unit ...
	geoByMember                   // GEORADIUSBYMEMBER key member radius unit ...
	geoSearch                     // GEOSEARCH key ...
	geoSearchStore                // GEOSEARCHSTORE destination source ...
)

// Sort orders of the results.
const (
	geoUnsorted = iota
	geoAsc
	geoDesc
)

// geoQuery is a parsed search.
type geoQuery struct {
	shape                         geohash.Shape
	withDist, withHash, withCoord bool
	any                           bool
	count                         int64 // 0: no limit
	order                         int
	store                         []byte // the destination, nil for a reply
	storeDist                     bool
}

// geoPoint is a point found: a copied member, its score, its distance in
// meters and its position, and seq, its rank in the order found (the
// tie-break of the sorts, which keeps equal distances in that order as
// Redis's stable sort does).
type geoPoint struct {
	member      []byte
	score, dist float64
	long, lat   float64
	seq         int
}

// GEORADIUS key longitude latitude radius M | KM | FT | MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC] [STORE key | STOREDIST key]
func cmdGeoRadius(c *executor.Ctx) { geoSearchCommand(c, geoByCoords, false) }

// GEORADIUSBYMEMBER key member radius M | KM | FT | MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC] [STORE key | STOREDIST key]
func cmdGeoRadiusByMember(c *executor.Ctx) { geoSearchCommand(c, geoByMember, false) }

// GEORADIUS_RO key longitude latitude radius M | KM | FT | MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC]
func cmdGeoRadiusRO(c *executor.Ctx) { geoSearchCommand(c, geoByCoords, true) }

// GEORADIUSBYMEMBER_RO key member radius M | KM | FT | MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]] [ASC | DESC]
func cmdGeoRadiusByMemberRO(c *executor.Ctx) { geoSearchCommand(c, geoByMember, true) }

// GEOSEARCH key FROMMEMBER member | FROMLONLAT longitude latitude BYRADIUS radius M | KM | FT | MI | BYBOX width height M | KM | FT | MI [ASC | DESC] [COUNT count [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]
func cmdGeoSearch(c *executor.Ctx) { geoSearchCommand(c, geoSearch, true) }

// GEOSEARCHSTORE destination source FROMMEMBER member | FROMLONLAT longitude latitude BYRADIUS radius M | KM | FT | MI | BYBOX width height M | KM | FT | MI [ASC | DESC] [COUNT count [ANY]] [STOREDIST]
func cmdGeoSearchStore(c *executor.Ctx) { geoSearchCommand(c, geoSearchStore, true) }

// geoSearchCommand runs a search (noStore: STORE and STOREDIST are not
// options of the command) and replies or stores its results.
func geoSearchCommand(c *executor.Ctx, kind geoKind, noStore bool) {
	src := 1
	if kind == geoSearchStore {
		src = 2
	}
	var q geoQuery
	var points []geoPoint
	parsed := false
	err := c.DB.ZRead(c.Args[src], func(z storage.ZReader) error {
		var err error
		if q, parsed, err = parseGeoQuery(c, z, kind, noStore); !parsed || err != nil {
			return err
		}
		if z.Exists() {
			points, err = q.search(z)
		}
		return err
	})
	if !c.OK(err) || !parsed {
		return
	}
	if q.store != nil {
		// The cells never overlap, so no member is found twice; the check
		// keeps ZStore's contract (members unique) whatever happens.
		ms := make([]storage.ScoredMember, 0, len(points))
		seen := make(map[string]bool, len(points))
		for _, p := range points {
			if seen[string(p.member)] {
				continue
			}
			seen[string(p.member)] = true
			s := p.score
			if q.storeDist {
				s = p.dist / q.shape.ToMeters
			}
			ms = append(ms, storage.ScoredMember{Member: p.member, Score: s})
		}
		if _, err := c.DB.ZStore(q.store, ms); c.OK(err) {
			c.W.Int(int64(len(points)))
		}
		return
	}
	fields := 0
	for _, with := range []bool{q.withDist, q.withHash, q.withCoord} {
		if with {
			fields++
		}
	}
	c.W.Array(len(points))
	for _, p := range points {
		if fields > 0 {
			c.W.Array(fields + 1)
		}
		c.W.Bulk(p.member)
		if q.withDist {
			writeDistance(c, p.dist/q.shape.ToMeters)
		}
		if q.withHash {
			c.W.Int(int64(p.score))
		}
		if q.withCoord {
			c.W.Array(2)
			c.W.HumanDouble(p.long)
			c.W.HumanDouble(p.lat)
		}
	}
}

// geoCenter sets the shape's centre to the position of member, replying
// Redis's error when the set lacks it.
func geoCenter(c *executor.Ctx, z storage.ZReader, member []byte, shape *geohash.Shape) (ok bool, err error) {
	score, found, err := z.Score(member)
	if err != nil {
		return false, err
	}
	if !found {
		c.ErrorString("ERR could not decode requested zset member")
		return false, nil
	}
	shape.Long, shape.Lat = geohash.Decode(score)
	return true, nil
}

// geoRadius parses "radius unit" at argument i into the shape.
func geoRadius(c *executor.Ctx, i int, shape *geohash.Shape) bool {
	r, ok := num.ParseFloat(c.Args[i])
	switch {
	case !ok:
		c.ErrorString("ERR need numeric radius")
		return false
	case r < 0:
		c.ErrorString("ERR radius cannot be negative")
		return false
	}
	m, ok := geoUnit(c, i+1)
	if ok {
		shape.Box, shape.Radius, shape.ToMeters = false, r, m
	}
	return ok
}

// geoBox parses "width height unit" at argument i into the shape.
func geoBox(c *executor.Ctx, i int, shape *geohash.Shape) bool {
	w, ok := num.ParseFloat(c.Args[i])
	if !ok {
		c.ErrorString("ERR need numeric width")
		return false
	}
	h, ok := num.ParseFloat(c.Args[i+1])
	switch {
	case !ok:
		c.ErrorString("ERR need numeric height")
		return false
	case h < 0 || w < 0:
		c.ErrorString("ERR height or width cannot be negative")
		return false
	}
	m, ok := geoUnit(c, i+2)
	if ok {
		shape.Box, shape.Width, shape.Height, shape.ToMeters = true, w, h, m
	}
	return ok
}

// parseGeoQuery parses a search in Redis's order, which decides which
// error a bad call gets: the fixed arguments of GEORADIUS and
// GEORADIUSBYMEMBER (the member only when the set exists), then the
// options one by one (FROMMEMBER's member looked up as it comes), then
// the combinations. ok is false when it replied an error.
func parseGeoQuery(c *executor.Ctx, z storage.ZReader, kind geoKind, noStore bool) (q geoQuery, ok bool, err error) {
	base := 0
	switch kind {
	case geoByCoords:
		base = 6
		if q.shape.Long, q.shape.Lat, ok = longLat(c, 2); !ok || !geoRadius(c, 4, &q.shape) {
			return q, false, nil
		}
	case geoByMember:
		base = 5
		if z.Exists() {
			if ok, err = geoCenter(c, z, c.Args[2], &q.shape); !ok || err != nil {
				return q, false, err
			}
			if !geoRadius(c, 3, &q.shape) {
				return q, false, nil
			}
		}
	case geoSearch:
		base = 2
	case geoSearchStore:
		base = 3
		q.store = c.Args[1]
	}
	search := kind == geoSearch || kind == geoSearchStore
	fromMember, fromLonLat, byRadius, byBox := false, false, false, false
	for i := base; i < len(c.Args); i++ {
		rest := len(c.Args) - i - 1 // arguments after this one
		switch {
		case c.Is(i, "withdist"):
			q.withDist = true
		case c.Is(i, "withhash"):
			q.withHash = true
		case c.Is(i, "withcoord"):
			q.withCoord = true
		case c.Is(i, "any"):
			q.any = true
		case c.Is(i, "asc"):
			q.order = geoAsc
		case c.Is(i, "desc"):
			q.order = geoDesc
		case c.Is(i, "count") && rest >= 1:
			n, ok := c.Int(i + 1)
			if !ok {
				return q, false, nil
			}
			if n <= 0 {
				c.ErrorString("ERR COUNT must be > 0")
				return q, false, nil
			}
			q.count = n
			i++
		case (c.Is(i, "store") || c.Is(i, "storedist")) && rest >= 1 && !noStore && !search:
			q.store, q.storeDist = c.Args[i+1], c.Is(i, "storedist")
			i++
		case c.Is(i, "storedist") && kind == geoSearchStore:
			q.storeDist = true
		case c.Is(i, "frommember") && rest >= 1 && search && !fromLonLat:
			if z.Exists() {
				if ok, err = geoCenter(c, z, c.Args[i+1], &q.shape); !ok || err != nil {
					return q, false, err
				}
			}
			fromMember = true
			i++
		case c.Is(i, "fromlonlat") && rest >= 2 && search && !fromMember:
			if q.shape.Long, q.shape.Lat, ok = longLat(c, i+1); !ok {
				return q, false, nil
			}
			fromLonLat = true
			i += 2
		case c.Is(i, "byradius") && rest >= 2 && search && !byBox:
			if !geoRadius(c, i+1, &q.shape) {
				return q, false, nil
			}
			byRadius = true
			i += 2
		case c.Is(i, "bybox") && rest >= 3 && search && !byRadius:
			if !geoBox(c, i+1, &q.shape) {
				return q, false, nil
			}
			byBox = true
			i += 3
		default:
			c.ErrorString(executor.ErrSyntax)
			return q, false, nil
		}
	}
	switch {
	case q.store != nil && (q.withDist || q.withHash || q.withCoord):
		what := "STORE option in GEORADIUS"
		if kind == geoSearchStore {
			what = "GEOSEARCHSTORE"
		}
		c.ErrorString("ERR " + what + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
		return q, false, nil
	case search && !fromMember && !fromLonLat:
		c.ErrorString("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + errorText(c.Args[0]))
		return q, false, nil
	case search && !byRadius && !byBox:
		c.ErrorString("ERR exactly one of BYRADIUS and BYBOX can be specified for " + errorText(c.Args[0]))
		return q, false, nil
	case q.any && q.count == 0:
		c.ErrorString("ERR the ANY argument requires COUNT argument")
		return q, false, nil
	}
	// COUNT without ANY returns the nearest points.
	if q.count != 0 && q.order == geoUnsorted && !q.any {
		q.order = geoAsc
	}
	return q, true, nil
}

// errorText makes an argument safe inside an error reply, as Redis's
// addReplyErrorFormat does: CR and LF become spaces.
func errorText(b []byte) string {
	out := []byte(string(b))
	for i, ch := range out {
		if ch == '\r' || ch == '\n' {
			out[i] = ' '
		}
	}
	return string(out)
}

// search reads the cells of the query's shape and returns the points in
// it, sorted and cut to COUNT as the query asks.
func (q *geoQuery) search(z storage.ZReader) ([]geoPoint, error) {
	var limit int64 // with ANY: stop once this many were found
	if q.any {
		limit = q.count
	}
	// With COUNT and an order, only the first count points in that order
	// are kept: the found points are cut back to them whenever they
	// reach twice as many.
	keep := 0
	if q.count > 0 && q.order != geoUnsorted && q.count < math.MaxInt32/2 {
		keep = int(q.count)
	}
	less := func(a, b *geoPoint) bool {
		switch {
		case a.dist == b.dist || (a.dist != a.dist && b.dist != b.dist): // (NaN)
			return a.seq < b.seq
		case q.order == geoDesc:
			return a.dist > b.dist
		}
		return a.dist < b.dist
	}
	var out []geoPoint
	seq := 0
	full := func() bool { return limit > 0 && int64(len(out)) >= limit }
	var ranges []storage.ScoreRange
	for _, r := range q.shape.ScanRanges() {
		ranges = append(ranges, storage.ScoreRange(r))
	}
	err := z.Scan(ranges, func(member []byte, score float64) bool {
		long, lat := geohash.Decode(score)
		if dist, in := q.shape.Contains(long, lat); in {
			out = append(out, geoPoint{member: append([]byte(nil), member...), score: score, dist: dist, long: long, lat: lat, seq: seq})
			seq++
			if keep > 0 && len(out) >= 2*keep+64 {
				sort.Slice(out, func(i, j int) bool { return less(&out[i], &out[j]) })
				out = out[:keep:keep]
			}
		}
		return !full()
	})
	if err != nil {
		return nil, err
	}
	if q.order != geoUnsorted {
		sort.Slice(out, func(i, j int) bool { return less(&out[i], &out[j]) })
	}
	if q.count > 0 && int64(len(out)) > q.count {
		out = out[:q.count]
	}
	return out, nil
}
