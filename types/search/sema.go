package search

import (
	"encoding/binary"
	"math"
)

// Check checks a parsed query against its index as Kvrocks does, in
// Kvrocks's order (the returned fields, the condition, the sort): every
// field exists and is of the kind its use needs, vectors are decoded from
// their blobs by the field's element type and have its dimension, vector
// ranges suit the metric. It fills in the vectors of RediSearch's blobs.
func Check(q *Query, s *Schema) error {
	for _, name := range q.Select {
		if _, err := lookup(s, name); err != nil {
			return err
		}
	}
	if err := checkExpr(q.Where, s); err != nil {
		return err
	}
	if q.SortBy != nil {
		f, err := lookup(s, q.SortBy.Field)
		if err != nil {
			return err
		}
		switch f.Type {
		case FieldNumeric:
		case FieldVector:
			return failf(ErrField, "field `%s` is a vector field according to metadata and does expect a vector parameter", q.SortBy.Field)
		default:
			return failf(ErrField, "field `%s` is not sortable", q.SortBy.Field)
		}
	}
	return nil
}

func lookup(s *Schema, name string) (*Field, error) {
	f := s.Field(name)
	if f == nil {
		return nil, failf(ErrField, "field `%s` not found in index `%s`", name, s.Name)
	}
	return f, nil
}

func checkExpr(e Expr, s *Schema) error {
	switch e := e.(type) {
	case *And:
		return checkAll(e.Inners, s)
	case *Or:
		return checkAll(e.Inners, s)
	case *Not:
		return checkExpr(e.Inner, s)
	case *TagContain:
		return checkKind(s, e.Field, FieldTag, "tag")
	case *NumericCompare:
		return checkKind(s, e.Field, FieldNumeric, "numeric")
	case *VectorRange:
		f, err := vectorField(s, e.Field, false)
		if err != nil {
			return err
		}
		if e.Vector, err = decodeVector(e.Vector, e.blob, f); err != nil {
			return err
		}
		return checkRange(f, e.Range)
	case *VectorKNN:
		f, err := vectorField(s, e.Field, e.fromSQL)
		if err != nil {
			return err
		}
		e.Vector, err = decodeVector(e.Vector, e.blob, f)
		return err
	}
	return nil
}

func checkAll(es []Expr, s *Schema) error {
	for _, e := range es {
		if err := checkExpr(e, s); err != nil {
			return err
		}
	}
	return nil
}

func checkKind(s *Schema, name string, want FieldType, kind string) error {
	f, err := lookup(s, name)
	if err != nil {
		return err
	}
	if f.Type != want {
		return failf(ErrField, "field `%s` is not a %s field", name, kind)
	}
	return nil
}

func vectorField(s *Schema, name string, fromSQL bool) (*Field, error) {
	f, err := lookup(s, name)
	if err != nil {
		return nil, err
	}
	if f.Type != FieldVector {
		if fromSQL {
			return nil, failf(ErrField, "field `%s` is not a vector field according to metadata and does not expect a vector parameter", name)
		}
		return nil, failf(ErrField, "field `%s` is not a vector field", name)
	}
	return f, nil
}

// decodeVector decodes a blob of little-endian elements of the field's
// type (when the query gave a blob, not a literal) and checks the
// dimension.
func decodeVector(v []float64, blob []byte, f *Field) ([]float64, error) {
	if blob != nil || v == nil {
		var err error
		if v, err = DecodeBlob(blob, f.Vector.Type); err != nil {
			return nil, err
		}
	}
	if len(v) != int(f.Vector.Dim) {
		return nil, failf(ErrQuery, "vector should be of size `%d` for field `%s`", f.Vector.Dim, f.QueryName())
	}
	return v, nil
}

// DecodeBlob reads a vector's raw bytes: little-endian elements of the
// type, as hash fields and query parameters hold them.
func DecodeBlob(blob []byte, t VectorType) ([]float64, error) {
	if len(blob) == 0 {
		return nil, fail(ErrQuery, "empty vector is invalid")
	}
	size := t.Size()
	if len(blob)%size != 0 {
		return nil, fail(ErrQuery, "data size is not a multiple of the target type size")
	}
	v := make([]float64, len(blob)/size)
	for i := range v {
		if size == 4 {
			v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(blob[i*4:])))
		} else {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(blob[i*8:]))
		}
	}
	return v, nil
}

func checkRange(f *Field, r float64) error {
	switch f.Vector.Metric {
	case L2:
		if r < 0 {
			return fail(ErrQuery, "range cannot be a negative number for l2 distance metric")
		}
	case Cosine:
		if r < 0 || r > 2 {
			return fail(ErrQuery, "range has to be between 0 and 2 for cosine distance metric")
		}
	}
	return nil
}
