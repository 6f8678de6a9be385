package commands

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// HELLO, AUTH, OBJECT and INFO replies, byte for byte.
func TestIntrospectionReplies(t *testing.T) {
	h := newFuzzHarness(t)
	hello2 := "*12\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$5\r\n4.0.0\r\n$5\r\nproto\r\n:2\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*-1\r\n"
	h.seed(t, false)
	// resp3-enabled is yes by default, as in Kvrocks 2.11: HELLO 3 switches.
	hello3 := "%6\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$5\r\n4.0.0\r\n$5\r\nproto\r\n:3\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n_\r\n"
	if got := h.do(t, "HELLO", "3"); got != hello3 {
		t.Errorf("HELLO 3 by default = %q, want %q", got, hello3)
	}
	if err := h.env.Config.Set("resp3-enabled", "no"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		call []string
		want string
	}{
		// resp3-enabled is no: HELLO 3 is answered in RESP2.
		{[]string{"HELLO"}, hello2},
		{[]string{"HELLO", "3"}, hello2},
		{[]string{"HELLO", "4"}, "-NOPROTO unsupported protocol version\r\n"},
		{[]string{"AUTH", "x"}, "-ERR Client sent AUTH, but no password is set\r\n"},
		{[]string{"SELECT", "7"}, "+OK\r\n"},
		{[]string{"SELECT", "x"}, "-ERR value is not an integer or out of range\r\n"},
		{[]string{"OBJECT", "ENCODING", "n"}, "$3\r\nint\r\n"},
		{[]string{"OBJECT", "ENCODING", "str"}, "$6\r\nembstr\r\n"},
		{[]string{"OBJECT", "ENCODING", "h"}, "$8\r\nlistpack\r\n"},
		{[]string{"OBJECT", "ENCODING", "z"}, "$8\r\nlistpack\r\n"},
		{[]string{"OBJECT", "ENCODING", "s"}, "$9\r\nhashtable\r\n"},
		{[]string{"OBJECT", "ENCODING", "l"}, "$9\r\nquicklist\r\n"},
		{[]string{"OBJECT", "ENCODING", "nosuch"}, "$-1\r\n"},
		{[]string{"OBJECT", "REFCOUNT", "n"}, ":2147483647\r\n"},
		{[]string{"OBJECT", "REFCOUNT", "str"}, ":1\r\n"},
		{[]string{"OBJECT", "FREQ", "nosuch"}, "$-1\r\n"},
		{[]string{"OBJECT", "ENCODING"}, "-ERR wrong number of arguments for 'object|encoding' command\r\n"},
		{[]string{"COMMAND", "GETKEYS", "object", "encoding", "k"}, "*1\r\n$1\r\nk\r\n"},
		{[]string{"COMMAND", "GETKEYS", "mset", "a", "1", "b", "2"}, "*2\r\n$1\r\na\r\n$1\r\nb\r\n"},
		{[]string{"COMMAND", "INFO", "nosuch"}, "*1\r\n*-1\r\n"},
		{[]string{"COMMAND", "LIST", "FILTERBY", "PATTERN", "config|g*"}, "*1\r\n$10\r\nconfig|get\r\n"},
	} {
		if got := h.do(t, tc.call...); got != tc.want {
			t.Errorf("%v = %q, want %q", tc.call, got, tc.want)
		}
	}
	// IDLETIME counts the whole seconds since the key's last access: 0
	// right after one, unless the machine stalled between the two
	// commands (a loaded CI runner once took over a second).
	start := time.Now()
	h.do(t, "GET", "str")
	got := h.do(t, "OBJECT", "IDLETIME", "str")
	if idle, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(got, ":"), "\r\n")); err != nil || idle < 0 || idle > int(time.Since(start).Seconds()) {
		t.Errorf("OBJECT IDLETIME right after a GET = %q, %v since it", got, time.Since(start))
	}
	if got := h.do(t, "OBJECT", "FREQ", "str"); !strings.HasPrefix(got, "-ERR An LFU maxmemory policy is not selected") {
		t.Errorf("OBJECT FREQ = %q", got)
	}
	// SADD s of integers only is an intset.
	h.do(t, "SADD", "ints", "1", "2", "3")
	if got := h.do(t, "OBJECT", "ENCODING", "ints"); got != "$6\r\nintset\r\n" {
		t.Errorf("OBJECT ENCODING of a set of integers = %q", got)
	}
	info := h.do(t, "INFO")
	for _, want := range []string{"# Commandstats\r\n", "total_error_replies:"} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO lacks %q", want)
		}
	}
	// Counted before it runs, as Kvrocks: INFO shows itself.
	if !strings.Contains(info, "cmdstat_info:calls=") || strings.Contains(info, "cmdstat_info:calls=0,") {
		t.Error("INFO does not count itself")
	}
	if strings.Contains(info, "# Errorstats") {
		t.Error("INFO alone shows errorstats")
	}
}
