package it

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestKvrocksStreamInterop: streams in one data directory, both ways. Each
// server writes streams (entries of every size, deletions, trims, XSETID,
// consumer groups, consumers and pending entries), stops, and
// the other opens the directory and must see the same entries, metadata
// and groups; it then changes them, compacts, and the first reads its
// changes back.
func TestKvrocksStreamInterop(t *testing.T) {
	kvrocksBin(t)
	long := strings.Repeat("v", 300) // a varint length of two bytes
	write := [][]any{
		{"XADD", "st", "1-1", "a", "1", "b", ""}, {"XADD", "st", "2-1", "long", long}, {"XADD", "st", "3-1", "c", "3"},
		{"XADD", "st", "4-1", "d", "4"}, {"XADD", "st", "5-1", "e", "5"}, {"XADD", "st", "5-*", "f", "6"},
		{"XDEL", "st", "3-1"}, {"XDEL", "st", "1-1"},
		{"XADD", "trimmed", "1-1", "x", "1"}, {"XADD", "trimmed", "2-1", "x", "2"}, {"XADD", "trimmed", "3-1", "x", "3"},
		{"XTRIM", "trimmed", "MAXLEN", "1"},
		{"XADD", "set", "1-1", "x", "1"}, {"XSETID", "set", "9-9", "ENTRIESADDED", "5", "MAXDELETEDID", "8-1"},
		{"XADD", "emptied", "1-1", "x", "1"}, {"XDEL", "emptied", "1-1"},
	}
	groups := [][]any{
		{"XGROUP", "CREATE", "st", "g1", "0"}, {"XGROUP", "CREATE", "st", "g2", "$"},
		{"XREADGROUP", "GROUP", "g1", "alice", "COUNT", "2", "STREAMS", "st", ">"},
		{"XREADGROUP", "GROUP", "g1", "bob", "COUNT", "1", "STREAMS", "st", ">"},
		// Consumers in g1 only: Kvrocks 2.10's XINFO CONSUMERS of g1 also
		// lists the consumers of the groups whose names sort after it.
		{"XGROUP", "CREATECONSUMER", "st", "g1", "carol"},
	}
	edit := [][]any{
		{"XADD", "st", "7-1", "g", "7"}, {"XDEL", "st", "4-1"}, {"XTRIM", "trimmed", "MAXLEN", "0"},
		{"XADD", "new", "1-1", "n", "1"}, {"DEL", "set"},
		// Not XGROUP DESTROY: Kvrocks 2.10's deletes the stream's later
		// entries and groups with the group.
		{"XACK", "st", "g1", "2-1"}, {"XGROUP", "CREATECONSUMER", "st", "g1", "dave"},
		{"XGROUP", "SETID", "st", "g2", "5-1"}, {"XGROUP", "CREATE", "new", "g3", "0"},
	}
	for _, dir := range [][2]server{{kvrocksServer, basaltServer}, {basaltServer, kvrocksServer}} {
		w, r := dir[0], dir[1]
		t.Run(fmt.Sprintf("%sTo%s", title(w), title(r)), func(t *testing.T) {
			data := t.TempDir()
			explainOnFailure(t, data)
			port := freePort(t)
			wp := w.start(t, data, port)
			runCommands(t, interopClient(t, wp, "", 5*time.Second), w.String(), append(append([][]any{}, write...), groups...))
			want := streamState(t, interopClient(t, wp, "", 5*time.Second))
			// Kvrocks 2.10 stores a first delivery with count 0, Basalt
			// with 1, as Redis counts it.
			deliveries := map[server]string{kvrocksServer: "0", basaltServer: "1"}[w]
			if want["pending g1"] != strings.ReplaceAll("2-1 alice N, 4-1 alice N, 5-1 bob N", "N", deliveries) || want["consumer g1 alice"] != "pending 2" || want["consumer g1 carol"] != "pending 0" {
				t.Fatalf("the groups %s wrote: %v", w, want)
			}
			if want["set last-generated-id"] != "9-9" || want["set entries-added"] != "5" || want["st first-entry"] != "[2-1 ["+"long "+long+"]]" {
				t.Fatalf("the streams %s wrote: %v", w, want)
			}
			stopClean(t, wp)

			rp := r.start(t, data, port)
			rc := interopClient(t, rp, "", 5*time.Second)
			compareStreamStates(t, fmt.Sprintf("%s reading what %s wrote", r, w), want, streamState(t, rc))
			runCommands(t, rc, r.String(), edit)
			want = streamState(t, rc)
			compactServer(t, rp, "")
			compareStreamStates(t, fmt.Sprintf("%s after its COMPACT", r), want, streamState(t, rc))
			stopClean(t, rp)

			wp = w.start(t, data, port)
			compareStreamStates(t, fmt.Sprintf("%s reading %s's changes", w, r), want, streamState(t, interopClient(t, wp, "", 5*time.Second)))
			stopClean(t, wp)
		})
	}
}

// streamState renders what both servers report alike of the streams the
// test writes: entries, lengths, the stored XINFO STREAM fields, and of
// groups their names, counts and last IDs, consumers with their pending
// counts, and pending entries (XPENDING) with consumer and delivery count.
func streamState(t *testing.T, c *redis.Client) map[string]string {
	t.Helper()
	out := map[string]string{}
	do := func(args ...any) any {
		v, err := c.Do(ctx, args...).Result()
		if err != nil && err != redis.Nil {
			return "error: " + err.Error()
		}
		return v
	}
	for _, k := range []string{"st", "trimmed", "set", "emptied", "new"} {
		out[k+" type"] = fmt.Sprint(do("TYPE", k))
		out[k+" entries"] = fmt.Sprint(do("XRANGE", k, "-", "+"))
		out[k+" reverse"] = fmt.Sprint(do("XREVRANGE", k, "+", "-", "COUNT", 2))
		out[k+" len"] = fmt.Sprint(do("XLEN", k))
		info, ok := do("XINFO", "STREAM", k).([]any)
		if !ok {
			continue
		}
		for i := 0; i+1 < len(info); i += 2 {
			switch name := fmt.Sprint(info[i]); name {
			case "radix-tree-keys", "radix-tree-nodes", "groups":
			default:
				out[k+" "+name] = fmt.Sprint(info[i+1])
			}
		}
	}
	// Group names differ across the streams.
	for _, k := range []string{"st", "new"} {
		groups, _ := do("XINFO", "GROUPS", k).([]any)
		for _, g := range groups {
			m := pairs(g)
			name := m["name"]
			out["group "+name] = fmt.Sprintf("consumers %s pending %s last %s", m["consumers"], m["pending"], m["last-delivered-id"])
			cons, _ := do("XINFO", "CONSUMERS", k, name).([]any)
			for _, cn := range cons {
				cm := pairs(cn)
				out["consumer "+name+" "+cm["name"]] = "pending " + cm["pending"]
			}
			var pel []string
			entries, _ := do("XPENDING", k, name, "-", "+", 100).([]any)
			for _, e := range entries {
				f := e.([]any)
				pel = append(pel, fmt.Sprint(f[0], " ", f[1], " ", f[3]))
			}
			out["pending "+name] = strings.Join(pel, ", ")
		}
	}
	return out
}

// pairs reads a flat field/value reply into a map of texts.
func pairs(v any) map[string]string {
	m := map[string]string{}
	l, _ := v.([]any)
	for i := 0; i+1 < len(l); i += 2 {
		m[fmt.Sprint(l[i])] = fmt.Sprint(l[i+1])
	}
	return m
}

func compareStreamStates(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s = %q, want %q", what, k, got[k], w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s = %q, absent before", what, k, g)
		}
	}
}
