package json

import (
	"math"
	"strconv"
	"strings"

	"github.com/basaltdb/basalt/reply"
)

// Config is what the commands take from the server's configuration.
type Config struct {
	MaxDepth int    // json-max-nesting-depth: for values given in commands and what is written
	Format   Format // json-storage-format: how what is written is encoded
}

// Result is what a command did: its reply, and when Write is set the
// document to store (Root nil: delete the key).
type Result struct {
	Reply reply.Value
	Write bool
	Root  *Value
}

// The replies commands build.
func rNull() reply.Value           { return reply.Value{Kind: reply.KindNull} }
func rInt(n int64) reply.Value     { return reply.Value{Kind: reply.KindInt, Int: n} }
func rBulk(s string) reply.Value   { return reply.Value{Kind: reply.KindBulk, Str: s} }
func rSimple(s string) reply.Value { return reply.Value{Kind: reply.KindSimple, Str: s} }
func rArray(e []reply.Value) reply.Value {
	if e == nil {
		e = []reply.Value{}
	}
	return reply.Value{Kind: reply.KindArray, Elems: e}
}
func rOK() reply.Value { return rSimple("OK") }

// pathArg is a compiled path argument. A legacy path (RedisJSON's: one
// that is not $, $.… or $[…) answers with one value where a JSONPath
// answers with an array of them.
type pathArg struct {
	text   string
	path   *Path
	legacy bool
}

// rootPath is the path of a command that was given none: $, as Kvrocks.
var rootPath = &pathArg{text: "$", path: &Path{Text: "$"}}

// legacyRoot is RedisJSON's path of a command that was given none: the
// legacy root, ., whose reply is one value.
var legacyRoot = &pathArg{text: ".", path: &Path{Text: "$"}, legacy: true}

// IsLegacyPath reports whether p is a RedisJSON legacy path: one that
// neither RedisJSON nor jsoncons reads as JSONPath ($, $.…, $[…, and
// jsoncons's @… and function expressions such as length($.a)).
func IsLegacyPath(p string) bool {
	switch {
	case p == "$" || strings.HasPrefix(p, "$.") || strings.HasPrefix(p, "$["), strings.HasPrefix(p, "@"):
		return false
	case p != "" && isNameByte(p[0]) && !isDigit(p[0]):
		name := strings.TrimRightFunc(p, func(rune) bool { return false })
		i := 0
		for i < len(name) && isNameByte(name[i]) {
			i++
		}
		return i >= len(name) || name[i] != '('
	}
	return true
}

// legacyToJSONPath rewrites a legacy path as RedisJSON does: . is the
// root, a path not starting with . or [ gets a leading dot.
func legacyToJSONPath(p string) string {
	switch {
	case p == "." || p == "":
		return "$"
	case strings.HasPrefix(p, ".") || strings.HasPrefix(p, "["):
		return "$" + p
	}
	return "$." + p
}

func compilePath(arg []byte) (*pathArg, error) {
	text := string(arg)
	pa := &pathArg{text: text, legacy: IsLegacyPath(text)}
	src := text
	if pa.legacy {
		src = legacyToJSONPath(text)
	}
	p, err := ParsePath(src)
	if err != nil {
		return nil, err
	}
	pa.path = p
	return pa, nil
}

// optionalPath compiles args[i] when it is there, else gives $.
func optionalPath(args [][]byte, i int) (*pathArg, error) {
	if i >= len(args) {
		return rootPath, nil
	}
	return compilePath(args[i])
}

// isRoot reports whether the path selects the document itself.
func (pa *pathArg) isRoot() bool {
	return len(pa.path.steps) == 0 && pa.path.call == nil && !pa.path.relative
}

// shape turns per-match replies into the command's reply: an array for
// a JSONPath, for a legacy path the one of the last match written (or
// the first read), or errNone when nothing matched.
func (pa *pathArg) shape(per []reply.Value, write bool, errNone error) (reply.Value, error) {
	if !pa.legacy {
		return rArray(per), nil
	}
	var pick *reply.Value
	for i := range per {
		if per[i].Kind == reply.KindNull {
			continue
		}
		pick = &per[i]
		if !write {
			break
		}
	}
	if pick == nil {
		return reply.Value{}, errNone
	}
	return *pick, nil
}

// ParseJSONArg parses a value given in a command, nested at most
// cfg.MaxDepth deep.
func (cfg Config) parseValue(arg []byte) (*Value, error) { return Parse(arg, cfg.MaxDepth) }

