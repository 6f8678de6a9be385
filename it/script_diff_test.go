package it

import (
	"fmt"
	"strings"
	"testing"
)

// TestScriptDiff runs testdata/script_diff.txt, a corpus of scripts and
// functions (conversions both ways, errors, pcall, the sandbox, cjson,
// cmsgpack, bit and struct, shebang flags, the script cache, libraries),
// on redis-server 7.0 and on Basalt, in RESP2 and RESP3: the raw replies
// must be the same bytes.
func TestScriptDiff(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	cases := readCases(t, "testdata/script_diff.txt")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("cases/RESP%d", proto), func(t *testing.T) {
			p := newBitsPair(t, b, r, proto)
			kinds := map[byte]int{}
			// Every case runs, whatever failed before: each is a
			// script of its own.
			for _, args := range cases {
				got, want := p.basalt.do(args...), p.redis.do(args...)
				if got != want {
					t.Errorf("%q\nbasalt:       %q\nredis-server: %q", args, abbreviated(got), abbreviated(want))
				}
				kinds[want[0]]++
			}
			t.Logf("%d commands, same replies: %d errors, %d integers, %d strings, %d arrays, %d nulls",
				len(cases), kinds['-'], kinds[':'], kinds['$'], kinds['*'], kinds['_'])
		})
	}
}

// TestFunctionRestoreFromRedis restores into Basalt the libraries
// redis-server 7.0 dumps (its strings LZF-compressed), and the reverse:
// both then list the same libraries and run the same functions.
func TestFunctionRestoreFromRedis(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	p := newBitsPair(t, b, r, 2)
	for _, c := range [][]string{
		{"FUNCTION", "FLUSH"},
		{"FUNCTION", "LOAD", "#!lua name=alpha\nredis.register_function('a1', function(keys, args) return 'a1:' .. (args[1] or '') end)\n-- a comment long enough for redis-server to compress the code when it dumps it, repeated repeated repeated repeated"},
		{"FUNCTION", "LOAD", "#!lua name=beta\nredis.register_function{function_name='b1', callback=function() return 2 end, flags={'no-writes'}, description='two'}"},
	} {
		p.same(c...)
	}
	dump := p.redis.do("FUNCTION", "DUMP")
	payload := bulkPayload(t, dump)
	p.basalt.do("FUNCTION", "FLUSH")
	if got := p.basalt.do("FUNCTION", "RESTORE", payload); got != "+OK\r\n" {
		t.Fatalf("RESTORE of redis-server's dump: %q", got)
	}
	sameLibraries := func() {
		for _, name := range []string{"alpha", "beta"} {
			p.same("FUNCTION", "LIST", "LIBRARYNAME", name, "WITHCODE")
		}
	}
	sameLibraries()
	p.same("FCALL", "a1", "0", "x")
	p.same("FCALL_RO", "b1", "0")
	// Which of the colliding libraries the error names follows Redis's
	// hash table order.
	for _, policy := range [][]string{nil, {"APPEND"}} {
		args := append([]string{"FUNCTION", "RESTORE", payload}, policy...)
		for server, got := range map[string]string{"basalt": p.basalt.do(args...), "redis-server": p.redis.do(args...)} {
			if !strings.HasPrefix(got, "-ERR Library ") || !strings.HasSuffix(got, " already exists\r\n") {
				t.Errorf("%s: RESTORE %v over the same libraries: %q", server, policy, got)
			}
		}
	}
	p.same("FUNCTION", "RESTORE", payload, "REPLACE")
	p.same("FUNCTION", "RESTORE", payload, "FLUSH")
	p.same("FUNCTION", "RESTORE", payload[:len(payload)-1])
	// Basalt's dump restores into redis-server.
	ours := bulkPayload(t, p.basalt.do("FUNCTION", "DUMP"))
	p.redis.do("FUNCTION", "FLUSH")
	if got := p.redis.do("FUNCTION", "RESTORE", ours); got != "+OK\r\n" {
		t.Fatalf("redis-server's RESTORE of Basalt's dump: %q", got)
	}
	sameLibraries()
}

// bulkPayload returns the content of a raw bulk string reply.
func bulkPayload(t *testing.T, raw string) string {
	t.Helper()
	head, rest, ok := strings.Cut(raw, "\r\n")
	if !ok || !strings.HasPrefix(head, "$") || !strings.HasSuffix(rest, "\r\n") {
		t.Fatalf("not a bulk string: %q", raw)
	}
	return rest[:len(rest)-2]
}
