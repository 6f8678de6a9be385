package commands

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basaltdb/basalt/executor"
)

// do runs one command as a fresh RESP2 client and returns its reply.
func (h *fuzzHarness) do(t *testing.T, call ...string) string {
	t.Helper()
	cl := h.client()
	defer h.env.Disconnected(cl.Session)
	h.env.Dispatch(cl.Ctx, args(call...))
	if logged := h.logs.take(); len(logged) > 0 {
		t.Fatalf("%q logged:\n%s", call, strings.Join(logged, "\n"))
	}
	return string(cl.W.Bytes())
}

// Counts, indexes, offsets and times from the network at and beyond the
// int64 limits get Redis 7.0's reply (Basalt's own where noted), and
// nothing is sized by them. The harness's proto-max-bulk-len is 1 MB.
func TestBadInputReplies(t *testing.T) {
	h := newFuzzHarness(t)
	const (
		lmax = "9223372036854775807"
		lmin = "-9223372036854775808"
		over = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	)
	tests := []struct {
		call []string
		want string // the reply, or its start when it ends with "..."
	}{
		// Redis 7.0 refuses beyond ±LONG_MAX/2 only with WITHVALUES and
		// WITHSCORES, and otherwise tries to produce the reply; Basalt
		// refuses it always.
		{[]string{"srandmember", "s", lmin}, "-" + over + "\r\n"},
		{[]string{"srandmember", "s", "4611686018427387904"}, "-ERR value is out of range\r\n"},
		{[]string{"srandmember", "s", "-4611686018427387904"}, "-ERR value is out of range\r\n"},
		{[]string{"srandmember", "missing", lmax}, "-ERR value is out of range\r\n"},
		{[]string{"srandmember", "s", "4611686018427387903"}, "*3\r\n..."},
		{[]string{"srandmember", "s", "4611686018427387903", "x"}, "-ERR syntax error\r\n"},
		{[]string{"srandmember", "missing", "-5"}, "*0\r\n"},
		{[]string{"srandmember", "empty"}, "$0\r\n\r\n"}, // a member that is the empty string
		{[]string{"srandmember", "missing"}, "$-1\r\n"},
		{[]string{"srandmember", "str", "0"}, "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{[]string{"srandmember", "s", "x"}, "-ERR value is not an integer or out of range\r\n"},
		{[]string{"hrandfield", "h", "-4611686018427387904"}, "-ERR value is out of range\r\n"},
		{[]string{"hrandfield", "h", "4611686018427387904", "withvalues"}, "-ERR value is out of range\r\n"},
		{[]string{"hrandfield", "h", "4611686018427387904", "foo"}, "-ERR syntax error\r\n"},
		{[]string{"hrandfield", "h", lmin, "foo"}, "-" + over + "\r\n"},
		{[]string{"hrandfield", "h", "-2", "withvalues"}, "*4\r\n..."},
		{[]string{"zrandmember", "z", lmax, "withscores"}, "-ERR value is out of range\r\n"},
		{[]string{"zrandmember", "z", "-4611686018427387904"}, "-ERR value is out of range\r\n"},
		{[]string{"zrandmember", "z", lmin}, "-" + over + "\r\n"},
		{[]string{"zrandmember", "z", "4611686018427387903", "withscores"}, "*10\r\n..."},

		{[]string{"lrange", "l", lmin, lmax}, "*5\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\na\r\n$1\r\nb\r\n"},
		{[]string{"lrange", "l", lmax, lmin}, "*0\r\n"},
		{[]string{"lrange", "l", lmin, lmin}, "*0\r\n"},
		{[]string{"lindex", "l", lmin}, "$-1\r\n"},
		{[]string{"lindex", "l", lmax}, "$-1\r\n"},
		{[]string{"lset", "l", lmax, "x"}, "-ERR index out of range\r\n"},
		{[]string{"lset", "l", lmin, "x"}, "-ERR index out of range\r\n"},
		{[]string{"ltrim", "l", lmin, lmax}, "+OK\r\n"},
		// Redis 7.0 negates LONG_MIN (undefined behaviour); 7.2's error.
		{[]string{"lpos", "l", "a", "rank", lmin}, "-" + over + "\r\n"},
		{[]string{"lpos", "l", "a", "rank", "-1", "count", lmax, "maxlen", lmax}, "*2\r\n:3\r\n:0\r\n"},
		{[]string{"lpos", "l", "a", "rank", "-9223372036854775807", "count", "0"}, "*0\r\n"},
		{[]string{"lpos", "l", "a", "count", "-1"}, "-ERR COUNT can't be negative\r\n"},
		{[]string{"lpos", "l", "a", "maxlen", lmin}, "-ERR MAXLEN can't be negative\r\n"},
		{[]string{"lpop", "l", "-1"}, "-ERR value is out of range, must be positive\r\n"},
		{[]string{"rpop", "l", lmin}, "-ERR value is out of range, must be positive\r\n"},
		{[]string{"lpop", "l", lmax}, "*5\r\n..."},
		{[]string{"lmpop", "1", "l", "left", "count", "0"}, "-ERR count should be greater than 0\r\n"},
		{[]string{"lmpop", lmax, "l", "left"}, "-ERR syntax error\r\n"},
		{[]string{"lmpop", lmin, "l", "left"}, "-ERR numkeys should be greater than 0\r\n"},
		{[]string{"lrem", "l", lmin, "a"}, ":2\r\n"},

		{[]string{"zrange", "z", lmin, lmax}, "*5\r\n..."},
		{[]string{"zrange", "z", "-inf", "+inf", "byscore", "limit", lmax, lmax}, "*0\r\n"},
		{[]string{"zrange", "z", "-inf", "+inf", "byscore", "limit", "3", lmin}, "*2\r\n$1\r\nc\r\n$1\r\ne\r\n"},
		{[]string{"zrange", "z", "-inf", "+inf", "byscore", "limit", lmin, "1"}, "*0\r\n"},
		{[]string{"zrangebylex", "z", "-", "+", "limit", lmax, "1"}, "*0\r\n"},
		{[]string{"zrangestore", "dst", "z", lmin, lmax}, ":5\r\n"},
		{[]string{"zremrangebyrank", "z", lmax, lmin}, ":0\r\n"},
		{[]string{"zpopmin", "z", "-1"}, "-ERR value is out of range, must be positive\r\n"},
		{[]string{"zpopmax", "z", lmax}, "*10\r\n..."},
		{[]string{"zmpop", "1", "z", "min", "count", lmin}, "-ERR count should be greater than 0\r\n"},
		{[]string{"zintercard", "1", "z", "limit", "-1"}, "-ERR LIMIT can't be negative\r\n"},
		{[]string{"zintercard", "1", "z", "limit", lmax}, ":5\r\n"},
		{[]string{"zunion", lmax, "z"}, "-ERR syntax error\r\n"},
		{[]string{"sintercard", lmax, "s"}, "-ERR Number of keys can't be greater than number of args\r\n"},
		{[]string{"sintercard", "1", "s", "limit", lmax}, ":3\r\n"},
		{[]string{"spop", "s", lmin}, "-ERR value is out of range, must be positive\r\n"},
		{[]string{"spop", "s", lmax}, "*3\r\n..."},

		{[]string{"scan", "0", "count", "0"}, "-ERR syntax error\r\n"},
		{[]string{"scan", "0", "count", lmin}, "-ERR syntax error\r\n"},
		{[]string{"hscan", "h", "0", "count", lmax}, "*2\r\n$1\r\n0\r\n*6\r\n..."},
		{[]string{"sscan", "s", "18446744073709551616"}, "-ERR invalid cursor\r\n"},
		{[]string{"sscan", "s", "0", "count", lmax}, "*2\r\n$1\r\n0\r\n*3\r\n..."},
		{[]string{"zscan", "z", "0", "count", lmax}, "*2\r\n$1\r\n0\r\n*10\r\n..."},
		{[]string{"hscan", "h", "0", "count", lmax, "novalues"}, "*2\r\n$1\r\n0\r\n*3\r\n..."},

		{[]string{"getrange", "str", lmin, lmax}, "$11\r\nhello world\r\n"},
		{[]string{"getrange", "str", lmax, lmin}, "$0\r\n\r\n"},
		{[]string{"getrange", "str", lmin, lmin}, "$1\r\nh\r\n"},
		{[]string{"setrange", "str", lmax, "x"}, "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n"},
		{[]string{"setrange", "str", "1048575", "xy"}, "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n"},
		{[]string{"setrange", "str", "1048575", "x"}, ":1048576\r\n"},
		{[]string{"setrange", "str", lmin, "x"}, "-ERR offset is out of range\r\n"},
		{[]string{"setrange", "missing", lmax, ""}, ":0\r\n"},
		{[]string{"setrange", "l", lmax, "x"}, "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},

		// A pause longer than a Duration holds pauses (Redis 7.0 does too).
		{[]string{"client", "pause", lmax, "write"}, "+OK\r\n"},
		{[]string{"client", "unpause"}, "+OK\r\n"},
		{[]string{"client", "pause", "-1"}, "-ERR timeout is negative\r\n"},
		{[]string{"client", "kill", "user", "nosuch"}, "-ERR No such user 'nosuch'\r\n"},
		{[]string{"client", "kill", "type", "foo"}, "-ERR Unknown client type 'foo'\r\n"},
		{[]string{"client", "kill", "type", "pubsub"}, ":0\r\n"},
		{[]string{"client", "list", "type", "master"}, "$0\r\n\r\n"},
		{[]string{"client", "pause", "1", "foo"}, "-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n"},
		{[]string{"expire", "str", lmax}, "-ERR invalid expire time in 'expire' command\r\n"},
		{[]string{"expire", "str", "-9223372036854776"}, "-ERR invalid expire time in 'expire' command\r\n"},
		{[]string{"pexpire", "str", lmin}, ":1\r\n"},
		{[]string{"expireat", "str", "9223372036854776"}, "-ERR invalid expire time in 'expireat' command\r\n"},
		{[]string{"set", "str", "v", "ex", "9223372036854776"}, "-ERR invalid expire time in 'set' command\r\n"},
		{[]string{"set", "str", "v", "px", "0"}, "-ERR invalid expire time in 'set' command\r\n"},
		{[]string{"getex", "str", "exat", "9223372036854776"}, "-ERR invalid expire time in 'getex' command\r\n"},
		{[]string{"incrby", "n", lmax}, "-ERR increment or decrement would overflow\r\n"},
		{[]string{"incrby", "n", lmin}, ":-9223372036854775798\r\n"},
		{[]string{"decrby", "n", lmin}, "-ERR decrement would overflow\r\n"},
		{[]string{"hincrby", "h", "n", lmax}, "-ERR increment or decrement would overflow\r\n"},

		// RESTORE: a relative TTL that overflows wraps in Redis 7.0 and the
		// key expires at once; counts in a payload size nothing.
		{[]string{"restore", "new", lmax, "\x00\x05hello\n\x00cr\xdfve4 \n"}, "+OK\r\n"},
		{[]string{"restore", "new", lmin, "\x00\x05hello\n\x00cr\xdfve4 \n"}, "-ERR Invalid TTL value, must be >= 0\r\n"},
		{[]string{"restore", "new", "0", "x", "idletime", lmin}, "-ERR Invalid IDLETIME value, must be >= 0\r\n"},
		{[]string{"restore", "new", "0", "x", "freq", lmax}, "-ERR Invalid FREQ value, must be >= 0 and <= 255\r\n"},
		{[]string{"restore", "new", "0", "\x02\x81\xff\xff\xff\xff\xff\xff\xff\xff\x01a\x0a\x00\xc2\xbe;\xa8\x989~|"}, "-ERR Bad data format\r\n"},
		{[]string{"restore", "new", "0", "\x00\xc3\x01\x81\x00\x00\x00\x7f\xff\xff\xff\xff\x00\x0a\x00u\x10r\xcc\xce\x16\xdb\xf1"}, "-ERR Bad data format\r\n"},
		{[]string{"dump", "l"}, "$..."},

		{[]string{"lcs", "str", "str", "idx", "minmatchlen", lmin, "withmatchlen"}, "*4\r\n$7\r\nmatches\r\n*1\r\n..."},
		{[]string{"lcs", "str", "str", "minmatchlen", "x"}, "-ERR value is not an integer or out of range\r\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.call, " "), func(t *testing.T) {
			h.seed(t, false)
			h.do(t, "sadd", "empty", "")
			got := h.do(t, tt.call...)
			if want, prefix := strings.CutSuffix(tt.want, "..."); prefix {
				if !strings.HasPrefix(got, want) {
					t.Fatalf("reply %q, want %q...", executor.Abbreviate([]byte(got)), want)
				}
			} else if got != tt.want {
				t.Fatalf("reply %q, want %q", executor.Abbreviate([]byte(got)), tt.want)
			}
		})
	}
}

// LCS refuses a table larger than proto-max-bulk-len (1 MB here) before
// allocating it.
func TestLCSTableBound(t *testing.T) {
	h := newFuzzHarness(t)
	h.seed(t, false)
	a := strings.Repeat("ab", 300) // (601*601*4) bytes of table > 1 MB
	h.do(t, "set", "a", a)
	h.do(t, "set", "b", a[:200])
	if got := h.do(t, "lcs", "a", "a"); got != "-ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len\r\n" {
		t.Fatalf("LCS of two 600-byte strings: %q", executor.Abbreviate([]byte(got)))
	}
	if got := h.do(t, "lcs", "a", "b", "len"); got != ":200\r\n" {
		t.Fatalf("LCS a b LEN = %q", got)
	}
}

// A draw of a trillion elements goes out as it is produced, through the
// writer's spills, and ends when a spill fails (the client is gone or over
// its output limit), having held a bounded amount of memory.
func TestRandomCountStreamsAndStops(t *testing.T) {
	h := newFuzzHarness(t)
	tests := []struct {
		call   []string
		resp3  bool
		header string
	}{
		{[]string{"srandmember", "s", "-1099511627776"}, false, "*1099511627776\r\n$1\r\n"},
		{[]string{"srandmember", "big", "-1099511627776"}, false, "*1099511627776\r\n$"},
		{[]string{"hrandfield", "h", "-1099511627776", "withvalues"}, false, "*2199023255552\r\n$1\r\n"},
		{[]string{"hrandfield", "h", "-1099511627776", "withvalues"}, true, "*1099511627776\r\n*2\r\n$1\r\n"},
		{[]string{"zrandmember", "z", "-4611686018427387903", "withscores"}, false, "*9223372036854775806\r\n$1\r\n"},
		{[]string{"zrandmember", "z", "-4611686018427387903"}, true, "*4611686018427387903\r\n$1\r\n"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/resp3=%v", strings.Join(tt.call, " "), tt.resp3), func(t *testing.T) {
			h.seed(t, true)
			cl := h.client()
			defer h.env.Disconnected(cl.Session)
			if tt.resp3 {
				cl.setProtocol(3)
			}
			var first []byte
			sent, spills, largest := 0, 0, 0
			cl.W.SetSpill(64<<10, func(send bool) error {
				largest = max(largest, cl.W.Len())
				if !send {
					return nil
				}
				if sent > 4<<20 {
					return errors.New("client gone")
				}
				if first == nil {
					first = append([]byte(nil), cl.W.Bytes()...)
				}
				sent += cl.W.Len()
				spills++
				cl.W.Reset()
				return nil
			})
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			done := make(chan struct{})
			go func() {
				defer close(done)
				h.env.Dispatch(cl.Ctx, args(tt.call...))
			}()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("the draw did not stop when the client went away")
			}
			runtime.ReadMemStats(&after)
			if !cl.W.Failed() || spills < 60 {
				t.Fatalf("failed %v after %d spills", cl.W.Failed(), spills)
			}
			if !bytes.HasPrefix(first, []byte(tt.header)) {
				t.Fatalf("reply starts %q, want %q", executor.Abbreviate(first), tt.header)
			}
			if largest > 128<<10 || cl.W.Len() > 1<<10 {
				t.Fatalf("the writer held %d bytes before a spill, %d after the failure", largest, cl.W.Len())
			}
			if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 64<<20 {
				t.Fatalf("heap grew %d bytes", grew)
			}
			if logged := h.logs.take(); len(logged) > 0 {
				t.Fatalf("logged %v", logged)
			}
		})
	}
}

