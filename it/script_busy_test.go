package it

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// TestScriptBusyDiff runs testdata/busy_diff.txt, clients around scripts
// that spin past busy-reply-threshold (MULTI/EXEC, WATCH, blocking
// commands, SCRIPT KILL and FUNCTION KILL), on Basalt and on
// redis-server 7.0, in RESP2 and RESP3: every reply must be the same
// bytes. Then SHUTDOWN NOSAVE stops both servers while a script that
// wrote spins.
func TestScriptBusyDiff(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	for _, p := range []*proc{b, r} {
		killScriptsAtCleanup(t, p)
	}
	steps := readCases(t, "testdata/busy_diff.txt")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			// One server at a time: one script spins at a time.
			got, want := runBusySteps(t, b, proto, steps), runBusySteps(t, r, proto, steps)
			for i, step := range steps {
				if got[i] != want[i] {
					from := max(0, i-8)
					var before []string
					for _, s := range steps[from:i] {
						before = append(before, strings.Join(s, " "))
					}
					t.Fatalf("%s\nbasalt:       %q\nredis-server: %q\nsteps before:\n%s", strings.Join(step, " "), got[i], want[i], strings.Join(before, "\n"))
				}
			}
		})
	}
	t.Run("SHUTDOWN NOSAVE", func(t *testing.T) {
		got, want := busyShutdown(t, b), busyShutdown(t, r)
		if got != want {
			t.Fatalf("basalt:       %q\nredis-server: %q", got, want)
		}
	})
}

// runBusySteps runs the steps on p with connections of protocol proto and
// returns the outcome of each.
func runBusySteps(t *testing.T, p *proc, proto int, steps [][]string) []string {
	t.Helper()
	conns := map[string]*rawConn{}
	conn := func(name string) *rawConn {
		if c := conns[name]; c != nil {
			return c
		}
		c := dial(t, p)
		if proto == 3 {
			c.do("HELLO", "3")
		}
		conns[name] = c
		return c
	}
	probe := dial(t, p)
	probe.do("FLUSHALL")
	out := make([]string, len(steps))
	for i, step := range steps {
		head, args := step[0], step[1:]
		name := head[:len(head)-1]
		switch {
		case head == "wait" && args[0] == "busy":
			waitFor(t, longTimeout, "a script to be busy", func() bool {
				return strings.HasPrefix(probe.do("PING"), "-BUSY ")
			})
		case head == "wait" && args[0] == "blocked":
			waitFor(t, longTimeout, args[1]+" clients blocked", func() bool {
				return strings.Contains(probe.do("INFO", "clients"), "\r\nblocked_clients:"+args[1]+"\r\n")
			})
		case strings.HasSuffix(head, ":"):
			out[i] = conn(name).do(args...)
		case strings.HasSuffix(head, ">"):
			conn(name).send(resp(args...))
		case strings.HasSuffix(head, "<"):
			out[i] = conn(name).reply()
		default:
			t.Fatalf("busy_diff.txt: no such step: %q", step)
		}
	}
	return out
}

// busyShutdown spins a script that wrote (SCRIPT KILL cannot stop it),
// tries SHUTDOWN without NOSAVE, then SHUTDOWN NOSAVE, and returns the
// replies, whether the connection closed without a reply, and the exit
// code.
func busyShutdown(t *testing.T, p *proc) string {
	spinner, c := dial(t, p), dial(t, p)
	spinner.send(resp("EVAL", "redis.call('set', 'k', 'v') while true do end", "0"))
	waitFor(t, longTimeout, "a script to be busy", func() bool {
		return strings.HasPrefix(c.do("PING"), "-BUSY ")
	})
	var out strings.Builder
	for _, args := range [][]string{{"SCRIPT", "KILL"}, {"SHUTDOWN"}, {"SHUTDOWN", "SAVE"}, {"SHUTDOWN", "ABORT"}} {
		out.WriteString(c.do(args...))
	}
	c.send(resp("SHUTDOWN", "NOSAVE"))
	fmt.Fprintf(&out, "closed without a reply: %v, exit code %d", c.closed(), p.Wait(longTimeout))
	return out.String()
}

// killScriptsAtCleanup stops, when the test ends, a script left spinning
// by a failure: a server does not stop on SIGTERM while a script is busy.
func killScriptsAtCleanup(t *testing.T, p *proc) {
	t.Cleanup(func() {
		c, err := net.DialTimeout("tcp", p.Addr(), time.Second)
		if err != nil {
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		c.Write([]byte(resp("SCRIPT", "KILL") + resp("FUNCTION", "KILL")))
		c.Read(make([]byte, 512))
	})
}

// TestScriptBusyLongReply: a command served beside a busy script holds no
// part of the command gate, so its reply is not sent in parts as it grows
// (that lets go of the gate meanwhile): FUNCTION STATS naming a function
// called with a 200 KB argument is answered whole, and the server runs
// every kind of command after the kill.
func TestScriptBusyLongReply(t *testing.T) {
	p := startBasalt(t, "--busy-reply-threshold", "100")
	killScriptsAtCleanup(t, p)
	c, spinner := dial(t, p), dial(t, p)
	if got := c.do("FUNCTION", "LOAD", "#!lua name=spin\nredis.register_function{function_name='spin', callback=function() while true do end end, flags={'no-writes'}}"); got != "$4\r\nspin\r\n" {
		t.Fatal(got)
	}
	big := strings.Repeat("x", 200<<10)
	spinner.send(resp("FCALL", "spin", "0", big))
	waitFor(t, longTimeout, "the function to be busy", func() bool {
		return strings.HasPrefix(c.do("PING"), "-BUSY ")
	})
	c.send(resp("FUNCTION", "STATS"))
	// A reply sent in part would then wait for the function to end.
	c.c.SetReadDeadline(time.Now().Add(time.Minute))
	var stats strings.Builder
	c.readValue(&stats)
	if got := stats.String(); !strings.Contains(got, "$5\r\nFCALL\r\n$4\r\nspin\r\n$1\r\n0\r\n$204800\r\n"+big+"\r\n") {
		t.Fatalf("FUNCTION STATS beside a busy function: %q", abbreviated(got))
	}
	if got := c.do("FUNCTION", "KILL"); got != "+OK\r\n" {
		t.Fatalf("FUNCTION KILL: %q", got)
	}
	if got := spinner.reply(); !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL...") {
		t.Fatalf("the killed function replied %q", got)
	}
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"SET", "k", "v"}, "+OK\r\n"},
		{[]string{"FLUSHALL"}, "+OK\r\n"},
		{[]string{"EVAL", "return 1", "0"}, ":1\r\n"},
		{[]string{"FUNCTION", "STATS"}, "*4\r\n$14\r\nrunning_script\r\n$-1\r\n"},
	} {
		if got := c.do(step.args...); !strings.HasPrefix(got, step.want) {
			t.Fatalf("%v after the kill: %q", step.args, got)
		}
	}
}
