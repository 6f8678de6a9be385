package commands

import (
	"strings"
	"testing"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/internal/cmdsample"
)

// allMeta returns every description: Redis's, of its commands and
// subcommands, and Basalt's own, of the commands and subcommands of the
// table, by name.
func allMeta() map[string]*executor.Meta {
	out := map[string]*executor.Meta{}
	var add func(m *executor.Meta)
	add = func(m *executor.Meta) {
		out[m.Name] = m
		for _, s := range m.Subcommands {
			add(s)
		}
	}
	for _, m := range executor.DecodeRedisMeta() {
		add(m)
	}
	for _, cmd := range executor.SortedCommands() {
		if cmd.Meta != nil {
			out[cmd.Name] = cmd.Meta
		}
		for name, s := range cmd.Subcommands {
			if s.Meta != nil {
				out[cmd.Name+"|"+name] = s.Meta
			}
		}
	}
	return out
}

// Every command has a description: Redis's, or Basalt's own.
func TestEveryCommandDescribed(t *testing.T) {
	for _, cmd := range executor.SortedCommands() {
		if d := cmd.Description(); d == nil {
			t.Errorf("%s: no description for COMMAND (give its registration a Meta)", cmd.Name)
		} else if len(d.Doc) == 0 || d.Doc[0] != "%" {
			t.Errorf("%s: docs are not a map", cmd.Name)
		}
	}
}

// legacyRange, ported from Redis, gives back what Redis itself reports
// from the same key specifications, for every Redis command.
func TestLegacyRangeAsRedis(t *testing.T) {
	for name, m := range allMeta() {
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
	for name, m := range allMeta() {
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
		m := allMeta()[name]
		if m == nil {
			t.Fatalf("no meta for %s", name)
		}
		refs, ok := executor.KeysBySpecs(m.KeySpecs, a, m.Arity < 0, false)
		got := "invalid"
		if ok {
			var keys []string
			for _, r := range refs {
				keys = append(keys, string(a[r.Pos]))
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
	for _, cmd := range executor.SortedCommands() {
		type target struct {
			prefix []string
			meta   *executor.Meta
			arity  int
		}
		var targets []target
		if subs := subcommandsOf(cmd); len(subs) > 0 {
			for _, s := range subs {
				_, sub, _ := strings.Cut(s.name, "|")
				targets = append(targets, target{[]string{cmd.Name, sub}, s.meta, s.arity})
			}
		} else if m := cmd.Description(); m != nil {
			targets = append(targets, target{[]string{cmd.Name}, m, cmd.Arity})
		}
		for _, tg := range targets {
			samples := cmdsample.Samples(cmdsample.Parse(tg.meta.Doc))
			for _, sample := range samples {
				a := args(append(append([]string{}, tg.prefix...), sample...)...)
				if !cmd.ArityOK(len(a)) || (tg.arity >= 0 && len(a) != tg.arity) || len(a) < -tg.arity {
					skipped++
					continue
				}
				var want []string
				if len(tg.meta.KeySpecs) > 0 {
					refs, ok := executor.KeysBySpecs(tg.meta.KeySpecs, a, tg.arity < 0, true)
					// Where the specifications fall short, COMMAND GETKEYS
					// asks the table too (TestCommandAgainstRedis).
					if !ok || specsFallShort(tg.meta.KeySpecs) {
						skipped++
						continue
					}
					for _, r := range refs {
						want = append(want, string(a[r.Pos]))
					}
				}
				var got []string
				for _, k := range cmd.KeysOf(a) {
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
		cmd := executor.Lookup([]byte(tt.cmd))
		if got := strings.Join(flagsOf(cmd, cmd.Description()), " "); got != tt.want {
			t.Errorf("%s: flags %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

// The commands whose syntax grew after Redis 7.0 document their new
// arguments, as Redis 8.4 does, in Redis's description.
func TestGrownSyntaxDocumented(t *testing.T) {
	var has func(tree any, token string) bool
	has = func(tree any, token string) bool {
		switch v := tree.(type) {
		case string:
			return v == "$"+token
		case []any:
			for _, e := range v {
				if has(e, token) {
					return true
				}
			}
		}
		return false
	}
	for _, c := range []struct{ cmd, since string }{
		{"set IFEQ IFNE IFDEQ IFDNE NX EX", "8.4.0"},
		{"xadd KEEPREF DELREF ACKED NOMKSTREAM MAXLEN", "8.2.0"},
		{"xtrim KEEPREF DELREF ACKED MINID LIMIT", "8.2.0"},
		{"xreadgroup CLAIM NOACK STREAMS", "8.4.0"},
		{"bitop AND NOT DIFF DIFF1 ANDOR ONE", "8.2.0"},
	} {
		words := strings.Fields(c.cmd)
		d := executor.Lookup([]byte(words[0])).Description()
		for _, tok := range append(words[1:], c.since, "summary") {
			if !has(d.Doc, tok) {
				t.Errorf("%s: COMMAND DOCS lacks %s", words[0], tok)
			}
		}
	}
}
