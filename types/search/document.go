package search

import (
	"bytes"
	"sort"
	"strings"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
	"github.com/basaltdb/basalt/types/json"
)

// A document's index values: what an index holds of each of its fields,
// read from a hash's fields or (after the JSON type) a JSON document's
// paths by the extractor of the index's kind.

// docState is a document as an extractor reads it: the key's metadata
// record (rest: what follows its header, a JSON document, decoded once
// when a field needs it) and a hash's values of the schema's fields, by
// their index in the schema.
type docState struct {
	schema  *Schema
	rest    []byte
	fields  []rawField
	decoded bool
	doc     *json.Value
	docErr  error
}

// rawField is a hash field's value as stored, ok when the hash has it.
type rawField struct {
	v  []byte
	ok bool
}

func newDocState(s *Schema, rest []byte) *docState {
	return &docState{schema: s, rest: rest, fields: make([]rawField, len(s.Fields))}
}

// fieldSubkeys returns the element keys of o of the schema's fields.
func fieldSubkeys(s *Schema, o *storage.Object) [][]byte {
	keys := make([][]byte, len(s.Fields))
	for i := range s.Fields {
		keys[i] = o.Subkey([]byte(s.Fields[i].Name))
	}
	return keys
}

// setField records hash field i's stored value v (nil: absent) of a hash
// whose metadata is m: its value without the expiry it may be stored with.
func (st *docState) setField(i int, m *metadata.Metadata, v []byte) {
	if v == nil {
		st.fields[i] = rawField{}
		return
	}
	val, _ := storage.FieldValue(m, v)
	st.fields[i] = rawField{val, true}
}

// setNamed is setField of the hash field name, if the schema has one of
// that name.
func (st *docState) setNamed(name []byte, m *metadata.Metadata, v []byte) {
	for i := range st.schema.Fields {
		if st.schema.Fields[i].Name == string(name) {
			st.setField(i, m, v)
		}
	}
}

// json returns the JSON document, decoding it the first time.
func (st *docState) json() (*json.Value, error) {
	if !st.decoded {
		st.decoded = true
		st.doc, _, st.docErr = json.Decode(st.rest)
	}
	return st.doc, st.docErr
}

// value is what an index holds of one field of a document; has is false
// when the document lacks the field.
type value struct {
	has    bool
	tags   []string // a tag field's tags, a sorted set
	num    float64
	vector []float64
}

// docValues are a document's values by the index of their field in the
// schema; nil: no document.
type docValues []value

// at returns the value of the field of index i, and whether there is one.
func (d docValues) at(i int) (value, bool) {
	if i < 0 || i >= len(d) {
		return value{}, false
	}
	return d[i], d[i].has
}

// An extractor reads the fields of a document of an index's kind.
type extractor struct {
	// keyType is the type of the keys the index covers.
	keyType metadata.Type
	// field reads the field of index i of a document: what a query returns of it, and
	// what the index holds of it; ok is false when the document lacks
	// it. A field that holds what its type cannot take (no number, a
	// vector of the wrong size) fails with an error: the document is not
	// indexed at all, as in Kvrocks.
	field func(st *docState, i int) (raw []byte, v value, ok bool, err error)
}

// extractors are the extractors by index kind.
var extractors = map[OnType]extractor{
	OnHash: {keyType: metadata.TypeHash, field: hashField},
	OnJSON: {keyType: metadata.TypeJSON, field: jsonField},
}

// extract reads the values of the schema's fields in a document.
func (ex extractor) extract(st *docState) (docValues, error) {
	out := make(docValues, len(st.schema.Fields))
	for i := range out {
		_, v, ok, err := ex.field(st, i)
		if err != nil {
			return nil, err
		}
		v.has = ok
		out[i] = v
	}
	return out, nil
}

// hashField reads the hash field named as the schema's field i: a tag's
// value split on its separator (empty tags dropped, lower-cased unless
// case sensitive), a number as a double, a vector as little-endian
// elements.
func hashField(st *docState, i int) ([]byte, value, bool, error) {
	raw := st.fields[i]
	if !raw.ok {
		return nil, value{}, false, nil
	}
	v, err := parseValue(&st.schema.Fields[i], raw.v)
	return raw.v, v, true, err
}

// parseValue reads one hash field's value as field f's type.
func parseValue(f *Field, raw []byte) (value, error) {
	switch f.Type {
	case FieldTag:
		return value{tags: splitTags(raw, f.Separator, f.CaseSensitive)}, nil
	case FieldNumeric:
		n, err := parseFloat(raw)
		if err != nil {
			return value{}, fail(ErrDocument, "field value cannot be parsed as a number")
		}
		return value{num: n}, nil
	case FieldVector:
		if len(raw) != int(f.Vector.Dim)*f.Vector.Type.Size() {
			return value{}, fail(ErrDocument, "field value is too short or too long to be parsed as a vector")
		}
		v, err := DecodeBlob(raw, f.Vector.Type)
		return value{vector: v}, err
	}
	return value{}, nil
}

// splitTags splits a tag field's value into its sorted set of tags.
func splitTags(raw []byte, sep byte, caseSensitive bool) []string {
	return tagSet(bytes.Split(raw, []byte{sep}), caseSensitive)
}

// tagSet returns the sorted set of tags of pieces: empty ones dropped,
// lower-cased unless case sensitive.
func tagSet(pieces [][]byte, caseSensitive bool) []string {
	set := map[string]bool{}
	for _, t := range pieces {
		if len(t) == 0 {
			continue
		}
		s := string(t)
		if !caseSensitive {
			s = strings.ToLower(s)
		}
		set[s] = true
	}
	out := make([]string, 0, len(set))
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// hasTag reports whether a tag set holds tag, as a query compares them:
// lower-cased unless the field is case sensitive.
func hasTag(f *Field, tags []string, tag string) bool {
	if !f.CaseSensitive {
		tag = strings.ToLower(tag)
	}
	i := sort.SearchStrings(tags, tag)
	return i < len(tags) && tags[i] == tag
}
