package commands

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/reply"
)

// What COMMAND reports beyond Basalt's table: Redis 7.0's own description
// of the commands Redis has (redis_commands.json, written by
// internal/gencommands from a redis-server 7.0), and Basalt's for the
// others (basaltMeta). The table stays the truth of what Dispatch does:
// arity, key positions and the flags it acts on (write, admin, no_auth,
// no_multi) come from it; the flags nothing in Basalt acts on (readonly,
// fast, denyoom, blocking, ...), the ACL categories, tips, key
// specifications and documentation come from here.

//go:generate go run ./internal/gencommands -o redis_commands.json

//go:embed redis_commands.json
var redisCommandsJSON []byte

// KeySpec is a Redis 7 key specification: where a command's keys are
// among its arguments, and how it uses them (flags such as RW, OW,
// access, update, insert, delete, not_key, incomplete).
type KeySpec struct {
	Notes string   `json:"notes,omitempty"`
	Flags []string `json:"flags"`
	// BeginSearch is where the search starts: "index" (Index), "keyword"
	// (after the argument Keyword, searched from StartFrom, backwards
	// when negative) or "unknown".
	BeginSearch string `json:"begin_search"`
	Index       int    `json:"index,omitempty"`
	Keyword     string `json:"keyword,omitempty"`
	StartFrom   int    `json:"startfrom,omitempty"`
	// FindKeys is how the keys follow: "range" (LastKey relative to the
	// first key, negative from the end; KeyStep; Limit divides what is
	// left when LastKey is -1), "keynum" (the count at KeyNumIdx, the
	// first key FirstKey after it; KeyStep) or "unknown".
	FindKeys  string `json:"find_keys"`
	LastKey   int    `json:"lastkey,omitempty"`
	KeyStep   int    `json:"keystep,omitempty"`
	Limit     int    `json:"limit,omitempty"`
	KeyNumIdx int    `json:"keynumidx,omitempty"`
	FirstKey  int    `json:"firstkey,omitempty"`
}