// A streamed draw of many chunks is one well-formed reply of exactly the
// announced number of elements.
func TestRandomCountStreamIsWellFormed(t *testing.T) {
	h := newFuzzHarness(t)
	h.seed(t, true)
	for _, call := range [][]string{
		{"srandmember", "big", "-100000"},
		{"srandmember", "big", "100000"},
		{"hrandfield", "h", "-5000", "withvalues"},
		{"zrandmember", "z", "-3000", "withscores"},
	} {
		cl := h.client()
		var out []byte
		cl.W.SetSpill(4<<10, func(send bool) error {
			if !send {
				return nil
			}
			out = append(out, cl.W.Bytes()...)
			cl.W.Reset()
			return nil
		})
		h.env.Dispatch(cl.Ctx, args(call...))
		out = append(out, cl.W.Bytes()...)
		h.env.Disconnected(cl.Session)
		n := respValueLen(out, 0)
		if n != len(out) {
			t.Fatalf("%v: a reply of %d bytes, %d of them well-formed", call, len(out), n)
		}
		want := map[string]string{"srandmember": "*100000\r\n", "hrandfield": "*10000\r\n", "zrandmember": "*6000\r\n"}[call[0]]
		if call[2] == "100000" {
			want = "*1100\r\n" // distinct: the whole set
		}
		if !bytes.HasPrefix(out, []byte(want)) {
			t.Fatalf("%v: reply starts %q, want %q", call, executor.Abbreviate(out), want)
		}
	}
}

