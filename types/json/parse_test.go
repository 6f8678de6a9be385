package json

import "testing"

// The texts and what Kvrocks 5fccd57 (jsoncons) made of them: the JSON it
// stores, or the error after "ERR Invalid argument: ".
var parseCases = []struct{ in, want string }{
	{`{"b":1,"a":[2.0,3],"c":{"z":null,"y":true,"x":"s"}}`, `{"a":[2.0,3],"b":1,"c":{"x":"s","y":true,"z":null}}`},
	{`{"a":1,"a":2,"b":{"c":1,"c":[]}}`, `{"a":1,"b":{"c":1}}`},
	{`[0,-0,1,-1,2.0,-2.5,0.1,1.5,3.14159,1e5,1E5,1.0E+2,1e-5,1e-4,0.0001,0.00015,1e15,1e16,1e17,1e20,1e21,1e300,1e-300,1e400,-1e400,5e-324,1.7976931348623157e308,0.30000000000000004,123456789.123456789,-0.0,0e0,1234567890123456789.0]`,
		`[0,0,1,-1,2.0,-2.5,0.1,1.5,3.14159,100000.0,100000.0,100.0,1e-05,0.0001,0.0001,0.00015,1000000000000000.0,10000000000000000.0,1e+17,1e+20,1e+21,1e+300,1e-300,null,null,5e-324,1.7976931348623157e+308,0.30000000000000004,123456789.12345679,0.0,0.0,1.2345678901234568e+18]`},
	{`[9223372036854775807,-9223372036854775808,9223372036854775808,18446744073709551615,18446744073709551616,-9223372036854775809,123456789012345678901234567890]`,
		`[9223372036854775807,-9223372036854775808,9223372036854775808,18446744073709551615,"18446744073709551616","-9223372036854775809","123456789012345678901234567890"]`},
	{`[1.1,2.2,3.3,0.7,1e-7,1.5e-7,12345.6789,100.0,0.5,-0.25,6.02214076e23,1.602176634e-19,2.718281828459045,299792458.0,4.35,0.1e-3,7e22,9007199254740993]`,
		`[1.1,2.2,3.3,0.7,1e-07,1.5e-07,12345.6789,100.0,0.5,-0.25,6.02214076e+23,1.602176634e-19,2.718281828459045,299792458.0,4.35,0.0001,7e+22,9007199254740993]`},
	{`"h\u00e9llo \ud83d\ude00 \t\n\r\b\f \" \\ \/ \u0001 \u001f \u007f \u2028"`, "\"h\u00e9llo \U0001F600 \\t\\n\\r\\b\\f \\\" \\\\ / \\u0001 \\u001F \\u007F \u2028\""},
	{`"\uD83D\u0041"`, "\"\U0001F441\""},
	{"\xef\xbb\xbf[2]", `[2]`},
	{`[/*c*/1]`, `[1]`},
	{"// c\n1", `1`},
	{"[1.5E3,2e-3,-0.0e0,1E400,-1e-400]", `[1500.0,0.002,0.0,null,0.0]`},
	{`{a}`, `Expected object member key at line 1 and column 2`},
	{`{"a":1,}`, `Extra comma at line 1 and column 8`},
	{`[1,2`, `Unexpected end of file at line 1 and column 5`},
	{``, `Failed to parse json string: Source error`},
	{`   `, `Failed to parse json string: Source error`},
	{`abc`, `JSON syntax_error at line 1 and column 1`},
	{`"x`, `Unexpected end of file at line 1 and column 3`},
	{`1 2`, `Unexpected non-whitespace character after JSON text at line 1 and column 3`},
	{`{"a":1}}`, `Unexpected non-whitespace character after JSON text at line 1 and column 8`},
	{`nul`, `Unexpected end of file at line 1 and column 4`},
	{`[01]`, `A number cannot have a leading zero at line 1 and column 3`},
	{`-`, `Unexpected end of file at line 1 and column 2`},
	{`1.`, `Unexpected end of file at line 1 and column 3`},
	{`.5`, `JSON syntax_error at line 1 and column 1`},
	{`"\x"`, `Illegal escaped character in string at line 1 and column 3`},
	{`[1,]`, `Extra comma at line 1 and column 5`},
	{`{"a" 1}`, `Expected name separator ':' at line 1 and column 6`},
	{`true false`, `Unexpected non-whitespace character after JSON text at line 1 and column 5`},
	{`[1 2]`, `Expected comma or right bracket ']' at line 1 and column 4`},
	{`{"a":1 "b":2}`, `Expected comma or right brace '}' at line 1 and column 8`},
	{`{"a":}`, `Expected value at line 1 and column 6`},
	{`[}`, `Expected value at line 1 and column 2`},
	{`{]`, `Expected object member key at line 1 and column 2`},
	{`]`, `Unexpected right bracket ']' at line 1 and column 1`},
	{`}`, `Unexpected right brace '}' at line 1 and column 1`},
	{`[tru]`, `Invalid value at line 1 and column 2`},
	{`[nulll]`, `Expected comma or right bracket ']' at line 1 and column 6`},
	{`[1.e5]`, `Invalid number at line 1 and column 4`},
	{`[1e]`, `Expected value at line 1 and column 4`},
	{`[1e+]`, `Expected value at line 1 and column 5`},
	{`[-a]`, `Expected value at line 1 and column 3`},
	{`[0x10]`, `Invalid number at line 1 and column 3`},
	{`[1.5.5]`, `Invalid number at line 1 and column 5`},
	{`[-01]`, `A number cannot have a leading zero at line 1 and column 4`},
	{"[1,\n2,\n x]", `Expected value at line 3 and column 2`},
	{"[1,\n2,\n 3", `Unexpected end of file at line 3 and column 3`},
	{"[1,\r\n2,x]", `Expected value at line 2 and column 4`},
	{"[1,\r2,x]", `Expected value at line 2 and column 3`},
	{`"\ud800"`, `Invalid codepoint, expected another \u token to begin the second half of a codepoint surrogate pair. at line 1 and column 8`},
	{`"\u00zz"`, `Invalid codepoint, expected four hexadecimal digits. at line 1 and column 6`},
	{`"\uDC00\uD800"`, `Invalid codepoint, expected another \u token to begin the second half of a codepoint surrogate pair. at line 1 and column 14`},
	{"\"\x01\"", `Illegal control character in string at line 1 and column 3`},
	{"\"\xff\"", `Illegal codepoint (>= 0xd800 && <= 0xdfff) at line 1 and column 4`},
	{`[truefalse]`, `Expected comma or right bracket ']' at line 1 and column 6`},
	{`[1true]`, `Invalid number at line 1 and column 3`},
	{`[1]//x`, `Unexpected non-whitespace character after JSON text at line 1 and column 4`},
	{`true x`, `Unexpected non-whitespace character after JSON text at line 1 and column 5`},
	{`false,`, `Unexpected non-whitespace character after JSON text at line 1 and column 6`},
	{`[1] 2`, `Unexpected non-whitespace character after JSON text at line 1 and column 4`},
	{`1.5 2`, `Unexpected non-whitespace character after JSON text at line 1 and column 5`},
	{`-5 x`, `Unexpected non-whitespace character after JSON text at line 1 and column 4`},
	{`nulx`, `Invalid value at line 1 and column 1`},
	{`tx`, `Invalid value at line 1 and column 2`},
	{`[1,/*x*/]`, `Extra comma at line 1 and column 10`},
	{`/*a*/1/*b*/`, `Unexpected non-whitespace character after JSON text at line 1 and column 8`},
	{`[1,/x]`, `JSON syntax_error at line 1 and column 5`},
	{`/*`, `Unexpected end of file at line 1 and column 3`},
	{`["\u12`, `Unexpected end of file at line 1 and column 7`},
	{`{"a":1,`, `Unexpected end of file at line 1 and column 8`},
	{`tr`, `Unexpected end of file at line 1 and column 3`},
	{`1e`, `Unexpected end of file at line 1 and column 3`},
}