func (ks *KeySpec) has(flag string) bool {
	for _, f := range ks.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

// commandMeta describes a command or a subcommand ("config|get") as
// Redis 7's COMMAND INFO and COMMAND DOCS do.
type commandMeta struct {
	Name        string          `json:"name"`
	Arity       int             `json:"arity"`
	Flags       []string        `json:"flags"`
	First       int             `json:"first"`
	Last        int             `json:"last"`
	Step        int             `json:"step"`
	ACL         []string        `json:"acl"`
	Tips        []string        `json:"tips,omitempty"`
	KeySpecs    []KeySpec       `json:"key_specs,omitempty"`
	Docs        json.RawMessage `json:"docs"`
	Subcommands []*commandMeta  `json:"subcommands,omitempty"`

	docs []any // Docs decoded: a map tree (see writeTree)
}

var (
	metaOnce sync.Once
	// metaByName holds every command and subcommand described, by
	// lower-case name ("get", "config|get").
	metaByName map[string]*commandMeta
)

// loadMeta decodes the descriptions the first time COMMAND needs them.
func loadMeta() map[string]*commandMeta {
	metaOnce.Do(func() {
		var file struct {
			Redis    string         `json:"redis"`
			Commands []*commandMeta `json:"commands"`
		}
		if err := json.Unmarshal(redisCommandsJSON, &file); err != nil {
			panic("commands: redis_commands.json: " + err.Error())
		}
		metaByName = map[string]*commandMeta{}
		var add func(m *commandMeta)
		add = func(m *commandMeta) {
			if m.docs == nil {
				if err := json.Unmarshal(m.Docs, &m.docs); err != nil {
					panic("commands: redis_commands.json: docs of " + m.Name + ": " + err.Error())
				}
			}
			metaByName[m.Name] = m
			for _, s := range m.Subcommands {
				add(s)
			}
		}
		for _, m := range file.Commands {
			add(m)
		}
		for _, m := range basaltMeta() {
			add(m)
		}
	})
	return metaByName
}

// metaOf returns the description of a command or subcommand, nil if there
// is none.
func metaOf(name string) *commandMeta { return loadMeta()[name] }

// subcommandInfo is one subcommand a container command answers.
type subcommandInfo struct {
	name  string // "config|get"
	arity int
	meta  *commandMeta
}

// dispatchedSubcommands are the containers whose subcommands dispatchSub
// runs: their arities are those of these tables. (Set by init: the
// tables' handlers refer to it.)
var dispatchedSubcommands map[string]map[string]subcommand

func init() {
	dispatchedSubcommands = map[string]map[string]subcommand{
		"client":   clientSubcommands,
		"command":  commandSubcommands,
		"config":   configSubcommands,
		"function": functionSubcommands,
		"latency":  latencySubcommands,
		"memory":   memorySubcommands,
		"object":   objectSubcommands,
		"pubsub":   pubsubSubcommands,
		"script":   scriptSubcommands,
		"slowlog":  slowlogSubcommands,
		"xgroup":   xgroupSubcommands,
		"xinfo":    xinfoSubcommands,
	}
}

// parsedSubcommands are the Redis subcommands of the containers that parse
// their arguments themselves (Kvrocks-only subcommands, such as CLUSTER
// IMPORT, are not listed: COMMAND shows Redis's).
var parsedSubcommands = map[string][]string{
	"cluster": {"countkeysinslot", "getkeysinslot", "info", "keyslot", "myid", "nodes", "replicas", "reset", "shards", "slots"},
}

// subcommandsOf returns the described subcommands cmd answers, by name.
func subcommandsOf(cmd *Command) []subcommandInfo {
	var out []subcommandInfo
	add := func(sub string, arity int) {
		m := metaOf(cmd.Name + "|" + sub)
		if m == nil {
			return
		}
		if arity == 0 {
			arity = m.Arity
		}
		out = append(out, subcommandInfo{cmd.Name + "|" + sub, arity, m})
	}
	if subs, ok := dispatchedSubcommands[cmd.Name]; ok {
		for _, name := range sortedKeys(subs) {
			add(name, subs[name].arity)
		}
	}
	for _, name := range parsedSubcommands[cmd.Name] {
		add(name, 0)
	}
	return out
}

func sortedKeys(m map[string]subcommand) []string {
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
var actedOn = map[string]Flag{"write": Write, "admin": Admin, "no_auth": NoAuth, "no_multi": NoMulti}

// flagsOf returns the flags COMMAND reports for cmd, in Redis's order.
func flagsOf(cmd *Command, m *commandMeta) []string {
	set := map[string]bool{}
	acted := func(name string) bool {
		// MULTI, EXEC, DISCARD and WATCH run at once inside MULTI:
		// NoMulti means nothing to them.
		_, ok := actedOn[name]
		return ok && !(name == "no_multi" && cmd.Flags&TxControl != 0)
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
			f    Flag
			name string
		}{{ReadOnly, "readonly"}, {Fast, "fast"}, {Loading, "loading"}} {
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
func movableKeys(cmd *Command, m *commandMeta) bool {
	if m == nil || len(m.KeySpecs) == 0 {
		return cmd.Keys != nil && (m == nil || len(m.Subcommands) == 0)
	}
	_, _, _, movable := legacyRange(m.KeySpecs)
	return movable
}

// legacyRange computes the first key, last key and step of COMMAND INFO
// from key specifications, and whether the keys move, as Redis 7.0's
// populateCommandLegacyRangeSpec does.
func legacyRange(specs []KeySpec) (first, last, step int, movable bool) {
	if len(specs) == 0 {
		return 0, 0, 0, false
	}
	plain := func(ks *KeySpec) bool { return ks.BeginSearch == "index" && ks.FindKeys == "range" }
	if len(specs) == 1 && plain(&specs[0]) {
		ks := &specs[0]
		last = ks.LastKey
		if last >= 0 {
			last += ks.Index
		}
		return ks.Index, last, ks.KeyStep, ks.has("incomplete")
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
		if ks.has("incomplete") {
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
func keyPositions(cmd *Command, m *commandMeta) (int, int, int) {
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

// keyRef is a key found by the key specifications and its spec's flags.
type keyRef struct {
	pos   int
	flags []string
}

// keysBySpecs finds the keys of a call (args[0] is the command name, or the
// subcommand's container) as Redis 7.0's getKeysUsingKeySpecs does; not_key
// specs (shard channels) count unless notKeys is false. ok is false when a
// spec does not fit the arguments.
func keysBySpecs(specs []KeySpec, args [][]byte, negativeArity, notKeys bool) (keys []keyRef, ok bool) {
	argc := len(args)
	for i := range specs {
		ks := &specs[i]
		if ks.has("not_key") && !notKeys {
			continue
		}
		first := 0
		switch ks.BeginSearch {
		case "index":
			first = ks.Index
		case "keyword":
			start, end := ks.StartFrom, argc-1
			if ks.StartFrom <= 0 {
				start, end = argc+ks.StartFrom, 1
			}
			for j := start; j != end; {
				if j >= argc || j < 1 {
					break
				}
				if strings.EqualFold(string(args[j]), ks.Keyword) {
					first = j + 1
					break
				}
				if start <= end {
					j++
				} else {
					j--
				}
			}
			if first == 0 {
				continue
			}
		default:
			return nil, false
		}
		var last, step int
		switch ks.FindKeys {
		case "range":
			step = ks.KeyStep
			switch {
			case ks.LastKey >= 0:
				last = first + ks.LastKey
			case ks.Limit == 0:
				last = argc + ks.LastKey
			default:
				last = first + ((argc-first)/ks.Limit + ks.LastKey)
			}
		case "keynum":
			step = ks.KeyStep
			if ks.KeyNumIdx >= argc || first+ks.KeyNumIdx >= argc {
				return nil, false
			}
			n, isInt := num.ParseInt(args[first+ks.KeyNumIdx])
			if !isInt || n < 0 || n > int64(argc) {
				return nil, false
			}
			first += ks.FirstKey
			last = first + int(n) - 1
		default:
			return nil, false
		}
		if last >= argc || last < first || first >= argc {
			return nil, false
		}
		for j := first; j <= last; j += step {
			if j >= argc || j < first {
				if negativeArity {
					continue
				}
				return nil, false
			}
			keys = append(keys, keyRef{j, ks.Flags})
		}
	}
	return keys, true
}

// hasKeySpecs reports whether some spec finds real keys (not not_key).
func hasKeySpecs(m *commandMeta) bool {
	for i := range m.KeySpecs {
		if !m.KeySpecs[i].has("not_key") {
			return true
		}
	}
	return false
}

// variableKeyFlags gives the key flags of the commands whose spec says
// variable_flags, from their arguments, as Redis's getkeys procedures do.
var variableKeyFlags = map[string]func(args [][]byte) []string{
	// SET key value [... GET ...]: GET reads the old value.
	"set": func(args [][]byte) []string {
		for _, a := range args[3:] {
			if strings.EqualFold(string(a), "get") {
				return []string{"RW", "access", "update"}
			}
		}
		return []string{"OW", "update"}
	},
	// BITFIELD key [GET ...] [SET ...] [INCRBY ...] [OVERFLOW ...]: SET
	// and INCRBY write.
	"bitfield": func(args [][]byte) []string {
		for _, a := range args[2:] {
			if strings.EqualFold(string(a), "set") || strings.EqualFold(string(a), "incrby") {
				return []string{"RW", "access", "update"}
			}
		}
		return []string{"RO", "access"}
	},
}

// writeKeySpecs writes key specifications as COMMAND INFO does.
func writeKeySpecs(w reply.Sink, specs []KeySpec) {
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

// writtenKeys returns which of keys, the keys of a call of a write
// command, it may have changed: all but those its Redis key specification
// marks read-only (the sources of COPY, SINTERSTORE, ZUNIONSTORE, ...), so
// that a write that only read a key does not abort a WATCH on it. When
// the specification does not fit the call, every key counts.
func (c *Command) writtenKeys(args, keys [][]byte) [][]byte {
	m := metaOf(c.Name)
	if m == nil || !hasReadOnlySpec(m.KeySpecs) {
		return keys
	}
	refs, ok := keysBySpecs(m.KeySpecs, args, c.Arity < 0, false)
	if !ok {
		return keys
	}
	out := make([][]byte, 0, len(refs))
	for _, r := range refs {
		if !slices.Contains(r.flags, "RO") {
			out = append(out, args[r.pos])
		}
	}
	return out
}

// hasReadOnlySpec reports whether a command reads some of its keys only.
func hasReadOnlySpec(specs []KeySpec) bool {
	for i := range specs {
		if specs[i].has("RO") {
			return true
		}
	}
	return false
}
