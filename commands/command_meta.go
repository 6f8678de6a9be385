package commands

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/reply"
)

// What COMMAND reports beyond Basalt's table: Redis 7.0's own description
// of the commands Redis has (executor/redis_commands.json, written by
// executor/internal/gencommands from a redis-server 7.0: data from Redis, attached
// to each command by its name once, rather than copied into the
// registrations), and Basalt's for the others (the Meta of their
// registrations). The table stays the truth of what Dispatch does:
// arity, key positions and the flags it acts on (write, admin, no_auth,
// no_multi) come from it; the flags nothing in Basalt acts on (readonly,
// fast, denyoom, blocking, ...), the ACL categories, tips, key
// specifications and documentation come from here.

// subcommandInfo is one subcommand a container command answers.
type subcommandInfo struct {
	name  string // "config|get"
	arity int
	meta  *executor.Meta
}

// subcommandsOf returns the described subcommands cmd answers, by name
// (COMMAND shows Redis's and those Basalt describes, not the
// Kvrocks-only ones, such as CLUSTER IMPORT).
func subcommandsOf(cmd *executor.Command) []subcommandInfo {
	var out []subcommandInfo
	for _, name := range sortedKeys(cmd.Subcommands) {
		s := cmd.Subcommands[name]
		if m := s.Description(); m != nil {
			out = append(out, subcommandInfo{cmd.Name + "|" + name, s.Arity, m})
		}
	}
	return out
}

func sortedKeys(m map[string]*executor.Subcommand) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// redisFlagOrder is the order in which Redis 7.0 lists command flags.
var redisFlagOrder = []string{
	"write", "readonly", "denyoom", "module", "admin", "pubsub", "noscript", "blocking", "loading", "stale",
	"skip_monitor", "skip_slowlog", "asking", "fast", "no_auth", "may_replicate", "no_mandatory_keys",
	"no_async_loading", "no_multi", "movablekeys", "allow_busy",
}

// actedOn are the flags Dispatch acts on: COMMAND reports them from the
// table, whatever Redis says.
var actedOn = map[string]executor.Flag{"write": executor.Write, "admin": executor.Admin, "no_auth": executor.NoAuth, "no_multi": executor.NoMulti}

// flagsOf returns the flags COMMAND reports for cmd, in Redis's order.
func flagsOf(cmd *executor.Command, m *executor.Meta) []string {
	set := map[string]bool{}
	acted := func(name string) bool {
		// MULTI, EXEC, DISCARD and WATCH run at once inside MULTI:
		// NoMulti means nothing to them.
		_, ok := actedOn[name]
		return ok && !(name == "no_multi" && cmd.Flags&executor.TxControl != 0)
	}
	for name, f := range actedOn {
		if cmd.Flags&f != 0 && acted(name) {
			set[name] = true
		}
	}
	if m != nil {
		for _, f := range m.Flags {
			if !acted(f) && f != "movablekeys" {
				set[f] = true
			}
		}
	}
	if m == nil || m.Flags == nil {
		for _, f := range []struct {
			f    executor.Flag
			name string
		}{{executor.ReadOnly, "readonly"}, {executor.Fast, "fast"}, {executor.Loading, "loading"}} {
			if cmd.Flags&f.f != 0 {
				set[f.name] = true
			}
		}
	}
	if movableKeys(cmd, m) {
		set["movablekeys"] = true
	}
	out := make([]string, 0, len(set))
	for _, f := range redisFlagOrder {
		if set[f] {
			out = append(out, f)
		}
	}
	return out
}

// movableKeys reports whether the key positions of cmd depend on its
// arguments, as Redis 7.0 derives it from the key specifications.
func movableKeys(cmd *executor.Command, m *executor.Meta) bool {
	if m == nil || len(m.KeySpecs) == 0 {
		return cmd.Keys != nil && (m == nil || len(m.Subcommands) == 0)
	}
	_, _, _, movable := legacyRange(m.KeySpecs)
	return movable
}

