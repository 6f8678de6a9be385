package it

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The differential test of the GEO commands: the same commands go to
// redis-server 7.0 and to Basalt over raw connections, and the replies
// must be the same bytes, in RESP2 and in RESP3: scores, positions
// (17 decimals), hashes, distances (4 decimals, and 17 digits where
// STOREDIST keeps them) and the order of unsorted search results, which
// is the order of the cells scanned. The fixed cases are
// testdata/geo_diff.txt; seeded random streams follow (DIFF_SEED and
// DIFF_STEPS override the seeds and their length).
//
// The random points are distinct and never equally far from a centre:
// Redis sorts a COUNT smaller than the matches with its own partial
// quicksort, which orders equal distances in no documented way (Basalt
// keeps them in the order found).

// readCases reads a file of commands, one per line, as kvdSplit splits
// them; blank lines and # comments are skipped.
func readCases(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	var cases [][]string
	for n, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		args, err := kvdSplit(line)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n+1, err)
		}
		cases = append(cases, args)
	}
	return cases
}

func TestGeoDiff(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	cases := readCases(t, "testdata/geo_diff.txt")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("cases/RESP%d", proto), func(t *testing.T) {
			p := newBitsPair(t, b, r, proto)
			kinds := map[byte]int{}
			for _, args := range cases {
				kinds[p.same(args...)[0]]++
			}
			t.Logf("%d commands, same replies: %d errors, %d integers, %d strings, %d arrays, %d nulls",
				len(cases), kinds['-'], kinds[':'], kinds['$'], kinds['*'], kinds['_'])
		})
	}
	seeds, steps := diffSeeds(1, 2, 3, 4), diffSteps(1500)
	for _, seed := range seeds {
		proto := 2 + int(seed%2)
		t.Run(fmt.Sprintf("random/seed=%d/RESP%d", seed, proto), func(t *testing.T) {
			p := newBitsPair(t, b, r, proto)
			g := newGeoGen(seed)
			p.same("SET", "str", "x")
			// A set of 5000 points in the region the searches look at,
			// so that a cell holds hundreds and the order of the cells
			// and of the members in them shows.
			big := []string{"GEOADD", "gbig"}
			for i := 0; i < 5000; i++ {
				l, a := g.coord()
				big = append(big, l, a, "b"+strconv.Itoa(i))
			}
			p.same(big...)
			kinds := map[byte]int{}
			nonEmpty := 0
			for i := 0; i < steps; i++ {
				cmd := g.next()
				rep := p.same(cmd...)
				kinds[rep[0]]++
				if g.isSearch(cmd) && rep[0] == '*' && !strings.HasPrefix(rep, "*0\r\n") {
					nonEmpty++
				}
			}
			// The sets built, whole.
			for _, k := range geoKeys {
				p.same("ZRANGE", k, "0", "-1", "WITHSCORES")
			}
			t.Logf("%d commands, same replies: %d errors, %d integers, %d strings, %d arrays (%d non-empty search results), %d nulls",
				steps, kinds['-'], kinds[':'], kinds['$'], kinds['*'], nonEmpty, kinds['_'])
			if nonEmpty < steps/20 {
				t.Errorf("only %d searches found something", nonEmpty)
			}
		})
	}
}

// geoKeys are the sets of the random streams; d0 and d1 are what STORE
// and GEOSEARCHSTORE write, gbig a set of 5000 points.
var geoKeys = []string{"g0", "g1", "d0", "d1", "gbig"}

// geoGen draws random GEO commands over a few dozen members placed in a
// region a few hundred kilometers wide (so that searches find some), a
// few of them anywhere on the map.
type geoGen struct {
	r     *rand.Rand
	used  map[string]bool // coordinates given out, kept distinct
	names []string
}

func newGeoGen(seed int64) *geoGen {
	g := &geoGen{r: rand.New(rand.NewSource(seed)), used: map[string]bool{}}
	for i := 0; i < 40; i++ {
		g.names = append(g.names, "m"+strconv.Itoa(i))
	}
	return g
}

func (g *geoGen) pick(s ...string) string { return s[g.r.Intn(len(s))] }

func (g *geoGen) member() string {
	if g.r.Intn(25) == 0 {
		return g.pick("nosuch", "")
	}
	return g.names[g.r.Intn(len(g.names))]
}

func (g *geoGen) key() string {
	switch g.r.Intn(25) {
	case 0:
		return g.pick("str", "nokey")
	case 1, 2:
		return g.pick("d0", "d1")
	case 3, 4, 5:
		return "gbig"
	}
	return g.pick("g0", "g1")
}

// coord draws a longitude and latitude with six decimals, distinct from
// every one drawn before; a few are invalid.
func (g *geoGen) coord() (string, string) {
	if g.r.Intn(60) == 0 {
		return g.pick("181", "-180.0001", "x", "inf", "10"), g.pick("86", "-85.06", "nan", "1e400", "40")
	}
	for {
		var long, lat float64
		switch g.r.Intn(12) {
		case 0: // anywhere
			long, lat = g.r.Float64()*360-180, g.r.Float64()*170-85
		case 1: // near the antimeridian or a pole
			long, lat = 179+g.r.Float64()*2, g.r.Float64()*170-85
			if long > 180 {
				long -= 360
			}
			if g.r.Intn(2) == 0 {
				lat = 84 + g.r.Float64()
			}
		default: // a region around (12, 42)
			long, lat = 9+g.r.Float64()*6, 39+g.r.Float64()*6
		}
		l, a := strconv.FormatFloat(long, 'f', 6, 64), strconv.FormatFloat(lat, 'f', 6, 64)
		if !g.used[l+","+a] {
			g.used[l+","+a] = true
			return l, a
		}
	}
}

