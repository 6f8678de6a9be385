package json

import (
	"strings"

	"github.com/basaltdb/basalt/reply"
)

// Set is JSON.SET key path value [NX|XX] on doc (nil: no key). NX and XX
// are RedisJSON's (Kvrocks 5fccd57 has neither): a failed condition
// answers nil and writes nothing.
func Set(doc *Value, args [][]byte, cfg Config) (Result, error) {
	if len(args) < 2 || len(args) > 3 {
		return Result{}, ErrArity
	}
	nx, xx := false, false
	if len(args) == 3 {
		switch strings.ToUpper(string(args[2])) {
		case "NX":
			nx = true
		case "XX":
			xx = true
		default:
			return Result{}, ErrSyntax
		}
	}
	pa, err := compilePath(args[0])
	if err != nil {
		return Result{}, err
	}
	v, err := cfg.parseValue(args[1])
	if err != nil {
		return Result{}, err
	}
	if doc == nil {
		if !pa.isRoot() {
			return Result{}, ErrNewAtRoot
		}
		if xx {
			return Result{Reply: rNull()}, nil
		}
		return cfg.written(v, rOK())
	}
	if pa.isRoot() {
		if nx {
			return Result{Reply: rNull()}, nil
		}
		return cfg.written(v, rOK())
	}
	targets := pa.path.Targets(doc, true)
	if len(targets) > 0 {
		if nx {
			return Result{Reply: rNull()}, nil
		}
		for _, m := range targets {
			m.Val.replaceWith(v.Clone())
		}
		return cfg.written(doc, rOK())
	}
	if xx {
		return Result{Reply: rNull()}, nil
	}
	if ok, col := pa.path.isNormalized(); !ok {
		return Result{}, &PathError{Msg: msgNotNormalized, Column: col}
	}
	if !create(doc, pa.path, v) {
		if pa.legacy {
			return Result{Reply: rNull()}, nil
		}
		return Result{Reply: rOK()}, nil
	}
	return cfg.written(doc, rOK())
}

// getOptions reads JSON.GET's formatting options; what follows the
// first word that is not one of them is paths.
func getOptions(args [][]byte) (Style, [][]byte, error) {
	var st Style
	for len(args) > 0 {
		var field *string
		switch strings.ToUpper(string(args[0])) {
		case "INDENT":
			field = &st.Indent
		case "NEWLINE":
			field = &st.Newline
		case "SPACE":
			field = &st.Space
		}
		if field == nil {
			break
		}
		if len(args) < 2 {
			return st, nil, ErrNoMoreItem
		}
		*field = string(args[1])
		args = args[2:]
	}
	if strings.Trim(st.Indent, " ") != "" {
		return st, nil, ErrIndent
	}
	if st.Space != "" && st.Space != " " {
		return st, nil, ErrSpace
	}
	return st, args, nil
}

// Get is JSON.GET key [INDENT s] [NEWLINE s] [SPACE s] [path ...]: the
// document without a path, a JSON array of the matches for one path, an
// object keyed by path for several (RedisJSON's single values for legacy
// paths).
func Get(doc *Value, args [][]byte) (reply.Value, error) {
	st, paths, err := getOptions(args)
	if err != nil {
		return reply.Value{}, err
	}
	compiled := make([]*pathArg, len(paths))
	allLegacy := len(paths) > 0
	for i, a := range paths {
		if compiled[i], err = compilePath(a); err != nil {
			return reply.Value{}, err
		}
		allLegacy = allLegacy && compiled[i].legacy
	}
	if doc == nil {
		return rNull(), nil
	}
	if len(paths) == 0 {
		return rBulk(string(AppendText(nil, doc, st))), nil
	}
	if len(paths) == 1 {
		v, err := compiled[0].selection(doc, allLegacy)
		if err != nil {
			return reply.Value{}, err
		}
		return rBulk(string(AppendText(nil, v, st))), nil
	}
	obj := NewObject()
	for _, pa := range compiled {
		v, err := pa.selection(doc, allLegacy)
		if err != nil {
			return reply.Value{}, err
		}
		obj.Set(pa.text, v)
	}
	return rBulk(string(AppendText(nil, obj, st))), nil
}