// legacyRange computes the first key, last key and step of COMMAND INFO
// from key specifications, and whether the keys move, as Redis 7.0's
// populateCommandLegacyRangeSpec does.
func legacyRange(specs []executor.KeySpec) (first, last, step int, movable bool) {
	if len(specs) == 0 {
		return 0, 0, 0, false
	}
	plain := func(ks *executor.KeySpec) bool { return ks.BeginSearch == "index" && ks.FindKeys == "range" }
	if len(specs) == 1 && plain(&specs[0]) {
		ks := &specs[0]
		last = ks.LastKey
		if last >= 0 {
			last += ks.Index
		}
		return ks.Index, last, ks.KeyStep, ks.Has("incomplete")
	}
	first, last = -1, 0
	prevLast := 0
	for i := range specs {
		ks := &specs[i]
		if !plain(ks) {
			movable = true
			continue
		}
		if ks.KeyStep != 1 || (prevLast != 0 && prevLast != ks.Index-1) {
			movable = true
			continue
		}
		if ks.Has("incomplete") {
			movable = true
		}
		if first < 0 || ks.Index < first {
			first = ks.Index
		}
		abs := ks.LastKey
		if abs >= 0 {
			abs += ks.Index
		}
		// Redis compares them unsigned: a negative last key wins.
		if uint32(abs) > uint32(last) {
			last = abs
		}
		prevLast = last
	}
	if first < 0 {
		return 0, 0, 0, true
	}
	return first, last, 1, movable
}

// keyPositions returns the first key, last key and step COMMAND INFO
// reports: the table's, unless the keys move (Redis's legacy range of the
// key specifications then).
func keyPositions(cmd *executor.Command, m *executor.Meta) (int, int, int) {
	if cmd.Keys == nil {
		if cmd.FirstKey == 0 {
			return 0, 0, 0
		}
		return cmd.FirstKey, cmd.LastKey, cmd.Step
	}
	if m == nil {
		return 0, 0, 0
	}
	first, last, step, _ := legacyRange(m.KeySpecs)
	return first, last, step
}

// hasKeySpecs reports whether some spec finds real keys (not not_key).
func hasKeySpecs(m *executor.Meta) bool {
	for i := range m.KeySpecs {
		if !m.KeySpecs[i].Has("not_key") {
			return true
		}
	}
	return false
}

// writeKeySpecs writes key specifications as COMMAND INFO does.
func writeKeySpecs(w reply.Sink, specs []executor.KeySpec) {
	w.Set(len(specs))
	for i := range specs {
		ks := &specs[i]
		n := 3
		if ks.Notes != "" {
			n++
		}
		w.Map(n)
		if ks.Notes != "" {
			w.BulkString("notes")
			w.BulkString(ks.Notes)
		}
		w.BulkString("flags")
		w.Set(len(ks.Flags))
		for _, f := range ks.Flags {
			w.Simple(f)
		}
		w.BulkString("begin_search")
		w.Map(2)
		w.BulkString("type")
		w.BulkString(ks.BeginSearch)
		w.BulkString("spec")
		switch ks.BeginSearch {
		case "index":
			w.Map(1)
			w.BulkString("index")
			w.Int(int64(ks.Index))
		case "keyword":
			w.Map(2)
			w.BulkString("keyword")
			w.BulkString(ks.Keyword)
			w.BulkString("startfrom")
			w.Int(int64(ks.StartFrom))
		default:
			w.Map(0)
		}
		w.BulkString("find_keys")
		w.Map(2)
		w.BulkString("type")
		w.BulkString(ks.FindKeys)
		w.BulkString("spec")
		switch ks.FindKeys {
		case "range":
			w.Map(3)
			w.BulkString("lastkey")
			w.Int(int64(ks.LastKey))
			w.BulkString("keystep")
			w.Int(int64(ks.KeyStep))
			w.BulkString("limit")
			w.Int(int64(ks.Limit))
		case "keynum":
			w.Map(3)
			w.BulkString("keynumidx")
			w.Int(int64(ks.KeyNumIdx))
			w.BulkString("firstkey")
			w.Int(int64(ks.FirstKey))
			w.BulkString("keystep")
			w.Int(int64(ks.KeyStep))
		default:
			w.Map(0)
		}
	}
}

// writeTree writes a documentation tree as decoded from
// redis_commands.json: "$text" a bulk string, "+text" a simple string, a
// number an integer, and ["*" | "~" | "%", elements...] an array, a set or
// a map (keys and values alternating).
func writeTree(w reply.Sink, v any) {
	switch v := v.(type) {
	case string:
		if strings.HasPrefix(v, "+") {
			w.Simple(v[1:])
		} else {
			w.BulkString(strings.TrimPrefix(v, "$"))
		}
	case float64:
		w.Int(int64(v))
	case []any:
		kind, _ := v[0].(string)
		elems := v[1:]
		switch kind {
		case "%":
			w.Map(len(elems) / 2)
		case "~":
			w.Set(len(elems))
		default:
			w.Array(len(elems))
		}
		for _, e := range elems {
			writeTree(w, e)
		}
	default:
		panic(fmt.Sprintf("commands: documentation node %T", v))
	}
}
