package commands

import (
	"math"
	"strconv"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/geohash"
	"github.com/basaltdb/basalt/storage"
)

// The GEO commands, on sorted sets whose scores are 52-bit geohashes
// (geohash/), the way Redis and Kvrocks keep them: a geo set is a sorted
// set to every other command. The searches are in geo_search.go.

func init() {
	executor.Register(
		// GEOADD is a ZADD in Redis, and publishes as one.
		&executor.Command{Name: "geoadd", Arity: -5, Flags: executor.Write, FirstKey: 1, LastKey: 1, Handler: cmdGeoAdd,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "zadd", Shape: executor.OnEach}},
		&executor.Command{Name: "geodist", Arity: -4, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdGeoDist},
		&executor.Command{Name: "geohash", Arity: -2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdGeoHash},
		&executor.Command{Name: "geopos", Arity: -2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdGeoPos},
		&executor.Command{Name: "georadius", Arity: -6, Flags: executor.Write, FirstKey: 1, LastKey: 1, Keys: georadiusKeys(6), Handler: cmdGeoRadius,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "georadiusstore", Shape: executor.OnStore, Dest: executor.DestLastKey}},
		&executor.Command{Name: "georadiusbymember", Arity: -5, Flags: executor.Write, FirstKey: 1, LastKey: 1, Keys: georadiusKeys(5), Handler: cmdGeoRadiusByMember,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "georadiusstore", Shape: executor.OnStore, Dest: executor.DestLastKey}},
		&executor.Command{Name: "georadius_ro", Arity: -6, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdGeoRadiusRO},
		&executor.Command{Name: "georadiusbymember_ro", Arity: -5, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdGeoRadiusByMemberRO},
		&executor.Command{Name: "geosearch", Arity: -7, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdGeoSearch},
		&executor.Command{Name: "geosearchstore", Arity: -8, Flags: executor.Write, FirstKey: 1, LastKey: 2, Handler: cmdGeoSearchStore,
			Events: &executor.KeyEvents{Class: config.NotifyZset, Event: "geosearchstore", Shape: executor.OnStore, Dest: executor.DestFirstKey}},
	)
}

// georadiusKeys finds the keys of GEORADIUS and GEORADIUSBYMEMBER: the
// source, and the key after each STORE or STOREDIST among the options,
// which begin at argument from. (Redis's key specifications name the
// first of each; Basalt locks every one, the last being the one written.)
func georadiusKeys(from int) func(args [][]byte) [][]byte {
	return func(args [][]byte) [][]byte {
		keys := [][]byte{args[1]}
		for i := from; i+1 < len(args); i++ {
			switch {
			case equalFold(args[i], "store") || equalFold(args[i], "storedist"):
				keys = append(keys, args[i+1])
				i++
			case equalFold(args[i], "count"):
				i++
			}
		}
		return keys
	}
}

// equalFold reports whether b is word in any case.
func equalFold(b []byte, word string) bool {
	if len(b) != len(word) {
		return false
	}
	for i := range b {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return true
}

// cFloat formats f as C's "%f" does (the coordinates of Redis's errors).
func cFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// longLat parses the longitude and latitude at arguments i and i+1,
// replying Redis's error when they are not numbers or not a valid point.
func longLat(c *executor.Ctx, i int) (long, lat float64, ok bool) {
	if long, ok = c.Float(i); !ok {
		return 0, 0, false
	}
	if lat, ok = c.Float(i + 1); !ok {
		return 0, 0, false
	}
	if !geohash.Valid(long, lat) {
		c.ErrorString("ERR invalid longitude,latitude pair " + cFloat(long) + "," + cFloat(lat))
		return 0, 0, false
	}
	return long, lat, true
}

// geoUnit parses the unit at argument i: meters per unit.
func geoUnit(c *executor.Ctx, i int) (float64, bool) {
	m, ok := geohash.ToMeters(c.Args[i])
	if !ok {
		c.ErrorString("ERR unsupported unit provided. please use M, KM, FT, MI")
	}
	return m, ok
}

// GEOADD key [NX | XX] [CH] longitude latitude member [longitude latitude member ...]
func cmdGeoAdd(c *executor.Ctx) {
	var f storage.ZAddFlags
	ch := false
	i := 2
options:
	for ; i < len(c.Args); i++ {
		switch {
		case c.Is(i, "nx"):
			f.NX = true
		case c.Is(i, "xx"):
			f.XX = true
		case c.Is(i, "ch"):
			ch = true
		default:
			break options
		}
	}
	n := len(c.Args) - i
	if n == 0 || n%3 != 0 || (f.NX && f.XX) {
		c.ErrorString(executor.ErrSyntax)
		return
	}
	scores := make([]float64, 0, n/3)
	members := make([][]byte, 0, n/3)
	for j := i; j < len(c.Args); j += 3 {
		long, lat, ok := longLat(c, j)
		if !ok {
			return
		}
		scores, members = append(scores, geohash.Score(long, lat)), append(members, c.Args[j+2])
	}
	res, err := c.DB.ZAdd(c.Args[1], f, scores, members)
	switch {
	case !c.OK(err):
	case ch:
		c.W.Int(res.Added + res.Changed)
	default:
		c.W.Int(res.Added)
	}
}

// GEODIST key member1 member2 [M | KM | FT | MI]
func cmdGeoDist(c *executor.Ctx) {
	toMeters := 1.0
	switch {
	case len(c.Args) == 5:
		var ok bool
		if toMeters, ok = geoUnit(c, 4); !ok {
			return
		}
	case len(c.Args) > 5:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	scores, found, err := c.DB.ZMScore(c.Args[1], c.Args[2:4])
	switch {
	case !c.OK(err):
	case !found[0] || !found[1]:
		c.W.Null()
	default:
		long1, lat1 := geohash.Decode(scores[0])
		long2, lat2 := geohash.Decode(scores[1])
		writeDistance(c, geohash.Distance(long1, lat1, long2, lat2)/toMeters)
	}
}

// writeDistance writes a distance as Redis does: a bulk string with four
// decimals, in RESP3 too.
// (A NaN, from nearly antipodal points, prints as glibc prints it.)
func writeDistance(c *executor.Ctx, d float64) {
	var tmp [48]byte
	switch {
	case math.IsNaN(d) && math.Signbit(d):
		c.W.BulkString("-nan")
	case math.IsNaN(d):
		c.W.BulkString("nan")
	default:
		c.W.Bulk(strconv.AppendFloat(tmp[:0], d, 'f', 4, 64))
	}
}

// GEOHASH key [member [member ...]]
func cmdGeoHash(c *executor.Ctx) {
	scores, found, err := c.DB.ZMScore(c.Args[1], c.Args[2:])
	if !c.OK(err) {
		return
	}
	c.W.Array(len(scores))
	for i, s := range scores {
		if !found[i] {
			c.W.Null()
			continue
		}
		h := geohash.String(s)
		c.W.Bulk(h[:])
	}
}

// GEOPOS key [member [member ...]]
func cmdGeoPos(c *executor.Ctx) {
	scores, found, err := c.DB.ZMScore(c.Args[1], c.Args[2:])
	if !c.OK(err) {
		return
	}
	c.W.Array(len(scores))
	for i, s := range scores {
		if !found[i] {
			c.W.NullArray()
			continue
		}
		writeCoords(c, s)
	}
}

// writeCoords writes the position a score stands for: longitude and
// latitude, printed as Redis prints them.
func writeCoords(c *executor.Ctx, score float64) {
	long, lat := geohash.Decode(score)
	c.W.Array(2)
	c.W.HumanDouble(long)
	c.W.HumanDouble(lat)
}
