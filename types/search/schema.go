package search

import (
	"bytes"
	"math"
	"sort"
	"strings"
)

// OnType is the kind of document an index covers, as its metadata stores
// it: the Kvrocks type number.
type OnType uint8

// The indexable types.
const (
	OnHash OnType = 2
	OnJSON OnType = 10
)

// KeyType is how FT.INFO names the type: hash or ReJSON-RL.
func (t OnType) KeyType() string {
	if t == OnJSON {
		return "ReJSON-RL"
	}
	return "hash"
}

// FieldType is a field's kind, as the flag byte of its metadata stores it
// in bits 1-4.
type FieldType uint8

// The field kinds Kvrocks indexes.
const (
	FieldTag     FieldType = 1
	FieldNumeric FieldType = 2
	FieldVector  FieldType = 3
)

// String is how FT.INFO names the kind.
func (t FieldType) String() string {
	switch t {
	case FieldTag:
		return "tag"
	case FieldNumeric:
		return "numeric"
	case FieldVector:
		return "vector"
	}
	return "unknown"
}

// VectorType is the element type of a vector field.
type VectorType uint8

// Kvrocks stores FLOAT64 as 1; FLOAT32, which Kvrocks 5fccd57 refuses, is
// Basalt's and stored as 2 (a Kvrocks reading it refuses the index).
const (
	Float64 VectorType = 1
	Float32 VectorType = 2
)

// Size is the bytes of one element in a hash field's blob.
func (t VectorType) Size() int {
	if t == Float32 {
		return 4
	}
	return 8
}

// Metric is a vector field's distance.
type Metric uint8

// The metrics, as stored.
const (
	L2     Metric = 0
	IP     Metric = 1
	Cosine Metric = 2
)

// HNSW holds a vector field's parameters (FT.CREATE's VECTOR HNSW
// attributes) and the graph's level count, which grows with the graph.
type HNSW struct {
	Type           VectorType
	Dim            uint16
	Metric         Metric
	InitialCap     uint32
	M              uint16
	EFConstruction uint32
	EFRuntime      uint32
	Epsilon        float64
	NumLevels      uint16
}

// Kvrocks's defaults of the HNSW attributes.
const (
	DefaultInitialCap     = 500000
	DefaultM              = 16
	DefaultEFConstruction = 200
	DefaultEFRuntime      = 10
	DefaultEpsilon        = 0.01
)

// Field is one field of an index's schema.
type Field struct {
	// Name is the hash field, or the JSON path (a name without `$` is
	// `$.name`), the documents are read at.
	Name string
	// Alias is the name queries use (RediSearch's `path AS alias`,
	// beyond Kvrocks); empty: Name.
	Alias   string
	Type    FieldType
	NoIndex bool
	// Tag fields.
	Separator     byte
	CaseSensitive bool
	// Vector fields.
	Vector HNSW
}

// QueryName is the name queries know the field by.
func (f *Field) QueryName() string {
	if f.Alias != "" {
		return f.Alias
	}
	return f.Name
}

// Schema is an index: its name, the type and key prefixes of the
// documents it covers, and its fields in the order of their names (the
// order of the field metadata records).
type Schema struct {
	Name     string
	On       OnType
	Prefixes []string // none: every key of the type
	Fields   []Field
}

// Field returns the field queries name name, or nil.
func (s *Schema) Field(name string) *Field {
	if i := s.fieldAt(name); i >= 0 {
		return &s.Fields[i]
	}
	return nil
}

// fieldAt is the index of the field a query names, -1 when none.
func (s *Schema) fieldAt(name string) int {
	for i := range s.Fields {
		if s.Fields[i].QueryName() == name {
			return i
		}
	}
	return -1
}

// Covers reports whether the index covers key: it has one of the
// prefixes, or the index has none.
func (s *Schema) Covers(key []byte) bool {
	if len(s.Prefixes) == 0 {
		return true
	}
	for _, p := range s.Prefixes {
		if bytes.HasPrefix(key, []byte(p)) {
			return true
		}
	}
	return false
}

// args is the cursor over a command's arguments of the option parsers,
// with Kvrocks's CommandParser's errors.
type args struct {
	a [][]byte
	i int
}

func (p *args) good() bool { return p.i < len(p.a) }

