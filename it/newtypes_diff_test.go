package it

import (
	"slices"
	"strings"
	"testing"
)

// The differential tests of Kvrocks's extension types (issue 40): corpora
// in the format of kvrocks_diff.txt, each with its differences file, run
// against the real Kvrocks and Basalt by the machinery of
// kvrocks_diff_test.go, every section twice: as written (RESP2 where the
// corpus does not say HELLO 3) and with every connection in RESP3.

// TestSortedIntDiff: the SI* commands (testdata/sortedint_diff.txt).
func TestSortedIntDiff(t *testing.T) {
	kvdRunFile(t, "sortedint_diff.txt", "sortedint_differences.txt", true)
}

// TestNewTypesKeysDiff: the key-level commands on sortedint, Bloom filter
// and JSON keys (testdata/newtypes_keys_diff.txt); the sections of a type
// whose commands Basalt lacks are skipped.
func TestNewTypesKeysDiff(t *testing.T) {
	kvdRunFile(t, "newtypes_keys_diff.txt", "newtypes_keys_differences.txt", true)
}

// basaltLacks asks a Basalt, once, which of the commands the sections
// need it does not know, and returns a function naming those of one
// section.
func basaltLacks(t *testing.T, sections []*kvdSection) func(s *kvdSection) []string {
	var needed []string
	for _, s := range sections {
		for _, c := range s.needs {
			if !slices.Contains(needed, strings.ToLower(c)) {
				needed = append(needed, strings.ToLower(c))
			}
		}
	}
	unknown := map[string]bool{}
	if len(needed) > 0 {
		b := &kvdServer{name: "basalt", p: kvdStart(t, false, nil, nil), conns: map[string]*kvdConn{}}
		r, err := b.conn(t, "main").do(append([]string{"COMMAND", "INFO"}, needed...))
		if err != nil || r.kind != '*' || len(r.elems) != len(needed) {
			t.Fatalf("COMMAND INFO %s: %v %v", strings.Join(needed, " "), r, err)
		}
		for i, e := range r.elems {
			unknown[needed[i]] = e.kind == '_'
		}
		b.p.Stop()
	}
	return func(s *kvdSection) []string {
		var out []string
		for _, c := range s.needs {
			if unknown[strings.ToLower(c)] {
				out = append(out, c)
			}
		}
		return out
	}
}

// kvdInRESP3 returns s with its servers' RESP3 enabled and every
// connection switched to RESP3 by a HELLO 3 before its first command, or
// after it when that is an AUTH, which HELLO needs first.
func kvdInRESP3(s *kvdSection) *kvdSection {
	out := *s
	if !slices.Contains(s.args, "--resp3-enabled") {
		out.args = append(slices.Clone(s.args), "--resp3-enabled", "yes")
	}
	out.steps = nil
	switched := map[string]bool{}
	for _, st := range s.steps {
		if st.args == nil || switched[st.conn] {
			out.steps = append(out.steps, st)
			continue
		}
		switched[st.conn] = true
		hello := kvdStep{line: "HELLO 3", file: st.file, lineN: st.lineN, conn: st.conn, mode: "exact", args: []string{"HELLO", "3"}}
		if strings.EqualFold(st.args[0], "auth") {
			out.steps = append(out.steps, st, hello)
		} else {
			out.steps = append(out.steps, hello, st)
		}
	}
	return &out
}
