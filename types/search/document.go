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
// when a field needs it) and a hash's fields by name.
type docState struct {
	rest    []byte
	fields  map[string][]byte
	decoded bool
	doc     *json.Value
	docErr  error
}

// fieldSubkeys returns the element keys of o of the schema's fields.
func fieldSubkeys(s *Schema, o *storage.Object) [][]byte {
	keys := make([][]byte, len(s.Fields))
	for i := range s.Fields {
		keys[i] = o.Subkey([]byte(s.Fields[i].Name))
	}
	return keys
}

// addFields records the values of the schema's fields read by
// fieldSubkeys (nil: absent) of a hash whose metadata is m: a field's
// value without the expiry it may be stored with.
func (st *docState) addFields(s *Schema, m *metadata.Metadata, vals [][]byte) {
	for i, v := range vals {
		if v != nil {
			st.fields[s.Fields[i].Name], _ = storage.FieldValue(m, v)
		}
	}
}

// get returns the hash field name.
func (st *docState) get(name string) ([]byte, bool) {
	v, ok := st.fields[name]
	return v, ok
}

// json returns the JSON document, decoding it the first time.
func (st *docState) json() (*json.Value, error) {
	if !st.decoded {
		st.decoded = true
		st.doc, _, st.docErr = json.Decode(st.rest)
	}
	return st.doc, st.docErr
}

// value is what an index holds of one field of a document.
type value struct {
	tags   []string // a tag field's tags, a sorted set
	num    float64
	vector []float64
}

// docValues are a document's values by field name; a field the document
// lacks is absent.
type docValues map[string]value

// An extractor reads the fields of a document of an index's kind.
type extractor struct {
	// keyType is the type of the keys the index covers.
	keyType metadata.Type
	// field reads field f of a document: what a query returns of it, and
	// what the index holds of it; ok is false when the document lacks
	// it. A field that holds what its type cannot take (no number, a
	// vector of the wrong size) fails with an error: the document is not
	// indexed at all, as in Kvrocks.
	field func(f *Field, st *docState) (raw []byte, v value, ok bool, err error)
}

// extractors are the extractors by index kind.
var extractors = map[OnType]extractor{
	OnHash: {keyType: metadata.TypeHash, field: hashField},
	OnJSON: {keyType: metadata.TypeJSON, field: jsonField},
}

// extract reads the values of the schema's fields in a document.
func (ex extractor) extract(s *Schema, st *docState) (docValues, error) {
	out := docValues{}
	for i := range s.Fields {
		f := &s.Fields[i]
		_, v, ok, err := ex.field(f, st)
		if err != nil {
			return nil, err
		}
		if ok {
			out[f.Name] = v
		}
	}
	return out, nil
}

// hashField reads the hash field named as f: a tag's value split on its
// separator (empty tags dropped, lower-cased unless case sensitive), a
// number as a double, a vector as little-endian elements.
func hashField(f *Field, st *docState) ([]byte, value, bool, error) {
	raw, ok := st.get(f.Name)
	if !ok {
		return nil, value{}, false, nil
	}
	v, err := parseValue(f, raw)
	return raw, v, true, err
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
