package it

import (
	"strings"
	"testing"
)

// TestClientReplyDiff sends scripts of commands, each in one write, to
// redis-server and to Basalt, and compares every byte they answer up to a
// final PONG: CLIENT REPLY OFF silences what follows until ON, SKIP the
// next command only, and a bad mode is a syntax error.
func TestClientReplyDiff(t *testing.T) {
	b, r := startBasalt(t, "--resp3-enabled", "yes"), startRedis(t)
	scripts := [][]string{
		{"CLIENT REPLY OFF", "SET a 1", "GET a", "CLIENT REPLY ON", "GET a"},
		{"CLIENT REPLY SKIP", "SET b 2", "GET b"},
		{"CLIENT REPLY SKIP", "CLIENT REPLY SKIP", "GET b", "GET b"},
		{"CLIENT REPLY OFF", "CLIENT REPLY SKIP", "GET b", "CLIENT REPLY ON", "GET b"},
		{"CLIENT REPLY SKIP", "CLIENT REPLY ON", "GET b"},
		{"CLIENT REPLY OFF", "NOSUCHCOMMAND x", "GET", "INCR b x", "CLIENT REPLY ON", "INCR b"},
		{"CLIENT REPLY FOO", "CLIENT REPLY", "CLIENT REPLY ON EXTRA", "client reply skip", "ECHO skipped", "ECHO sent"},
		{"CLIENT REPLY SKIP", "BLPOP nolist 0.01", "ECHO after"},
		{"CLIENT REPLY OFF", "MULTI", "INCR c", "EXEC", "CLIENT REPLY ON", "GET c"},
		{"CLIENT REPLY OFF", "LRANGE nolist 0 -1", "CLIENT REPLY ON"},
		{"MULTI", "CLIENT REPLY ON", "EXEC"},
		// Pub/sub confirmations are pushes, which CLIENT REPLY does not
		// silence, to a client that never subscribed too.
		{"CLIENT REPLY OFF", "PUNSUBSCRIBE", "UNSUBSCRIBE", "SUNSUBSCRIBE x", "CLIENT REPLY ON"},
		{"CLIENT REPLY SKIP", "PUNSUBSCRIBE a b", "ECHO after"},
		{"HELLO 3", "CLIENT REPLY OFF", "PUNSUBSCRIBE", "UNSUBSCRIBE a", "CLIENT REPLY ON"},
		// RESET turns replies back on, and answers itself.
		{"CLIENT REPLY OFF", "RESET", "ECHO after"},
		{"CLIENT REPLY SKIP", "RESET", "ECHO after"},
	}
	for n, script := range scripts {
		var replies [2]string
		for i, p := range []*proc{b, r} {
			c := dial(t, p)
			c.send(strings.Join(append(script, "PING"), "\r\n") + "\r\n")
			if script[0] == "HELLO 3" {
				c.reply() // Kvrocks's HELLO, not Redis's
			}
			var all strings.Builder
			for {
				v := c.reply()
				all.WriteString(v)
				if v == "+PONG\r\n" {
					break
				}
			}
			replies[i] = all.String()
		}
		if replies[0] != replies[1] {
			t.Errorf("%q:\nbasalt:       %q\nredis-server: %q", script, replies[0], replies[1])
		}
		if want := "+OK\r\n$1\r\n1\r\n+PONG\r\n"; n == 0 && replies[0] != want {
			t.Errorf("%q: %q, want %q", script, replies[0], want)
		}
	}
}

// TestClientReplyInExec: where Redis leaves a hole in EXEC's array (CLIENT
// REPLY SKIP queued in MULTI), Basalt answers OK in its place; SKIP still
// silences the command after EXEC, and OFF silences EXEC's whole reply.
func TestClientReplyInExec(t *testing.T) {
	c := dial(t, startBasalt(t))
	c.send("MULTI\r\nCLIENT REPLY SKIP\r\nEXEC\r\nECHO skipped\r\nMULTI\r\nCLIENT REPLY OFF\r\nEXEC\r\nCLIENT REPLY ON\r\nPING\r\n")
	var got []string
	for v := ""; v != "+PONG\r\n"; {
		v = c.reply()
		got = append(got, v)
	}
	want := []string{"+OK\r\n", "+QUEUED\r\n", "*1\r\n+OK\r\n", "+OK\r\n", "+QUEUED\r\n", "+OK\r\n", "+PONG\r\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}
