package storage

import (
	"errors"
	"testing"
)

// The digest test vectors of REDIS-NEW.md §2.1 (Redis's and fakeredis's
// tests, and the DIGEST page's example).
func TestDigestVectors(t *testing.T) {
	for value, want := range map[string]string{
		"hello":       "9555e8555c62dcfd",
		"":            "2d06800538d394c2",
		"123":         "404a763b3f4c8c9a",
		"v8":          "0cc76dbb41381419",
		"Hello world": "b6acb9d84a38ff74",
		"v8lf0c11xh8ymlqztfd3eeq16kfn4sspw7fqmnuuq3k3t75em5wdizgcdw7uc26nnf961u2jkfzkjytls2kwlj7626sd": "00006c38adf31777",
	} {
		if got := string(Digest([]byte(value))); got != want {
			t.Errorf("Digest(%q) = %s, want %s", value, got, want)
		}
	}
}

func TestConditionHolds(t *testing.T) {
	hello := "9555e8555c62dcfd"
	tests := []struct {
		kind  CondKind
		arg   string
		value string
		found bool
		want  bool
		err   error
	}{
		{CondIfEq, "hello", "hello", true, true, nil},
		{CondIfEq, "hello", "world", true, false, nil},
		{CondIfEq, "hello", "", false, false, nil},
		{CondIfNe, "hello", "hello", true, false, nil},
		{CondIfNe, "hello", "world", true, true, nil},
		{CondIfNe, "hello", "", false, true, nil},
		{CondIfDEq, hello, "hello", true, true, nil},
		{CondIfDEq, "9555E8555C62DCFD", "hello", true, true, nil}, // case ignored
		{CondIfDEq, hello, "world", true, false, nil},
		{CondIfDEq, "123", "", false, false, nil}, // not checked on a missing key
		{CondIfDNe, "123", "", false, true, nil},
		{CondIfDNe, hello, "hello", true, false, nil},
		{CondIfDNe, "zzzzzzzzzzzzzzzz", "hello", true, true, nil}, // 16 chars, no hex: never equal
		{CondIfDEq, "123", "hello", true, false, ErrDigestLength},
		{CondIfDNe, hello + "0", "hello", true, false, ErrDigestLength},
	}
	for _, tt := range tests {
		got, err := Condition{Kind: tt.kind, Value: []byte(tt.arg)}.holds([]byte(tt.value), tt.found)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("%d %q on %q (found %v): %v %v, want %v %v", tt.kind, tt.arg, tt.value, tt.found, got, err, tt.want, tt.err)
		}
	}
}

func TestMSetExAllOrNothing(t *testing.T) {
	db := newTestDB(t)
	if _, err := db.Set(b("a"), b("1"), SetArgs{Expire: nowMs() + 100000}); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.MSetEx([][]byte{b("b"), b("2"), b("a"), b("3")}, MSetExArgs{NX: true}); ok || err != nil {
		t.Fatalf("NX with a existing: %v %v", ok, err)
	}
	if _, found, _ := db.Get(b("b")); found {
		t.Fatal("NX wrote b")
	}
	if ok, err := db.MSetEx([][]byte{b("a"), b("4")}, MSetExArgs{XX: true, KeepTTL: true}); !ok || err != nil {
		t.Fatalf("XX KEEPTTL: %v %v", ok, err)
	}
	if at, _, _ := db.ExpireAt(b("a")); at <= 0 {
		t.Fatalf("KEEPTTL lost the TTL: %d", at)
	}
	if ok, _ := db.MSetEx([][]byte{b("a"), b("5")}, MSetExArgs{}); !ok {
		t.Fatal("plain MSETEX did not write")
	}
	if at, _, _ := db.ExpireAt(b("a")); at != 0 {
		t.Fatalf("MSETEX without an expiry kept the TTL: %d", at)
	}
}
