package glob

import "testing"

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		nocase     bool
		want       bool
	}{
		{"*", "", false, true},
		{"*", "anything", false, true},
		{"h?llo", "hello", false, true},
		{"h?llo", "hllo", false, false},
		{"h*llo", "heeeello", false, true},
		{"h[ae]llo", "hallo", false, true},
		{"h[ae]llo", "hillo", false, false},
		{"h[^e]llo", "hallo", false, true},
		{"h[^e]llo", "hello", false, false},
		{"h[a-b]llo", "hbllo", false, true},
		{"h[b-a]llo", "hallo", false, true},
		{"h\\*llo", "h*llo", false, true},
		{"h\\*llo", "hello", false, false},
		{"user:*", "user:1", false, true},
		{"user:*", "USER:1", false, false},
		{"user:*", "USER:1", true, true},
		{"max*", "maxclients", true, true},
		{"a*b*c", "aXXbYYc", false, true},
		{"a*b*c", "aXXbYY", false, false},
		{"[abc", "a", false, true},
		{"\xff*", "\xff\x00", false, true},
	}
	for _, tt := range tests {
		if got := Match([]byte(tt.pattern), []byte(tt.s), tt.nocase); got != tt.want {
			t.Errorf("Match(%q, %q, %v) = %v, want %v", tt.pattern, tt.s, tt.nocase, got, tt.want)
		}
	}
}

func TestDeepStarsTerminate(t *testing.T) {
	p := []byte{}
	for i := 0; i < 50; i++ {
		p = append(p, "a*"...)
	}
	s := make([]byte, 60)
	for i := range s {
		s[i] = 'a'
	}
	s = append(s, 'b')
	if Match(append(p, 'c'), s, false) {
		t.Fatal("unexpected match")
	}
}

func TestLiteralPrefix(t *testing.T) {
	for pattern, want := range map[string]string{"user:*": "user:", "abc": "abc", "*": "", "a\\*b*": "a*b", "x?": "x", "[a]": ""} {
		if got := string(LiteralPrefix([]byte(pattern))); got != want {
			t.Errorf("LiteralPrefix(%q) = %q, want %q", pattern, got, want)
		}
	}
	if !IsLiteral([]byte("a\\*b")) || IsLiteral([]byte("a*")) {
		t.Fatal("IsLiteral wrong")
	}
}
