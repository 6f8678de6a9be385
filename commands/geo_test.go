package commands

import (
	"strconv"
	"strings"
	"testing"
)

// The GEO commands in process, on the example of Redis's documentation
// (whose replies redis-server prints), in RESP2 and RESP3; the
// differential test it/geo_diff_test.go compares far more with a real
// redis-server.
func TestGeoReplies(t *testing.T) {
	h := newFuzzHarness(t)
	h.seed(t, false)
	const lmax = "9223372036854775807"
	h.do(t, "geoadd", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania")
	tests := []struct {
		call  []string
		resp3 bool
		want  string
	}{
		{[]string{"zscore", "Sicily", "Palermo"}, false, "$16\r\n3479099956230698\r\n"},
		{[]string{"geodist", "Sicily", "Palermo", "Catania"}, false, "$11\r\n166274.1516\r\n"},
		{[]string{"geodist", "Sicily", "Palermo", "Catania", "km"}, true, "$8\r\n166.2742\r\n"},
		{[]string{"geodist", "Sicily", "Palermo", "nosuch"}, true, "_\r\n"},
		{[]string{"geohash", "Sicily", "Palermo", "nosuch"}, false, "*2\r\n$11\r\nsqc8b49rny0\r\n$-1\r\n"},
		{[]string{"geopos", "Sicily", "Palermo", "nosuch"}, false, "*2\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n*-1\r\n"},
		{[]string{"geopos", "Sicily", "Palermo", "nosuch"}, true, "*2\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n_\r\n"},
		{[]string{"georadius", "Sicily", "15", "37", "200", "km", "withdist"}, false,
			"*2\r\n*2\r\n$7\r\nPalermo\r\n$8\r\n190.4424\r\n*2\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n"},
		{[]string{"georadius", "Sicily", "15", "37", "200", "km", "count", lmax, "withhash"}, false,
			"*2\r\n*2\r\n$7\r\nCatania\r\n:3479447370796909\r\n*2\r\n$7\r\nPalermo\r\n:3479099956230698\r\n"},
		{[]string{"geosearch", "Sicily", "frommember", "Palermo", "bybox", "400", "400", "km", "desc", "count", "1"}, false, "*1\r\n$7\r\nCatania\r\n"},
		{[]string{"geoadd", "Sicily", "200", "0", "x"}, false, "-ERR invalid longitude,latitude pair 200.000000,0.000000\r\n"},
		{[]string{"geoadd", "Sicily", "-inf", "0", "x"}, false, "-ERR invalid longitude,latitude pair -inf,0.000000\r\n"},
		{[]string{"georadius", "Sicily", "15", "37", "200", "km", "count", "0"}, false, "-ERR COUNT must be > 0\r\n"},
		{[]string{"georadius_ro", "Sicily", "15", "37", "200", "km", "store", "d"}, false, "-ERR syntax error\r\n"},
		{[]string{"georadius", "Sicily", "15", "37", "200", "km", "store", "d", "withdist"}, false,
			"-ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options\r\n"},
		{[]string{"geosearch", "Sicily", "bybox", "1", "1", "km", "asc"}, false, "-ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for geosearch\r\n"},
		{[]string{"geosearch", "Sicily", "fromlonlat", "1", "1", "asc", "asc"}, false, "-ERR exactly one of BYRADIUS and BYBOX can be specified for geosearch\r\n"},
		{[]string{"georadiusbymember", "nokey", "m", "x", "y"}, false, "*0\r\n"},
		{[]string{"georadiusbymember", "Sicily", "nosuch", "1", "km"}, false, "-ERR could not decode requested zset member\r\n"},
		{[]string{"geopos", "z", "d", "e"}, false, "*2\r\n*2\r\n$..."}, // scores ±inf decode too
		{[]string{"georadius", "str", "1", "2", "3", "furlongs"}, false, "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.call, " ")+"/resp3="+strconv.FormatBool(tt.resp3), func(t *testing.T) {
			cl := h.client()
			defer h.env.Disconnected(cl.Session)
			if tt.resp3 {
				cl.setProtocol(3)
			}
			h.env.Dispatch(cl.Ctx, args(tt.call...))
			got := string(cl.W.Bytes())
			if want, prefix := strings.CutSuffix(tt.want, "..."); prefix {
				if !strings.HasPrefix(got, want) {
					t.Fatalf("reply %q, want %q...", got, want)
				}
			} else if got != tt.want {
				t.Fatalf("reply %q, want %q", got, tt.want)
			}
		})
	}

	// STORE writes a sorted set of the scores, STOREDIST of the distances
	// in the search's unit; an empty result deletes the destination.
	for _, c := range []struct{ call, then []string }{
		{[]string{"georadius", "Sicily", "15", "37", "200", "km", "store", "d"}, []string{"zrange", "d", "0", "-1", "withscores"}},
		{[]string{"geosearchstore", "d", "Sicily", "fromlonlat", "15", "37", "byradius", "100", "km", "storedist"}, []string{"zrange", "d", "0", "-1", "withscores"}},
		{[]string{"georadius", "Sicily", "0", "0", "1", "m", "storedist", "d"}, []string{"exists", "d"}},
	} {
		first, then := h.do(t, c.call...), h.do(t, c.then...)
		want := map[string][2]string{
			"georadius":      {":2\r\n", "*4\r\n$7\r\nPalermo\r\n$16\r\n3479099956230698\r\n$7\r\nCatania\r\n$16\r\n3479447370796909\r\n"},
			"geosearchstore": {":1\r\n", "*2\r\n$7\r\nCatania\r\n$..."},
		}[c.call[0]]
		if c.then[0] == "exists" {
			want = [2]string{":0\r\n", ":0\r\n"}
		}
		if first != want[0] || !strings.HasPrefix(then, strings.TrimSuffix(want[1], "...")) {
			t.Errorf("%q: %q, then %q; want %q, %q", c.call, first, then, want[0], want[1])
		}
	}
}