func TestParseAsKvrocks(t *testing.T) {
	for _, c := range parseCases {
		v, err := Parse([]byte(c.in), DefaultMaxDepth)
		got := ""
		if err != nil {
			got = ErrorText(err)
		} else {
			got = string(Text(v))
		}
		if got != c.want {
			t.Errorf("Parse(%q) = %s, Kvrocks: %s", c.in, got, c.want)
		}
	}
}

func TestParseDepth(t *testing.T) {
	cases := []struct {
		in    string
		depth int
		want  string
	}{
		{`[[[1]]]`, 3, `[[[1]]]`},
		{`[[[[1]]]]`, 3, `Data item nesting exceeds limit in options at line 1 and column 5`},
		{`{"a":{"b":{"c":{}}}}`, 3, `Data item nesting exceeds limit in options at line 1 and column 17`},
		{`1`, 0, `1`},
		{`[]`, 0, `Data item nesting exceeds limit in options at line 1 and column 2`},
	}
	for _, c := range cases {
		v, err := Parse([]byte(c.in), c.depth)
		got := ""
		if err != nil {
			got = ErrorText(err)
		} else {
			got = string(Text(v))
		}
		if got != c.want {
			t.Errorf("Parse(%q, %d) = %s, Kvrocks: %s", c.in, c.depth, got, c.want)
		}
	}
}