func (g *geoGen) unit() string {
	if g.r.Intn(40) == 0 {
		return g.pick("yd", "", "kmm")
	}
	return g.pick("m", "km", "KM", "mi", "ft")
}

// distance draws a radius or a side in unit's scale, mostly tens to
// hundreds of kilometers.
func (g *geoGen) distance(unit string) string {
	if g.r.Intn(50) == 0 {
		return g.pick("0", "-1", "x", "inf", "nan", "1e400")
	}
	km := g.r.Float64() * 400
	if g.r.Intn(8) == 0 {
		km = g.r.Float64() * 8000
	}
	perKm := map[string]float64{"m": 1000, "km": 1, "KM": 1, "mi": 1 / 1.60934, "ft": 1000 / 0.3048}[unit]
	if perKm == 0 {
		perKm = 1
	}
	return strconv.FormatFloat(km*perKm, 'f', g.r.Intn(4), 64)
}

// options draws the optional words of a search.
func (g *geoGen) options(store, search bool) []string {
	var out []string
	for n := g.r.Intn(4); n > 0; n-- {
		switch g.r.Intn(10) {
		case 0:
			out = append(out, g.pick("WITHDIST", "withdist"))
		case 1:
			out = append(out, "WITHHASH")
		case 2:
			out = append(out, "WITHCOORD")
		case 3, 4:
			out = append(out, "COUNT", g.pick("1", "2", "3", "5", "10", "100", "0", "-1", "x"))
			if g.r.Intn(3) == 0 {
				out = append(out, "ANY")
			}
		case 5:
			out = append(out, g.pick("ASC", "DESC", "asc"))
		case 6:
			if store && !search {
				out = append(out, g.pick("STORE", "STOREDIST"), g.pick("d0", "d1"))
			} else if store {
				out = append(out, "STOREDIST")
			}
		case 7:
			if g.r.Intn(10) == 0 {
				out = append(out, g.pick("ANY", "STORE", "foo"))
			}
		}
	}
	return out
}

func (g *geoGen) isSearch(cmd []string) bool {
	return strings.HasPrefix(cmd[0], "GEORADIUS") || cmd[0] == "GEOSEARCH"
}

func (g *geoGen) next() []string {
	k := g.key()
	switch g.r.Intn(20) {
	case 0, 1, 2, 3:
		cmd := []string{"GEOADD", g.pick("g0", "g1", "g0", "g1", "str")}
		switch g.r.Intn(8) {
		case 0:
			cmd = append(cmd, g.pick("NX", "XX", "CH", "nx", "ch"))
		case 1:
			cmd = append(cmd, "XX", "CH")
		}
		for n := 1 + g.r.Intn(4); n > 0; n-- {
			l, a := g.coord()
			cmd = append(cmd, l, a, g.member())
		}
		return cmd
	case 4:
		cmd := []string{"GEODIST", k, g.member(), g.member()}
		if g.r.Intn(2) == 0 {
			cmd = append(cmd, g.unit())
		}
		return cmd
	case 5:
		return []string{g.pick("GEOPOS", "GEOHASH"), k, g.member(), g.member(), g.member()}
	case 6, 7, 8:
		unit := g.unit()
		l, a := g.coord()
		name := g.pick("GEORADIUS", "GEORADIUS_RO")
		return append([]string{name, k, l, a, g.distance(unit), unit}, g.options(name == "GEORADIUS", false)...)
	case 9, 10:
		unit := g.unit()
		name := g.pick("GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO")
		return append([]string{name, k, g.member(), g.distance(unit), unit}, g.options(name == "GEORADIUSBYMEMBER", false)...)
	case 11, 12, 13, 14:
		cmd := []string{"GEOSEARCH", k}
		if g.r.Intn(5) == 0 {
			cmd = []string{"GEOSEARCHSTORE", g.pick("d0", "d1"), k}
		}
		if g.r.Intn(2) == 0 {
			cmd = append(cmd, "FROMMEMBER", g.member())
		} else {
			l, a := g.coord()
			cmd = append(cmd, "FROMLONLAT", l, a)
		}
		unit := g.unit()
		if g.r.Intn(2) == 0 {
			cmd = append(cmd, "BYRADIUS", g.distance(unit), unit)
		} else {
			cmd = append(cmd, "BYBOX", g.distance(unit), g.distance(unit), unit)
		}
		return append(cmd, g.options(cmd[0] == "GEOSEARCHSTORE", true)...)
	case 15:
		return []string{"ZRANGE", g.pick("d0", "d1"), "0", "-1", "WITHSCORES"}
	case 16:
		return []string{"ZREM", k, g.member()}
	case 17:
		if g.r.Intn(4) == 0 {
			return []string{"DEL", k}
		}
		return []string{"ZCARD", k}
	case 18:
		return []string{"TYPE", k}
	}
	return []string{"GEOPOS", k, g.member()}
}