// selection is what GET prints for one path: the array of matches, or
// the first match of a legacy path.
func (pa *pathArg) selection(doc *Value, single bool) (*Value, error) {
	ms := pa.path.Eval(doc)
	if single {
		if len(ms) == 0 {
			return nil, ErrPathMissing
		}
		return ms[0].Val, nil
	}
	arr := NewArray()
	arr.Elems = make([]*Value, 0, len(ms))
	for _, m := range ms {
		arr.Elems = append(arr.Elems, m.Val)
	}
	return arr, nil
}

// MGetOne is one key's element of JSON.MGET key [key ...] path: the JSON
// text of the matches, nil for a missing key (and for a key of another
// type, which the caller passes as nil too).
func MGetOne(doc *Value, path []byte) (reply.Value, error) {
	pa, err := compilePath(path)
	if err != nil {
		return reply.Value{}, err
	}
	if doc == nil {
		return rNull(), nil
	}
	v, err := pa.selection(doc, pa.legacy)
	if err != nil {
		return rNull(), nil
	}
	return rBulk(string(Text(v))), nil
}

// Del is JSON.DEL and JSON.FORGET key [path]: the number of values
// removed; the root removes the key.
func Del(doc *Value, args [][]byte, cfg Config) (Result, error) {
	if len(args) > 1 {
		return Result{}, ErrTooManyArgs
	}
	pa, err := optionalPath(args, 0)
	if err != nil {
		return Result{}, err
	}
	if doc == nil {
		return Result{Reply: rInt(0)}, nil
	}
	if pa.isRoot() {
		return Result{Reply: rInt(1), Write: true, Root: nil}, nil
	}
	n := 0
	for _, m := range pa.path.Targets(doc, true) {
		if remove(doc, m.Loc) {
			n++
		}
	}
	if n == 0 {
		return Result{Reply: rInt(0)}, nil
	}
	return cfg.written(doc, rInt(int64(n)))
}

// Type is JSON.TYPE key [path]: the type name of each match.
func Type(doc *Value, args [][]byte) (reply.Value, error) {
	if len(args) > 1 {
		return reply.Value{}, ErrTooManyArgs
	}
	pa, err := optionalPath(args, 0)
	if err != nil {
		return reply.Value{}, err
	}
	if doc == nil {
		return rNull(), nil
	}
	var per []reply.Value
	for _, m := range pa.path.Eval(doc) {
		per = append(per, rBulk(m.Val.TypeName()))
	}
	if pa.legacy && len(per) == 0 {
		return rNull(), nil
	}
	return pa.shape(per, false, ErrPathMissing)
}

// Merge is JSON.MERGE key path value: RFC 7396 at each match (a null
// patch deletes the matches), creating a missing normalized path; nil
// when nothing matched and nothing could be created, and, as Kvrocks, on
// an existing key when the patch is not JSON.
func Merge(doc *Value, args [][]byte, cfg Config) (Result, error) {
	if len(args) != 2 {
		return Result{}, ErrArity
	}
	pa, err := compilePath(args[0])
	if err != nil {
		return Result{}, err
	}
	patch, err := cfg.parseValue(args[1])
	if doc == nil {
		if err != nil {
			return Result{}, err
		}
		if !pa.isRoot() {
			return Result{}, ErrNewAtRoot
		}
		return cfg.written(patch, rOK())
	}
	if err != nil {
		return Result{Reply: rNull()}, nil
	}
	if pa.isRoot() {
		return cfg.written(mergePatch(doc, patch), rOK())
	}
	targets := pa.path.Targets(doc, true)
	if len(targets) == 0 {
		if ok, col := pa.path.isNormalized(); !ok {
			return Result{}, &PathError{Msg: msgNotNormalized, Column: col}
		}
		if patch.Kind == KindNull || !create(doc, pa.path, patch) {
			return Result{Reply: rOK()}, nil
		}
		return cfg.written(doc, rOK())
	}
	for _, m := range targets {
		if patch.Kind == KindNull {
			remove(doc, m.Loc)
			continue
		}
		m.Val.replaceWith(mergePatch(m.Val, patch))
	}
	return cfg.written(doc, rOK())
}

