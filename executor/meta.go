package executor

import (
	_ "embed"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/basaltdb/basalt/num"
)

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

// Has reports whether the specification has flag.
func (ks *KeySpec) Has(flag string) bool {
	for _, f := range ks.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

// Meta describes a command or a subcommand ("config|get") as Redis 7's
// COMMAND INFO and COMMAND DOCS do. Name, Arity, First, Last, Step and
// RawDocs are read from redis_commands.json only.
type Meta struct {
	Name     string    `json:"name"`
	Arity    int       `json:"arity"`
	Flags    []string  `json:"flags"`
	First    int       `json:"first"`
	Last     int       `json:"last"`
	Step     int       `json:"step"`
	ACL      []string  `json:"acl"`
	Tips     []string  `json:"tips,omitempty"`
	KeySpecs []KeySpec `json:"key_specs,omitempty"`
	// RawDocs is Doc as redis_commands.json holds it.
	RawDocs     json.RawMessage `json:"docs"`
	Subcommands []*Meta         `json:"subcommands,omitempty"`

	// Doc is the documentation map of COMMAND DOCS, as a tree (see
	// writeTree and doc).
	Doc []any `json:"-"`
}

// sub returns Redis's description of subcommand name ("config|get") of
// the command m describes, nil if Redis has none.
func (m *Meta) sub(name string) *Meta {
	for _, s := range m.Subcommands {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// withArgs returns a copy of m whose documented arguments edit makes from
// m's.
func (m *Meta) withArgs(edit func(args []any) []any) *Meta {
	out := *m
	out.Doc = slices.Clone(m.Doc)
	for i := 1; i+1 < len(out.Doc); i += 2 {
		if out.Doc[i] == "$arguments" {
			out.Doc[i+1] = edit(out.Doc[i+1].([]any))
			return &out
		}
	}
	panic("executor: no arguments documented for " + m.Name)
}

// DecodeRedisMeta decodes redis_commands.json: Redis 7.0's descriptions
// of its commands, with their subcommands.
func DecodeRedisMeta() []*Meta {
	var file struct {
		Redis    string  `json:"redis"`
		Commands []*Meta `json:"commands"`
	}
	if err := json.Unmarshal(redisCommandsJSON, &file); err != nil {
		panic("commands: redis_commands.json: " + err.Error())
	}
	var decodeDocs func(m *Meta)
	decodeDocs = func(m *Meta) {
		if err := json.Unmarshal(m.RawDocs, &m.Doc); err != nil {
			panic("commands: redis_commands.json: docs of " + m.Name + ": " + err.Error())
		}
		for _, s := range m.Subcommands {
			decodeDocs(s)
		}
	}
	for _, m := range file.Commands {
		decodeDocs(m)
	}
	return file.Commands
}

// describeOnce attaches the descriptions the first time they are needed:
// decoding them takes longer than a server takes to start.
var describeOnce sync.Once

// describeAll gives every command and subcommand of the table its
// description: its registration's Meta, or else Redis's, found by its
// name in redis_commands.json, once. A command renamed by rename-command
// keeps its own name, and so its description.
func describeAll() {
	redis := map[string]*Meta{}
	for _, m := range DecodeRedisMeta() {
		redis[m.Name] = m
	}
	for _, cmd := range table.byName {
		cmd.desc = cmd.Meta
		if cmd.desc == nil {
			cmd.desc = redis[cmd.Name]
		}
		if cmd.Meta == nil && cmd.desc != nil && cmd.DocArgs != nil {
			cmd.desc = cmd.desc.withArgs(cmd.DocArgs)
		}
		for name, s := range cmd.Subcommands {
			s.desc = s.Meta
			if s.desc == nil && cmd.desc != nil {
				s.desc = cmd.desc.sub(cmd.Name + "|" + name)
			}
		}
	}
}

// Description returns what COMMAND reports of the command beyond the
// table, nil if it has no description.
func (c *Command) Description() *Meta {
	describeOnce.Do(describeAll)
	return c.desc
}

// Description returns what COMMAND reports of the subcommand, nil if it
// has no description.
func (s *Subcommand) Description() *Meta {
	describeOnce.Do(describeAll)
	return s.desc
}

// subcommandMeta returns the description of the subcommand args[1] of a
// call (CONFIG GET, MEMORY STATS), nil when cmd has no such subcommand:
// Basalt's, or Redis's for one Basalt does not answer.
func subcommandMeta(cmd *Command, args [][]byte) *Meta {
	if len(args) < 2 {
		return nil
	}
	name := strings.ToLower(string(args[1]))
	if s := cmd.Subcommands[name]; s != nil {
		return s.Description()
	}
	if m := cmd.Description(); m != nil {
		return m.sub(cmd.Name + "|" + name)
	}
	return nil
}

// KeyRef is a key found by the key specifications and its spec's flags.
type KeyRef struct {
	Pos   int
	Flags []string
}

// KeysBySpecs finds the keys of a call (args[0] is the command name, or the
// subcommand's container) as Redis 7.0's getKeysUsingKeySpecs does; not_key
// specs (shard channels) count unless notKeys is false. ok is false when a
// spec does not fit the arguments.
func KeysBySpecs(specs []KeySpec, args [][]byte, negativeArity, notKeys bool) (keys []KeyRef, ok bool) {
	argc := len(args)
	for i := range specs {
		ks := &specs[i]
		if ks.Has("not_key") && !notKeys {
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
			keys = append(keys, KeyRef{j, ks.Flags})
		}
	}
	return keys, true
}

// writtenKeys returns which of keys, the keys of a call of a write
// command, it may have changed: all but those its Redis key specification
// marks read-only (the sources of COPY, SINTERSTORE, ZUNIONSTORE, ...), so
// that a write that only read a key does not abort a WATCH on it. When
// the specification does not fit the call, every key counts.
func (c *Command) writtenKeys(args, keys [][]byte) [][]byte {
	m := c.Description()
	if m == nil || !hasReadOnlySpec(m.KeySpecs) {
		return keys
	}
	refs, ok := KeysBySpecs(m.KeySpecs, args, c.Arity < 0, false)
	if !ok {
		return keys
	}
	out := make([][]byte, 0, len(refs))
	for _, r := range refs {
		if !slices.Contains(r.Flags, "RO") {
			out = append(out, args[r.Pos])
		}
	}
	return out
}

// hasReadOnlySpec reports whether a command reads some of its keys only.
func hasReadOnlySpec(specs []KeySpec) bool {
	for i := range specs {
		if specs[i].Has("RO") {
			return true
		}
	}
	return false
}
