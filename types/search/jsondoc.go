package search

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/basaltdb/basalt/types/json"
)

// JSON documents (ON JSON), as Kvrocks reads them: a field is the value
// at a JSON path, the field's name when it starts with `$` and `$.name`
// otherwise, which must select exactly one node (none or several: the
// document lacks the field). A tag field takes a string, split as a
// hash's value is, or an array of strings; a numeric field a JSON number
// (a string is none); a vector field an array of dim numbers. A query
// returns a tag field's tags joined with its separator, and numbers and
// vectors as for hashes.

var errJSONField = errors.New("search: the JSON value does not fit the field's type")

// jsonPaths caches the compiled paths of fields by their text: every
// write of an indexed document reads them.
var jsonPaths sync.Map

// jsonPath returns the compiled path of field name.
func jsonPath(name string) (*json.Path, error) {
	if p, ok := jsonPaths.Load(name); ok {
		return p.(*json.Path), nil
	}
	text := name
	if !strings.HasPrefix(text, "$") {
		text = "$." + name
	}
	p, err := json.ParsePath(text)
	if err != nil {
		return nil, err
	}
	jsonPaths.Store(name, p)
	return p, nil
}

// jsonField reads the schema's field i of a JSON document.
func jsonField(st *docState, i int) ([]byte, value, bool, error) {
	f := &st.schema.Fields[i]
	doc, err := st.json()
	if err != nil {
		return nil, value{}, false, err
	}
	path, err := jsonPath(f.Name)
	if err != nil {
		return nil, value{}, false, nil // a field no path names: never there
	}
	matches := path.Eval(doc)
	if len(matches) != 1 {
		return nil, value{}, false, nil
	}
	node := matches[0].Val
	switch f.Type {
	case FieldTag:
		raw, tags, ok := jsonTags(f, node)
		if !ok {
			return json.Text(node), value{}, true, errJSONField
		}
		return raw, value{tags: tags}, true, nil
	case FieldNumeric:
		n, ok := node.Number()
		if !ok {
			return json.Text(node), value{}, true, errJSONField
		}
		return json.Text(node), value{num: n}, true, nil
	case FieldVector:
		v, ok := jsonVector(node, int(f.Vector.Dim))
		if !ok {
			return json.Text(node), value{}, true, errJSONField
		}
		return json.Text(node), value{vector: v}, true, nil
	}
	return json.Text(node), value{}, true, nil
}

// jsonTags reads a tag field's node: a string split on the separator, or
// an array of strings taken whole; raw, what a query returns, is the
// pieces joined with the separator, as Kvrocks prints them (a string's
// empty pieces dropped, an array's kept). Empty tags are never indexed.
func jsonTags(f *Field, node *json.Value) (raw []byte, tags []string, ok bool) {
	var pieces [][]byte
	switch node.Kind {
	case json.KindString:
		pieces = bytes.Split([]byte(node.Str), []byte{f.Separator})
		pieces = slices.DeleteFunc(pieces, func(p []byte) bool { return len(p) == 0 })
	case json.KindArray:
		pieces = make([][]byte, len(node.Elems))
		for i, e := range node.Elems {
			if e.Kind != json.KindString {
				return nil, nil, false
			}
			pieces[i] = []byte(e.Str)
		}
	default:
		return nil, nil, false
	}
	return bytes.Join(pieces, []byte{f.Separator}), tagSet(pieces, f.CaseSensitive), true
}

// jsonVector reads a vector field's node: an array of dim numbers.
func jsonVector(node *json.Value, dim int) ([]float64, bool) {
	if node.Kind != json.KindArray || len(node.Elems) != dim {
		return nil, false
	}
	v := make([]float64, dim)
	for i, e := range node.Elems {
		n, ok := e.Number()
		if !ok {
			return nil, false
		}
		v[i] = n
	}
	return v, true
}