// mergePatch applies an RFC 7396 merge patch to target.
func mergePatch(target, patch *Value) *Value {
	if patch.Kind != KindObject {
		return patch.Clone()
	}
	out := target
	if target.Kind != KindObject {
		out = NewObject()
	}
	for _, m := range patch.Fields {
		if m.Val.Kind == KindNull {
			out.Delete(m.Key)
			continue
		}
		cur := out.Get(m.Key)
		if cur == nil {
			cur = Null()
		}
		out.Set(m.Key, mergePatch(cur, m.Val))
	}
	return out
}

// Info is JSON.INFO key: the format the document is stored in.
func Info(doc *Value, stored Format) (reply.Value, error) {
	if doc == nil {
		return reply.Value{}, ErrNotFound
	}
	return rArray([]reply.Value{rBulk("storage_format"), rBulk(stored.String())}), nil
}

// DebugMemory is JSON.DEBUG MEMORY key [path] (args: the subcommand
// and the path): the payload length of each match encoded in the
// document's stored format.
func DebugMemory(doc *Value, stored Format, args [][]byte) (reply.Value, error) {
	if len(args) == 0 || !strings.EqualFold(string(args[0]), "MEMORY") {
		return reply.Value{}, ErrDebugSub
	}
	if len(args) > 2 {
		return reply.Value{}, ErrTooManyArgs
	}
	pa, err := optionalPath(args, 1)
	if err != nil {
		return reply.Value{}, err
	}
	if doc == nil {
		if len(args) == 1 {
			return rInt(0), nil
		}
		return rArray(nil), nil
	}
	var per []reply.Value
	for _, m := range pa.path.Eval(doc) {
		per = append(per, rInt(int64(len(Payload(m.Val, stored)))))
	}
	return pa.shape(per, false, ErrPathMissing)
}

// Resp is JSON.RESP key [path]: the document, or each match, as RESP
// values.
func Resp(doc *Value, args [][]byte) (reply.Value, error) {
	if len(args) > 1 {
		return reply.Value{}, ErrTooManyArgs
	}
	pa, err := optionalPath(args, 0)
	if err != nil {
		return reply.Value{}, err
	}
	if doc == nil {
		return rNull(), nil
	}
	if len(args) == 0 {
		return respOf(doc), nil
	}
	var per []reply.Value
	for _, m := range pa.path.Eval(doc) {
		per = append(per, respOf(m.Val))
	}
	return pa.shape(per, false, ErrPathMissing)
}

// respOf maps a value as Kvrocks does: an object to "{" then its keys
// and values, an array to "[" then its elements, integers as integers
// (an unsigned one past int64 wraps, as Kvrocks casts it), doubles and
// strings as bulk strings, booleans as status replies, null as nil.
func respOf(v *Value) reply.Value {
	switch v.Kind {
	case KindNull:
		return rNull()
	case KindBool:
		return rSimple(strconvBool(v.Bool))
	case KindInt:
		return rInt(v.Int)
	case KindUint:
		return rInt(int64(v.Uint))
	case KindFloat:
		return rBulk(string(appendFloat(nil, v.Float)))
	case KindString:
		return rBulk(v.Str)
	case KindArray:
		out := []reply.Value{rSimple("[")}
		for _, e := range v.Elems {
			out = append(out, respOf(e))
		}
		return rArray(out)
	}
	out := []reply.Value{rSimple("{")}
	for _, m := range v.Fields {
		out = append(out, rBulk(m.Key), respOf(m.Val))
	}
	return rArray(out)
}

func strconvBool(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