// eat consumes the next argument if it is word, in any case.
func (p *args) eat(word string) bool {
	if p.good() && strings.EqualFold(string(p.a[p.i]), word) {
		p.i++
		return true
	}
	return false
}

func (p *args) take() ([]byte, error) {
	if !p.good() {
		return nil, errNoMoreItem
	}
	p.i++
	return p.a[p.i-1], nil
}

// takeUint takes an unsigned integer no larger than max.
func (p *args) takeUint(max uint64) (uint64, error) {
	a, err := p.take()
	if err != nil {
		return 0, err
	}
	return toUint(a, max)
}

// toUint parses a as Kvrocks's ParseInt for an unsigned type of maximum
// max: strtoull's number and a range check.
func toUint(a []byte, max uint64) (uint64, error) {
	n, err := parseUint(a)
	if err != nil {
		return 0, numberError(ErrSyntax, err)
	}
	if max < math.MaxUint64 && (n > max || isNegative(a)) {
		return 0, fail(ErrSyntax, "out of range of integer type")
	}
	return n, nil
}

func isNegative(a []byte) bool { return bytes.HasPrefix(bytes.TrimLeft(a, " \t\n\v\f\r"), []byte("-")) }

func (p *args) takeFloat() (float64, error) {
	a, err := p.take()
	if err != nil {
		return 0, err
	}
	f, err := parseFloat(a)
	if err != nil {
		return 0, numberError(ErrSyntax, err)
	}
	return f, nil
}

// ParseCreate parses FT.CREATE's arguments after the command name:
//
//	index [ON HASH|JSON] [PREFIX n p ...] SCHEMA
//	  {field [AS alias] TAG [SEPARATOR c] [CASESENSITIVE] [NOINDEX]
//	   | field [AS alias] NUMERIC [NOINDEX]
//	   | field [AS alias] VECTOR HNSW n TYPE FLOAT64|FLOAT32 DIM d
//	     DISTANCE_METRIC L2|IP|COSINE [M m] [EF_CONSTRUCTION e]
//	     [EF_RUNTIME r] [EPSILON x] [NOINDEX]} ...
//
// with Kvrocks's errors. ON and PREFIX may come in any order and repeat
// (the last ON counts, prefixes add up); a field named twice keeps its
// first definition. AS and FLOAT32 are RediSearch's, beyond Kvrocks; so
// is taking ON after PREFIX, on which Kvrocks 5fccd57 crashes. DIM 0 and
// M below 2, which Kvrocks takes and then cannot index with, are refused.
func ParseCreate(argv [][]byte) (*Schema, error) {
	p := &args{a: argv}
	name, err := p.take()
	if err != nil {
		return nil, err
	}
	if len(name) == 0 {
		return nil, fail(ErrSchema, "index name cannot be empty")
	}
	s := &Schema{Name: string(name), On: OnHash}
	for {
		switch {
		case p.eat("ON"):
			switch {
			case p.eat("HASH"):
				s.On = OnHash
			case p.eat("JSON"):
				s.On = OnJSON
			default:
				return nil, fail(ErrSchema, "expect HASH or JSON after ON")
			}
			continue
		case p.eat("PREFIX"):
			n, err := p.takeUint(math.MaxUint64)
			if err != nil {
				return nil, err
			}
			for ; n > 0; n-- {
				prefix, err := p.take()
				if err != nil {
					return nil, err
				}
				s.Prefixes = append(s.Prefixes, string(prefix))
			}
			continue
		}
		break
	}
	if !p.eat("SCHEMA") {
		return nil, fail(ErrSchema, "expect SCHEMA section for this index")
	}
	for p.good() {
		f, err := parseSchemaField(p)
		if err != nil {
			return nil, err
		}
		if s.Field(f.QueryName()) == nil && s.fieldNamed(f.Name) == nil {
			s.Fields = append(s.Fields, f)
		}
	}
	sort.SliceStable(s.Fields, func(i, j int) bool { return s.Fields[i].Name < s.Fields[j].Name })
	return s, nil
}

func (s *Schema) fieldNamed(name string) *Field {
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return &s.Fields[i]
		}
	}
	return nil
}

