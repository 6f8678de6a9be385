package search

import (
	"bytes"
	"sort"
	"strings"

	"github.com/basaltdb/basalt/metadata"
)

// A document's index values: what an index holds of each of its fields,
// read from a hash's fields or (after the JSON type) a JSON document's
// paths by the extractor of the index's kind.

// value is what an index holds of one field of a document.
type value struct {
	tags   []string // a tag field's tags, a sorted set
	num    float64
	vector []float64
}

// docValues are a document's values by field name; a field the document
// lacks is absent.
type docValues map[string]value

// An extractor reads the values of a document for an index. A document
// whose field holds what its type cannot take (no number, a vector of the
// wrong size) is not indexed at all, as in Kvrocks: extract fails.
type extractor struct {
	// keyType is the type of the keys the index covers.
	keyType metadata.Type
	// extract reads the values of the schema's fields in a document.
	extract func(s *Schema, st docState) (docValues, error)
}

// extractors are the extractors by index kind. JSON's joins when the
// JSON type is wired: its documents are the metadata record's value.
var extractors = map[OnType]extractor{
	OnHash: {keyType: metadata.TypeHash, extract: hashValues},
}

// hashValues reads the fields of a hash, by name: a tag's value split on
// its separator (empty tags dropped, lower-cased unless case sensitive),
// a number as a double, a vector as little-endian elements.
func hashValues(s *Schema, st docState) (docValues, error) {
	out := docValues{}
	for i := range s.Fields {
		f := &s.Fields[i]
		raw, ok := st.get(f.Name)
		if !ok {
			continue
		}
		v, err := parseValue(f, raw)
		if err != nil {
			return nil, err
		}
		out[f.Name] = v
	}
	return out, nil
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
	set := map[string]bool{}
	for _, t := range bytes.Split(raw, []byte{sep}) {
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
