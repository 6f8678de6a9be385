package scripting

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// The cjson library (lua-cjson 2.1, as Redis loads it): encode, decode,
// null, and the settings functions. Numbers are written with "%.14g";
// an empty table is an object; a table whose keys are 1..n (holes
// allowed unless the array is too sparse) is an array.

type cjsonConfig struct {
	encodeMaxDepth, decodeMaxDepth int
	precision                      int
	sparseConvert                  bool
	sparseRatio, sparseSafe        int
	encodeInvalid, decodeInvalid   bool
}

func newCJSON(L *lua.LState) *lua.LTable {
	return cjsonModule(L, L.NewUserData())
}

// cjsonModule is a cjson table with settings of its own; cjson.new()
// makes another, whose null is the same value.
func cjsonModule(L *lua.LState, null *lua.LUserData) *lua.LTable {
	cfg := &cjsonConfig{encodeMaxDepth: 1000, decodeMaxDepth: 1000, precision: 14, sparseRatio: 2, sparseSafe: 10, decodeInvalid: true}
	t := L.NewTable()
	t.RawSetString("null", null)
	t.RawSetString("new", L.NewFunction(func(L *lua.LState) int {
		L.Push(cjsonModule(L, null))
		return 1
	}))
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	t.RawSetString("encode", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() != 1 {
			argError(L, 1, "encode", "expected 1 argument")
		}
		e := cjsonEncoder{L: L, cfg: cfg, null: null}
		e.value(L.Get(1), 0)
		L.Push(lua.LString(e.out))
		return 1
	}))
	t.RawSetString("decode", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() != 1 {
			argError(L, 1, "decode", "expected 1 argument")
		}
		d := cjsonDecoder{L: L, cfg: cfg, null: null, s: checkString(L, 1, "decode")}
		L.Push(d.top())
		return 1
	}))
	intSetting := func(name string, p *int, lo, hi int) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
				n := int(checkNumber(L, 1, name))
				if n < lo || n > hi {
					argError(L, 1, name, fmt.Sprintf("expected integer between %d and %d", lo, hi))
				}
				*p = n
			}
			L.Push(lua.LNumber(*p))
			return 1
		}))
	}
	intSetting("encode_max_depth", &cfg.encodeMaxDepth, 1, math.MaxInt32)
	intSetting("decode_max_depth", &cfg.decodeMaxDepth, 1, math.MaxInt32)
	intSetting("encode_number_precision", &cfg.precision, 1, 14)
	boolSetting := func(name string, p *bool) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
				*p = cjsonBool(L, 1, name)
			}
			L.Push(lua.LBool(*p))
			return 1
		}))
	}
	boolSetting("encode_invalid_numbers", &cfg.encodeInvalid)
	boolSetting("decode_invalid_numbers", &cfg.decodeInvalid)
	keep := true
	boolSetting("encode_keep_buffer", &keep)
	t.RawSetString("encode_sparse_array", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
			cfg.sparseConvert = cjsonBool(L, 1, "encode_sparse_array")
		}
		if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
			cfg.sparseRatio = int(checkNumber(L, 2, "encode_sparse_array"))
		}
		if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
			cfg.sparseSafe = int(checkNumber(L, 3, "encode_sparse_array"))
		}
		L.Push(lua.LBool(cfg.sparseConvert))
		L.Push(lua.LNumber(cfg.sparseRatio))
		L.Push(lua.LNumber(cfg.sparseSafe))
		return 3
	}))
	return t
}

// cjsonBool reads a setting given as a boolean or "on"/"off".
func cjsonBool(L *lua.LState, i int, name string) bool {
	switch v := L.Get(i).(type) {
	case lua.LBool:
		return bool(v)
	case lua.LString:
		switch v {
		case "on":
			return true
		case "off":
			return false
		}
	}
	argError(L, i, name, "invalid option '"+L.ToString(i)+"'")
	return false
}

type cjsonEncoder struct {
	L    *lua.LState
	cfg  *cjsonConfig
	null *lua.LUserData
	out  []byte
}

func (e *cjsonEncoder) fail(v lua.LValue, reason string) {
	e.L.RaiseError("Cannot serialise %s: %s", v.Type().String(), reason)
}

func (e *cjsonEncoder) value(v lua.LValue, depth int) {
	if int64(len(e.out)) > memoryLimit {
		e.L.RaiseError(errNoMemory)
	}
	switch v := v.(type) {
	case lua.LString:
		e.str(string(v))
	case lua.LNumber:
		e.number(v)
	case lua.LBool:
		e.out = strconv.AppendBool(e.out, bool(v))
	case *lua.LTable:
		depth++
		if depth > e.cfg.encodeMaxDepth {
			e.L.RaiseError("Cannot serialise, excessive nesting (%d)", depth)
		}
		if n := e.arrayLen(v); n > 0 {
			e.out = append(e.out, '[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					e.out = append(e.out, ',')
				}
				e.value(v.RawGetInt(i), depth)
			}
			e.out = append(e.out, ']')
			return
		}
		e.object(v, depth)
	case *lua.LUserData:
		if v != e.null {
			e.fail(v, "type not supported")
		}
		e.out = append(e.out, "null"...)
	default:
		if v != lua.LNil {
			e.fail(v, "type not supported")
		}
		e.out = append(e.out, "null"...)
	}
}

