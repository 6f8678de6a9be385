package commands

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/internal/cmdsample"
)

// The file decodes with nothing left over: the generator and commandMeta
// agree.
func TestRedisCommandsJSONDecodes(t *testing.T) {
	dec := json.NewDecoder(bytes.NewReader(redisCommandsJSON))
	dec.DisallowUnknownFields()
	var file struct {
		Redis    string         `json:"redis"`
		Commands []*commandMeta `json:"commands"`
	}
	if err := dec.Decode(&file); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(file.Redis, "7.0.") || len(file.Commands) < 200 {
		t.Fatalf("redis %s, %d commands", file.Redis, len(file.Commands))
	}
	for _, m := range loadMeta() {
		if len(m.docs) == 0 || m.docs[0] != "%" {
			t.Errorf("%s: docs are not a map", m.Name)
		}
	}
}

// Every command has a description: Redis's, or Basalt's own.
func TestEveryCommandDescribed(t *testing.T) {
	for _, cmd := range sortedCommands() {
		if metaOf(cmd.Name) == nil {
			t.Errorf("%s: no description for COMMAND (add it to basaltMeta)", cmd.Name)
		}
	}
}

// legacyRange, ported from Redis, gives back what Redis itself reports
// from the same key specifications, for every Redis command.
func TestLegacyRangeAsRedis(t *testing.T) {
	for name, m := range loadMeta() {
		if m.Flags == nil || strings.HasPrefix(name, "client|setinfo") {
			continue // Basalt's own
		}
		first, last, step, movable := legacyRange(m.KeySpecs)
		if first != m.First || last != m.Last || step != m.Step {
			t.Errorf("%s: legacy range %d %d %d, Redis says %d %d %d", name, first, last, step, m.First, m.Last, m.Step)
		}
		if movable != contains(m.Flags, "movablekeys") {
			t.Errorf("%s: movable %v, Redis flags %v", name, movable, m.Flags)
		}
	}
}

// Redis lists flags in the order of redisFlagOrder.
func TestFlagOrderAsRedis(t *testing.T) {
	rank := map[string]int{}
	for i, f := range redisFlagOrder {
		rank[f] = i + 1
	}
	for name, m := range loadMeta() {
		prev := 0
		for _, f := range m.Flags {
			if rank[f] == 0 {
				t.Errorf("%s: flag %q not in redisFlagOrder", name, f)
			} else if rank[f] < prev {
				t.Errorf("%s: flags %v not in redisFlagOrder", name, m.Flags)
			}
			prev = rank[f]
		}
	}
}

// keysBySpecs finds what Redis 7.0's COMMAND GETKEYS finds (replies taken
// from redis-server 7.0.15).
func TestKeysBySpecs(t *testing.T) {
	tests := []struct {
		call string
		want string // keys, or "invalid"
	}{
		{"get k", "k"},
		{"zunionstore d 2 a b", "d a b"},
		{"zunionstore d 5 a b", "invalid"},
		{"xread streams a b 0 0", "a b"},
		{"xread streams a b 0", "a"},
		{"xread count 1 streams a 0", "a"},
		{"lmpop 3 a b left", "a b left"},
		{"blmpop 0 2 a b left", "a b"},
		{"eval s 0", "invalid"},
		{"eval s 2 a b c", "a b"},
		{"mset a 1 b 2", "a b"},
		{"object encoding k", "k"},
		{"zrangestore d s 0 1", "d s"},
		{"georadius k 0 0 1 m store d", "k d"},
		{"spublish ch msg", ""},
	}
	for _, tt := range tests {
		a := args(strings.Fields(tt.call)...)
		name := strings.ToLower(string(a[0]))
		if name == "object" {
			name += "|" + string(a[1])
		}
		m := metaOf(name)
		if m == nil {
			t.Fatalf("no meta for %s", name)
		}
		refs, ok := keysBySpecs(m.KeySpecs, a, m.Arity < 0, false)
		got := "invalid"
		if ok {
			var keys []string
			for _, r := range refs {
				keys = append(keys, string(a[r.pos]))
			}
			got = strings.Join(keys, " ")
		}
		if got != tt.want {
			t.Errorf("%s: keys %q, want %q", tt.call, got, tt.want)
		}
	}
}

// The key specifications COMMAND reports find the keys Dispatch locks and
// routes by (the table's key positions), on sample calls written from the
// documentation of every command Basalt shares with Redis. Cluster clients
// route by the specifications: a difference sends a command to a node
// that does not hold its keys.
func TestKeySpecsMatchTable(t *testing.T) {
	checked, skipped := 0, 0
	for _, cmd := range sortedCommands() {
		type target struct {
			prefix []string
			meta   *commandMeta
			arity  int
		}
		var targets []target
		if subs := subcommandsOf(cmd); len(subs) > 0 {
			for _, s := range subs {
				_, sub, _ := strings.Cut(s.name, "|")
				targets = append(targets, target{[]string{cmd.Name, sub}, s.meta, s.arity})
			}
		} else if m := metaOf(cmd.Name); m != nil {
			targets = append(targets, target{[]string{cmd.Name}, m, cmd.Arity})
		}
		for _, tg := range targets {
			samples := cmdsample.Samples(cmdsample.Parse(tg.meta.docs))
			for _, sample := range samples {
				a := args(append(append([]string{}, tg.prefix...), sample...)...)
				if !cmd.arityOK(len(a)) || (tg.arity >= 0 && len(a) != tg.arity) || len(a) < -tg.arity {
					skipped++
					continue
				}
				var want []string
				if len(tg.meta.KeySpecs) > 0 {
					refs, ok := keysBySpecs(tg.meta.KeySpecs, a, tg.arity < 0, true)
					// Where the specifications fall short, COMMAND GETKEYS
					// asks the table too (TestCommandAgainstRedis).
					if !ok || specsFallShort(tg.meta.KeySpecs) {
						skipped++
						continue
					}
					for _, r := range refs {
						want = append(want, string(a[r.pos]))
					}
				}
				var got []string
				for _, k := range cmd.keys(a) {
					got = append(got, string(k))
				}
				checked++
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("%s: the table finds keys %q, the key specs %q", strings.Join(sample2(tg.prefix, sample), " "), got, want)
				}
			}
		}
	}
	t.Logf("%d sample calls checked, %d skipped (arity or specs not fitting)", checked, skipped)
	if checked < 200 {
		t.Fatalf("only %d sample calls checked", checked)
	}
}

func sample2(prefix, sample []string) []string {
	return append(append([]string{}, prefix...), sample...)
}

// Flags reported by COMMAND: the ones Dispatch acts on come from the
// table, the others from Redis.
func TestFlagsOf(t *testing.T) {
	tests := []struct{ cmd, want string }{
		{"get", "readonly fast"},
		{"set", "write denyoom"},
		{"blpop", "write noscript blocking"},
		{"zunionstore", "write denyoom movablekeys"},
		{"auth", "noscript loading stale fast no_auth allow_busy"},
		{"exec", "noscript loading stale skip_slowlog"},
		{"movex", "write"},
	}
	for _, tt := range tests {
		cmd := table.byName[tt.cmd]
		if got := strings.Join(flagsOf(cmd, metaOf(tt.cmd)), " "); got != tt.want {
			t.Errorf("%s: flags %q, want %q", tt.cmd, got, tt.want)
		}
	}
}