// LRANGE and ZRANGE by rank know their length before the first element:
// a long range goes out while it is produced, as one well-formed reply.
func TestRangeRepliesStream(t *testing.T) {
	h := newFuzzHarness(t)
	h.seed(t, false)
	push, zadd := []string{"rpush", "long"}, []string{"zadd", "longz"}
	for i := 0; i < 20000; i++ {
		push = append(push, "element:"+strconv.Itoa(i))
		zadd = append(zadd, strconv.Itoa(i), "member:"+strconv.Itoa(i))
	}
	h.do(t, push...)
	h.do(t, zadd...)
	for _, tt := range []struct {
		call  []string
		resp3 bool
		head  string
	}{
		{[]string{"lrange", "long", "0", "-1"}, false, "*20000\r\n$9\r\nelement:0\r\n"},
		{[]string{"lrange", "long", "-9223372036854775808", "9223372036854775807"}, true, "*20000\r\n"},
		{[]string{"zrange", "longz", "0", "-1", "withscores"}, false, "*40000\r\n$8\r\nmember:0\r\n$1\r\n0\r\n"},
		{[]string{"zrange", "longz", "0", "-1", "withscores"}, true, "*20000\r\n*2\r\n$8\r\nmember:0\r\n,0\r\n"},
		{[]string{"zrevrange", "longz", "100", "9223372036854775807"}, false, "*19900\r\n$12\r\nmember:19899\r\n"},
		// By score the length is known only at the end: the reply is
		// held whole, and sent once complete.
		{[]string{"zrangebyscore", "longz", "-inf", "+inf"}, false, "*20000\r\n"},
	} {
		t.Run(fmt.Sprintf("%s/resp3=%v", strings.Join(tt.call, " "), tt.resp3), func(t *testing.T) {
			cl := h.client()
			defer h.env.Disconnected(cl.Session)
			if tt.resp3 {
				cl.setProtocol(3)
			}
			var out []byte
			sends := 0
			cl.W.SetSpill(4<<10, func(send bool) error {
				if send {
					sends++
					out = append(out, cl.W.Bytes()...)
					cl.W.Reset()
				}
				return nil
			})
			h.env.Dispatch(cl.Ctx, args(tt.call...))
			out = append(out, cl.W.Bytes()...)
			if n := respValueLen(out, 0); n != len(out) {
				t.Fatalf("a reply of %d bytes, %d of them well-formed", len(out), n)
			}
			if !bytes.HasPrefix(out, []byte(tt.head)) {
				t.Fatalf("reply starts %q, want %q", executor.Abbreviate(out), tt.head)
			}
			if streamed := sends > 10; streamed != (tt.call[0] != "zrangebyscore") {
				t.Fatalf("%d sends during the reply", sends)
			}
		})
	}
}

