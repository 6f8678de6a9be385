// Package cmdsample writes sample calls of a command from the arguments of
// its Redis 7 documentation (COMMAND DOCS), for the tests that hold key
// positions, key specifications and COMMAND GETKEYS to Redis's. It is
// test support: no server code imports it.
package cmdsample

import (
	"strconv"
	"strings"
)

// Arg is one documented argument.
type Arg struct {
	Name, Type, Token                 string
	Optional, Multiple, MultipleToken bool
	Args                              []Arg // of a block or a oneof
}

// Parse reads the "arguments" of a documentation map in the typed tree
// form of commands/redis_commands.json: "$text" a bulk string, "+text" a
// simple string, numbers, and ["*" | "~" | "%", elements...].
func Parse(docs []any) []Arg {
	return parseArgs(field(docs, "arguments"))
}

// field returns the value of key in a map tree, nil if absent.
func field(m []any, key string) any {
	if len(m) == 0 || m[0] != "%" {
		return nil
	}
	for i := 1; i+1 < len(m); i += 2 {
		if m[i] == "$"+key {
			return m[i+1]
		}
	}
	return nil
}

func text(v any) string {
	s, _ := v.(string)
	if len(s) > 0 && (s[0] == '$' || s[0] == '+') {
		return s[1:]
	}
	return s
}

func parseArgs(v any) []Arg {
	list, _ := v.([]any)
	if len(list) == 0 {
		return nil
	}
	var out []Arg
	for _, e := range list[1:] {
		m, _ := e.([]any)
		a := Arg{Name: text(field(m, "name")), Type: text(field(m, "type")), Token: text(field(m, "token"))}
		if flags, ok := field(m, "flags").([]any); ok {
			for _, f := range flags[1:] {
				switch text(f) {
				case "optional":
					a.Optional = true
				case "multiple":
					a.Multiple = true
				case "multiple_token":
					a.MultipleToken = true
				}
			}
		}
		a.Args = parseArgs(field(m, "arguments"))
		out = append(out, a)
	}
	return out
}

// Samples returns calls of a command (its arguments, without the name):
// one without optional arguments, and with every optional argument once
// per alternative of the widest oneof. Keys are k1, k2, ...; a multiple
// argument appears twice; numkeys counts the keys that follow it.
func Samples(args []Arg) [][]string {
	alts := 1
	var widest func(as []Arg)
	widest = func(as []Arg) {
		for _, a := range as {
			if a.Type == "oneof" && len(a.Args) > alts {
				alts = len(a.Args)
			}
			widest(a.Args)
		}
	}
	widest(args)
	var out [][]string
	seen := map[string]bool{}
	for variant := -1; variant < alts; variant++ {
		g := &gen{optional: variant >= 0, alt: max(variant, 0)}
		g.args(args)
		g.fill()
		if key := strings.Join(g.out, "\x00"); !seen[key] {
			seen[key] = true
			out = append(out, g.out)
		}
	}
	return out
}

type gen struct {
	optional bool
	alt      int
	out      []string
	keys     int
	// numkeys is the position of a numkeys argument waiting for the
	// count of the keys after it, -1 if none.
	numkeys   int
	counted   int
	hasCount  bool
	countDone bool
}

func (g *gen) args(as []Arg) {
	for _, a := range as {
		if a.Optional && !g.optional {
			continue
		}
		n := 1
		if a.Multiple {
			n = 2
		}
		for i := 0; i < n; i++ {
			if a.Token != "" && (i == 0 || a.MultipleToken) {
				g.out = append(g.out, a.Token)
			}
			g.value(a)
		}
		if a.Type == "key" && g.hasCount && !g.countDone {
			g.counted += n
		} else if a.Type != "key" && g.hasCount && g.counted > 0 {
			g.countDone = true
		}
	}
}

func (g *gen) value(a Arg) {
	switch a.Type {
	case "key":
		g.keys++
		g.out = append(g.out, "k"+strconv.Itoa(g.keys))
	case "integer":
		if strings.Contains(a.Name, "numkeys") && !g.hasCount {
			g.numkeys, g.hasCount = len(g.out), true
			g.out = append(g.out, "?")
			return
		}
		g.out = append(g.out, "1")
	case "double":
		g.out = append(g.out, "1.5")
	case "pattern":
		g.out = append(g.out, "*")
	case "unix-time":
		g.out = append(g.out, "1700000000")
	case "pure-token":
		// The token is the value.
		if a.Token == "" {
			g.out = append(g.out, a.Name)
		}
	case "oneof":
		if len(a.Args) > 0 {
			g.args([]Arg{withoutOptional(a.Args[g.alt%len(a.Args)])})
		}
	case "block":
		g.args(a.Args)
	default:
		g.out = append(g.out, "v")
	}
}

func withoutOptional(a Arg) Arg {
	a.Optional = false
	return a
}

// fill writes the count of keys at the numkeys position.
func (g *gen) fill() {
	if g.hasCount {
		g.out[g.numkeys] = strconv.Itoa(g.counted)
	}
}
