package it

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestDebugDiff compares DEBUG PROTOCOL's test values and DEBUG's errors
// with redis-server's, byte for byte, in RESP2 and RESP3.
func TestDebugDiff(t *testing.T) {
	b, r := startBasalt(t), startRedis(t, "--enable-debug-command", "yes")
	cases := [][]string{{"DEBUG"}, {"DEBUG", "NOSUCH"}, {"DEBUG", "SLEEP"}, {"DEBUG", "SLEEP", "0"},
		{"DEBUG", "SLEEP", "x"}, {"DEBUG", "SLEEP", "-1"}, {"DEBUG", "SET-ACTIVE-EXPIRE", "1"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "100"}, {"DEBUG", "PROTOCOL"}, {"DEBUG", "PROTOCOL", "nosuch"}}
	for _, ty := range []string{"string", "integer", "double", "bignum", "null", "array", "set", "map", "attrib", "push", "verbatim", "true", "false", "STRING"} {
		cases = append(cases, []string{"DEBUG", "PROTOCOL", ty})
	}
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			p := newBitsPair(t, b, r, proto)
			for _, c := range cases {
				got := p.same(c...)
				// A push comes with a real reply after it.
				if strings.HasPrefix(got, ">") {
					p.same("PING")
				}
			}
		})
	}
}

// TestDebugSleepAndDBSizeLimit: DEBUG SLEEP holds only its own connection,
// DEBUG DBSIZE-LIMIT 1 refuses writes that add data as max-db-size does,
// and DEBUG is an admin command.
func TestDebugSleepAndDBSizeLimit(t *testing.T) {
	p := startBasalt(t, "--requirepass", "adminpw", "--namespace.t1", "tok1")
	admin := dial(t, p)
	admin.do("AUTH", "adminpw")
	other := dial(t, p)
	other.do("AUTH", "adminpw")
	start := time.Now()
	admin.send("*3\r\n$5\r\nDEBUG\r\n$5\r\nSLEEP\r\n$3\r\n0.5\r\n")
	if got := other.do("PING"); got != "+PONG\r\n" {
		t.Errorf("PING during another connection's DEBUG SLEEP: %q", got)
	}
	if got := admin.reply(); got != "+OK\r\n" || time.Since(start) < 500*time.Millisecond {
		t.Errorf("DEBUG SLEEP 0.5: %q after %v", got, time.Since(start))
	}
	if got := admin.do("DEBUG", "DBSIZE-LIMIT", "1"); got != "+OK\r\n" {
		t.Fatalf("DEBUG DBSIZE-LIMIT 1: %q", got)
	}
	if got := admin.do("SET", "k", "v"); got != "-ERR write command not allowed when reached max-db-size.\r\n" {
		t.Errorf("SET past the forced limit: %q", got)
	}
	if got := admin.do("DEL", "k"); got != ":0\r\n" {
		t.Errorf("DEL past the forced limit: %q", got)
	}
	admin.do("DEBUG", "DBSIZE-LIMIT", "0")
	if got := admin.do("SET", "k", "v"); got != "+OK\r\n" {
		t.Errorf("SET after DBSIZE-LIMIT 0: %q", got)
	}
	if got := admin.do("DEBUG", "DBSIZE-LIMIT", "2"); got != "-ERR syntax error\r\n" {
		t.Errorf("DEBUG DBSIZE-LIMIT 2: %q", got)
	}
	tenant := dial(t, p)
	tenant.do("AUTH", "tok1")
	if got := tenant.do("DEBUG", "SLEEP", "0"); got != "-ERR admin permission required to perform the command\r\n" {
		t.Errorf("DEBUG from a tenant: %q", got)
	}
}