func (e *cjsonEncoder) number(n lua.LNumber) {
	f := float64(n)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		if !e.cfg.encodeInvalid {
			e.fail(n, "must not be NaN or Inf")
		}
		switch {
		case math.IsNaN(f):
			e.out = append(e.out, "nan"...)
		case f > 0:
			e.out = append(e.out, "inf"...)
		default:
			e.out = append(e.out, "-inf"...)
		}
		return
	}
	e.out = strconv.AppendFloat(e.out, f, 'g', e.cfg.precision, 64)
}

// arrayLen returns the array length of t, 0 for an object (or an empty
// table), after refusing an excessively sparse array.
func (e *cjsonEncoder) arrayLen(t *lua.LTable) int {
	maxKey, items, array := 0, 0, true
	t.ForEach(func(k, _ lua.LValue) {
		n, ok := k.(lua.LNumber)
		if !array || !ok || float64(n) != math.Floor(float64(n)) || n < 1 {
			array = false
			return
		}
		maxKey = max(maxKey, int(n))
		items++
	})
	if !array {
		return 0
	}
	if e.cfg.sparseRatio > 0 && maxKey > items*e.cfg.sparseRatio && maxKey > e.cfg.sparseSafe {
		if !e.cfg.sparseConvert {
			e.fail(t, "excessively sparse array")
		}
		return 0
	}
	return maxKey
}

func (e *cjsonEncoder) object(t *lua.LTable, depth int) {
	e.out = append(e.out, '{')
	first := true
	t.ForEach(func(k, v lua.LValue) {
		if !first {
			e.out = append(e.out, ',')
		}
		first = false
		switch k := k.(type) {
		case lua.LString:
			e.str(string(k))
		case lua.LNumber:
			e.out = append(e.out, '"')
			e.number(k)
			e.out = append(e.out, '"')
		default:
			e.fail(k, "table key must be a number or string")
		}
		e.out = append(e.out, ':')
		e.value(v, depth)
	})
	e.out = append(e.out, '}')
}

func (e *cjsonEncoder) str(s string) {
	e.out = append(e.out, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			e.out = append(e.out, `\"`...)
		case '\\':
			e.out = append(e.out, `\\`...)
		case '/':
			e.out = append(e.out, `\/`...)
		case '\b':
			e.out = append(e.out, `\b`...)
		case '\f':
			e.out = append(e.out, `\f`...)
		case '\n':
			e.out = append(e.out, `\n`...)
		case '\r':
			e.out = append(e.out, `\r`...)
		case '\t':
			e.out = append(e.out, `\t`...)
		default:
			if c < 0x20 || c == 0x7f {
				e.out = fmt.Appendf(e.out, `\u%04x`, c)
			} else {
				e.out = append(e.out, c)
			}
		}
	}
	e.out = append(e.out, '"')
}

type cjsonDecoder struct {
	L     *lua.LState
	cfg   *cjsonConfig
	null  *lua.LUserData
	s     string
	i     int
	depth int
}

// fail raises lua-cjson's parse error: what was expected, what was found
// and where (1-based).
func (d *cjsonDecoder) fail(expected, found string, at int) {
	d.L.RaiseError("Expected %s but found %s at character %d", expected, found, at+1)
}

func (d *cjsonDecoder) skipSpace() {
	for d.i < len(d.s) && strings.IndexByte(" \t\n\r", d.s[d.i]) >= 0 {
		d.i++
	}
}

func (d *cjsonDecoder) top() lua.LValue {
	v := d.value("value")
	d.skipSpace()
	if d.i < len(d.s) {
		d.fail("the end", d.tokenName(), d.i)
	}
	return v
}

// tokenName names the token at the position, as lua-cjson does in its
// errors.
func (d *cjsonDecoder) tokenName() string {
	if d.i >= len(d.s) {
		return "T_END"
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return "T_OBJ_BEGIN"
	case c == '}':
		return "T_OBJ_END"
	case c == '[':
		return "T_ARR_BEGIN"
	case c == ']':
		return "T_ARR_END"
	case c == ':':
		return "T_COLON"
	case c == ',':
		return "T_COMMA"
	case c == '"':
		return "T_STRING"
	case c == '-' || c >= '0' && c <= '9':
		return "T_NUMBER"
	case strings.HasPrefix(d.s[d.i:], "true") || strings.HasPrefix(d.s[d.i:], "false"):
		return "T_BOOLEAN"
	case strings.HasPrefix(d.s[d.i:], "null"):
		return "T_NULL"
	}
	return "invalid token"
}