// checkDepth refuses a document deeper than json-max-nesting-depth, as
// Kvrocks's encoder does when it writes.
func (cfg Config) checkDepth(root *Value) error {
	if depthOf(root) > cfg.MaxDepth {
		return ErrTooDeep
	}
	return nil
}

// depthOf is the nesting depth of v: 0 for a scalar.
func depthOf(v *Value) int {
	d := 0
	switch v.Kind {
	case KindArray:
		for _, e := range v.Elems {
			d = max(d, depthOf(e))
		}
		return d + 1
	case KindObject:
		for _, m := range v.Fields {
			d = max(d, depthOf(m.Val))
		}
		return d + 1
	}
	return 0
}

// written returns the result of a command that changed root.
func (cfg Config) written(root *Value, r reply.Value) (Result, error) {
	if err := cfg.checkDepth(root); err != nil {
		return Result{}, err
	}
	return Result{Reply: r, Write: true, Root: root}, nil
}

// parseInt parses an integer argument with Kvrocks's errors.
func parseInt(arg []byte) (int64, error) {
	s := string(arg)
	if s == "" || !(s[0] == '-' || s[0] == '+' || isDigit(s[0])) {
		return 0, ErrIntStart
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err == nil {
		return n, nil
	}
	digits := strings.TrimLeft(s, "+-")
	if digits == "" || strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		if digits == "" || !isDigit(digits[0]) {
			return 0, ErrIntStart
		}
		return 0, ErrIntChars
	}
	return 0, ErrIntRange
}

// locate returns the node at loc in root and its parent, nil when it is
// gone.
func locate(root *Value, loc []Elem) (parent, node *Value) {
	node = root
	for _, e := range loc {
		parent = node
		switch {
		case e.IsIndex && node.Kind == KindArray && e.Index < len(node.Elems):
			node = node.Elems[e.Index]
		case !e.IsIndex && node.Kind == KindObject:
			node = node.Get(e.Key)
			if node == nil {
				return nil, nil
			}
		default:
			return nil, nil
		}
	}
	return parent, node
}

// remove deletes the node at loc (not the root) and reports whether it
// was there.
func remove(root *Value, loc []Elem) bool {
	parent, node := locate(root, loc)
	if node == nil || parent == nil {
		return false
	}
	last := loc[len(loc)-1]
	if last.IsIndex {
		parent.Elems = append(parent.Elems[:last.Index], parent.Elems[last.Index+1:]...)
		return true
	}
	return parent.Delete(last.Key)
}

// isNormalized reports whether path has only member and index steps, the
// paths SET and MERGE may create; col is where it stops being so.
func (path *Path) isNormalized() (bool, int) {
	for _, st := range path.steps {
		if st.descent || (st.kind != stepName && st.kind != stepIndex) {
			return false, notNormalizedColumn(path.Text)
		}
	}
	return path.call == nil && !path.relative, 0
}

// notNormalizedColumn finds the first character of text that a
// normalized path cannot have, where Kvrocks reports it.
func notNormalizedColumn(text string) int {
	for i := 1; i < len(text); i++ {
		switch text[i] {
		case '*', '?', '(', ':', ',':
			return i + 1
		case '.':
			if i+1 < len(text) && text[i+1] == '.' {
				return i + 2
			}
		}
	}
	return len(text) + 1
}

// create makes the member a normalized path names, with the objects on
// the way to it, and reports whether it did: an index step or a step
// into something that is not an object creates nothing.
func create(root *Value, path *Path, v *Value) bool {
	node := root
	for i, st := range path.steps {
		last := i == len(path.steps)-1
		switch {
		case st.kind == stepIndex:
			if node.Kind != KindArray {
				return false
			}
			idx := st.index
			if idx < 0 {
				idx += len(node.Elems)
			}
			if idx < 0 || idx >= len(node.Elems) {
				return false
			}
			if last {
				node.Elems[idx] = v
				return true
			}
			node = node.Elems[idx]
		case node.Kind != KindObject:
			return false
		default:
			next := node.Get(st.name)
			if last {
				node.Set(st.name, v)
				return true
			}
			if next == nil {
				next = NewObject()
				node.Set(st.name, next)
			}
			node = next
		}
	}
	return false
}

// finite reports whether a result may be stored.
func finite(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }
