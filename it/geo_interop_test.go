package it

import (
	"math/rand"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Geo sets across Basalt and the real Kvrocks, as for bitmaps
// (bits_interop_test.go): the same seeded workload (GEOADD, members
// moved, points on the edges of the map, GEORADIUS STORE,
// GEOSEARCHSTORE, ZREM, a TTL) runs on each server in a directory of its own;
// then
//   - both directories hold the same records byte for byte, versions set
//     aside: a geo set is a sorted set scored by 52-bit geohashes, in
//     both (FORMAT.md §4.5);
//   - each server opens the other's directory and answers every read
//     (GEOPOS, GEOHASH, GEODIST, the searches, ZRANGE WITHSCORES of what
//     STORE wrote) exactly as it answers it in its own.

// geoInteropWorkload returns the writes and the reads.
func geoInteropWorkload(seed int64, expireAt int64) (writes, reads [][]any) {
	r := rand.New(rand.NewSource(seed))
	coord := func() (string, string) {
		if r.Intn(5) == 0 {
			return strconv.FormatFloat(r.Float64()*360-180, 'f', 6, 64), strconv.FormatFloat(r.Float64()*170-85, 'f', 6, 64)
		}
		return strconv.FormatFloat(2+r.Float64()*4, 'f', 6, 64), strconv.FormatFloat(48+r.Float64()*3, 'f', 6, 64)
	}
	var keys []string
	members := map[string][]string{}
	for i := 0; i < 4; i++ {
		k := "geo:" + strconv.Itoa(i)
		keys = append(keys, k)
		for n := 1 + r.Intn(6); n > 0; n-- {
			// (No NX, XX or CH: Kvrocks 2.10's GEOADD has none.)
			cmd := []any{"GEOADD", k}
			for j := 1 + r.Intn(300); j > 0; j-- {
				long, lat := coord()
				m := "m" + strconv.Itoa(r.Intn(400))
				cmd = append(cmd, long, lat, m)
				members[k] = append(members[k], m)
			}
			writes = append(writes, cmd)
		}
	}
	writes = append(writes,
		[]any{"GEOADD", "geo:edges", 180, 85.05112878, "top", -180, -85.05112878, "bottom", 179.999999, 0, "east", -180, 0, "west", 0, 0, "origin"},
		[]any{"GEOADD", "geo:edges", 0.000001, 0, "origin"},
		[]any{"GEOADD", "geo:ttl", 2.35, 48.85, "paris"}, []any{"PEXPIREAT", "geo:ttl", expireAt},
		[]any{"GEORADIUS", "geo:0", 4, 49.5, 100, "km", "STORE", "geo:store"},
		[]any{"GEORADIUS", "geo:1", 4, 49.5, 120, "km", "STOREDIST", "geo:dist"},
		// (BYRADIUS: Kvrocks's BYBOX keeps points Redis's leaves out, see
		// kvrocks_differences.txt.)
		[]any{"GEOSEARCHSTORE", "geo:search", "geo:1", "FROMLONLAT", 4, 49.5, "BYRADIUS", 150, "km"},
		[]any{"GEOSEARCHSTORE", "geo:search2", "geo:2", "FROMMEMBER", "m246", "BYRADIUS", 80, "km", "STOREDIST", "DESC", "COUNT", 20},
		[]any{"ZREM", "geo:2", "m1", "m2", "m3"},
	)
	keys = append(keys, "geo:edges", "geo:ttl", "geo:store", "geo:dist", "geo:search", "geo:search2")
	members["geo:edges"] = []string{"top", "bottom", "east", "west", "origin"}
	members["geo:ttl"] = []string{"paris"}

	for _, k := range keys {
		reads = append(reads, []any{"ZRANGE", k, 0, -1, "WITHSCORES"}, []any{"PEXPIRETIME", k}, []any{"TYPE", k})
		ms := members[k]
		for i := 0; i < len(ms) && i < 60; i += 3 {
			reads = append(reads,
				[]any{"GEOPOS", k, ms[i]}, []any{"GEOHASH", k, ms[i]},
				[]any{"GEODIST", k, ms[i], ms[(i+7)%len(ms)], "km"},
				[]any{"GEOSEARCH", k, "FROMMEMBER", ms[i], "BYRADIUS", 50, "km", "ASC", "WITHDIST", "WITHCOORD"},
			)
		}
		reads = append(reads,
			[]any{"GEORADIUS_RO", k, 4, 49.5, 80, "km", "WITHDIST", "ASC"},
			[]any{"GEOSEARCH", k, "FROMLONLAT", 3, 49, "BYBOX", 300, 100, "km", "DESC", "COUNT", 10},
			[]any{"GEOSEARCH", k, "FROMLONLAT", 0, 0, "BYRADIUS", 30000, "km", "ASC", "WITHHASH"},
		)
	}
	return writes, reads
}

func TestKvrocksGeoInterop(t *testing.T) {
	kvrocksBin(t)
	expireAt := time.Now().Add(3*time.Hour).UnixMilli() / 1000 * 1000
	writes, reads := geoInteropWorkload(22, expireAt)
	read := func(p *proc) []string { return readAll(t, p, reads) }
	dirs, own := interopOwnDirs(t, writes, read)

	raw := map[server][]string{}
	for _, s := range []server{kvrocksServer, basaltServer} {
		raw[s] = rawBitRecords(t, filepath.Join(dirs[s], "db"), func(string) bool { return true })
	}
	if len(raw[basaltServer]) < 500 {
		t.Fatalf("only %d records in Basalt's directory", len(raw[basaltServer]))
	}
	if k, b := strings.Join(raw[kvrocksServer], "\n"), strings.Join(raw[basaltServer], "\n"); k != b {
		i := firstDifference(raw[kvrocksServer], raw[basaltServer])
		t.Errorf("records differ (%d in Kvrocks's directory, %d in Basalt's); first difference:\nkvrocks: %s\nbasalt:  %s",
			len(raw[kvrocksServer]), len(raw[basaltServer]), at(raw[kvrocksServer], i), at(raw[basaltServer], i))
	} else {
		t.Logf("%d records (metadata, members and scores of %d geo sets) byte for byte the same", len(raw[basaltServer]), countMeta(raw[basaltServer]))
	}

	interopCrossRead(t, dirs, own, read)
}