func (d *cjsonDecoder) value(expected string) lua.LValue {
	d.skipSpace()
	at := d.i
	if d.i >= len(d.s) {
		d.fail(expected, "T_END", at)
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return lua.LString(d.str())
	case c == '-' || c >= '0' && c <= '9' || d.cfg.decodeInvalid && (c == '+' || c == '.' || c == 'i' || c == 'I' || c == 'n' || c == 'N'):
		if c == 'n' && strings.HasPrefix(d.s[d.i:], "null") {
			d.i += 4
			return d.null
		}
		return d.number(expected)
	case strings.HasPrefix(d.s[d.i:], "true"):
		d.i += 4
		return lua.LTrue
	case strings.HasPrefix(d.s[d.i:], "false"):
		d.i += 5
		return lua.LFalse
	case strings.HasPrefix(d.s[d.i:], "null"):
		d.i += 4
		return d.null
	}
	d.fail(expected, d.tokenName(), at)
	return lua.LNil
}

func (d *cjsonDecoder) nest() {
	d.depth++
	if d.depth > d.cfg.decodeMaxDepth {
		d.L.RaiseError("Found too many nested data structures (%d) at character %d", d.depth, d.i+1)
	}
}

func (d *cjsonDecoder) object() lua.LValue {
	d.nest()
	d.i++
	t := d.L.NewTable()
	d.skipSpace()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		d.depth--
		return t
	}
	for {
		d.skipSpace()
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			d.fail("object key string", d.tokenName(), d.i)
		}
		key := d.str()
		d.skipSpace()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			d.fail("colon", d.tokenName(), d.i)
		}
		d.i++
		t.RawSetString(key, d.value("value"))
		d.skipSpace()
		if d.i < len(d.s) && d.s[d.i] == '}' {
			d.i++
			d.depth--
			return t
		}
		if d.i >= len(d.s) || d.s[d.i] != ',' {
			d.fail("comma or object end", d.tokenName(), d.i)
		}
		d.i++
	}
}

func (d *cjsonDecoder) array() lua.LValue {
	d.nest()
	d.i++
	t := d.L.NewTable()
	d.skipSpace()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		d.depth--
		return t
	}
	for n := 1; ; n++ {
		t.RawSetInt(n, d.value("value"))
		d.skipSpace()
		if d.i < len(d.s) && d.s[d.i] == ']' {
			d.i++
			d.depth--
			return t
		}
		if d.i >= len(d.s) || d.s[d.i] != ',' {
			d.fail("comma or array end", d.tokenName(), d.i)
		}
		d.i++
	}
}

func (d *cjsonDecoder) number(expected string) lua.LValue {
	start := d.i
	for d.i < len(d.s) && strings.IndexByte("0123456789+-.eExXabcdefABCDEFinftyINFTYaA", d.s[d.i]) >= 0 {
		d.i++
	}
	text := d.s[start:d.i]
	f, err := parseLuaNumber(text)
	if err != nil {
		lower := strings.ToLower(strings.TrimLeft(text, "+-"))
		switch {
		case d.cfg.decodeInvalid && (lower == "inf" || lower == "infinity"):
			f = math.Inf(1)
			if strings.HasPrefix(text, "-") {
				f = math.Inf(-1)
			}
		case d.cfg.decodeInvalid && lower == "nan":
			f = math.NaN()
		default:
			d.fail(expected, "invalid number", start)
		}
	}
	return lua.LNumber(f)
}

// str reads a string token with its escapes; \u escapes become UTF-8.
func (d *cjsonDecoder) str() string {
	d.i++
	var b strings.Builder
	for {
		if d.i >= len(d.s) {
			d.fail("value", "unexpected end of string", d.i)
		}
		c := d.s[d.i]
		d.i++
		switch c {
		case '"':
			return b.String()
		case '\\':
			at := d.i - 1
			if d.i >= len(d.s) {
				d.fail("value", "invalid escape code", at)
			}
			e := d.s[d.i]
			d.i++
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := d.unicode()
				if !ok {
					d.fail("value", "invalid unicode escape code", at)
				}
				var buf [4]byte
				b.Write(buf[:utf8.EncodeRune(buf[:], r)])
			default:
				d.fail("value", "invalid escape code", at)
			}
		default:
			b.WriteByte(c)
		}
	}
}

// unicode reads the hex digits of a \u escape, and of the low surrogate
// that must follow a high one.
func (d *cjsonDecoder) unicode() (rune, bool) {
	hex4 := func() (rune, bool) {
		if d.i+4 > len(d.s) {
			return 0, false
		}
		n, err := strconv.ParseUint(d.s[d.i:d.i+4], 16, 16)
		if err != nil {
			return 0, false
		}
		d.i += 4
		return rune(n), true
	}
	r, ok := hex4()
	if !ok {
		return 0, false
	}
	switch {
	case r >= 0xdc00 && r <= 0xdfff:
		return 0, false
	case r >= 0xd800 && r <= 0xdbff:
		if !strings.HasPrefix(d.s[d.i:], `\u`) {
			return 0, false
		}
		d.i += 2
		lo, ok := hex4()
		if !ok || lo < 0xdc00 || lo > 0xdfff {
			return 0, false
		}
		return 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00), true
	}
	return r, true
}