// A reply whose header is sent cannot be replaced by an error: when the
// walk behind it fails, the client loses its connection.
func TestReplyStreamCutShort(t *testing.T) {
	h := newFuzzHarness(t)
	cl := h.client()
	defer h.env.Disconnected(cl.Session)
	c := cl.Ctx
	c.Cmd = executor.Lookup([]byte("lrange"))
	out := newReplyStream(c, 1)
	out.begin(5)
	c.W.BulkString("a")
	out.wrote(1)
	out.end(errors.New("storage: the disk is on fire"))
	if logged := h.logs.take(); !cl.conn.closed.Load() || len(logged) != 1 || !strings.Contains(logged[0], "reply cut short") {
		t.Fatalf("killed %v, logged %q", cl.conn.closed.Load(), logged)
	}
	// Before the header, the error is the reply.
	cl.W.Reset()
	out = newReplyStream(c, 1)
	out.end(errors.New("storage: the disk is on fire"))
	h.logs.take()
	if got := string(cl.W.Bytes()); got != "-ERR storage: the disk is on fire\r\n" {
		t.Fatalf("reply %q", got)
	}
}

// CLIENT PAUSE with a timeout past what a Duration holds pauses rather
// than overflowing into a pause already over.
func TestClientPauseHugeTimeout(t *testing.T) {
	h := newFuzzHarness(t)
	if got := h.do(t, "client", "pause", "9223372036854775807", "write"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	if until, on := h.env.Sessions.Pause.Until(); !on || time.Until(until) < 100*365*24*time.Hour {
		t.Fatalf("paused %v, until %v", on, until)
	}
	h.do(t, "client", "unpause")
	if _, on := h.env.Sessions.Pause.Until(); on {
		t.Fatal("CLIENT UNPAUSE left the pause on")
	}
}