func parseSchemaField(p *args) (Field, error) {
	name, err := p.take()
	if err != nil {
		return Field{}, err
	}
	if len(name) == 0 {
		return Field{}, fail(ErrSchema, "field name cannot be empty")
	}
	f := Field{Name: string(name)}
	if p.eat("AS") {
		alias, err := p.take()
		if err != nil {
			return Field{}, err
		}
		f.Alias = string(alias)
	}
	switch {
	case p.eat("TAG"):
		f.Type, f.Separator = FieldTag, ','
		return f, parseTagOptions(p, &f)
	case p.eat("NUMERIC"):
		f.Type = FieldNumeric
		f.NoIndex = p.eat("NOINDEX")
		return f, nil
	case p.eat("VECTOR"):
		f.Type = FieldVector
		if err := parseVectorOptions(p, &f.Vector); err != nil {
			return Field{}, err
		}
		f.NoIndex = p.eat("NOINDEX")
		return f, nil
	}
	return Field{}, fail(ErrSchema, "expect field type TAG, NUMERIC or VECTOR")
}

func parseTagOptions(p *args, f *Field) error {
	for {
		switch {
		case p.eat("SEPARATOR"):
			sep, err := p.take()
			if err != nil {
				return err
			}
			if len(sep) != 1 {
				return fail(ErrSchema, "only one character separator is supported")
			}
			f.Separator = sep[0]
		case p.eat("CASESENSITIVE"):
			f.CaseSensitive = true
		case p.eat("NOINDEX"):
			f.NoIndex = true
		default:
			return nil
		}
	}
}

// parseVectorOptions: HNSW n attr value ...; an attribute name that is
// none of HNSW's ends the attributes (and starts the next field), as in
// Kvrocks.
func parseVectorOptions(p *args, h *HNSW) error {
	if !p.eat("HNSW") {
		return fail(ErrSchema, "only support HNSW algorithm for vector field")
	}
	n, err := p.takeUint(math.MaxUint64)
	if err != nil {
		return err
	}
	if n < 6 {
		return fail(ErrSchema, "number of attributes is not as required")
	}
	if n%2 != 0 {
		return fail(ErrSchema, "number of attributes must be multiple of 2")
	}
	*h = HNSW{InitialCap: DefaultInitialCap, M: DefaultM, EFConstruction: DefaultEFConstruction,
		EFRuntime: DefaultEFRuntime, Epsilon: DefaultEpsilon}
	var hasType, hasDim, hasMetric bool
attributes:
	for ; n > 0; n -= 2 {
		switch {
		case p.eat("TYPE"):
			switch {
			case p.eat("FLOAT64"):
				h.Type = Float64
			case p.eat("FLOAT32"):
				h.Type = Float32
			default:
				return fail(ErrSchema, "unsupported vector type")
			}
			hasType = true
		case p.eat("DIM"):
			d, err := p.takeUint(math.MaxUint16)
			if err != nil {
				return err
			}
			h.Dim, hasDim = uint16(d), true
		case p.eat("DISTANCE_METRIC"):
			switch {
			case p.eat("L2"):
				h.Metric = L2
			case p.eat("IP"):
				h.Metric = IP
			case p.eat("COSINE"):
				h.Metric = Cosine
			default:
				return fail(ErrSchema, "unsupported distance metric")
			}
			hasMetric = true
		case p.eat("M"):
			m, err := p.takeUint(math.MaxUint16)
			if err != nil {
				return err
			}
			h.M = uint16(m)
		case p.eat("EF_CONSTRUCTION"):
			e, err := p.takeUint(math.MaxUint32)
			if err != nil {
				return err
			}
			h.EFConstruction = uint32(e)
		case p.eat("EF_RUNTIME"):
			e, err := p.takeUint(math.MaxUint32)
			if err != nil {
				return err
			}
			h.EFRuntime = uint32(e)
		case p.eat("EPSILON"):
			e, err := p.takeFloat()
			if err != nil {
				return err
			}
			h.Epsilon = e
		default:
			break attributes // the next field's name
		}
	}
	switch {
	case !hasType:
		return fail(ErrSchema, "VECTOR field requires TYPE to be set")
	case !hasDim:
		return fail(ErrSchema, "VECTOR field requires DIM to be set")
	case !hasMetric:
		return fail(ErrSchema, "VECTOR field requires DISTANCE_METRIC to be set")
	case h.Dim == 0:
		return fail(ErrSchema, "DIM must be a positive integer")
	case h.M < 2:
		return fail(ErrSchema, "M must be at least 2")
	}
	return nil
}
