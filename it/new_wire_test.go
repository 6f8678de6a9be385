package it

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The corpora of the commands Redis 7.4-8.4 added (testdata/*_new_wire.txt):
// redis-server 7.0, the local oracle, knows none of them, so each case
// carries the exact RESP2 and RESP3 bytes Redis 8.4 answers, taken from
// REDIS-NEW.md (the section is cited above each group in the file), and
// the keyspace events it publishes. The syntax is in each file's header:
//
//	COMMAND args<TAB>"RESP2 reply"[<TAB>"RESP3 reply"]
//	> event:key [event:key ...]
//
// Words are kvdSplit's (runs of non-blanks, or "Go quoted"). The replies
// are Go-quoted bytes, where <n> stands for any decimal digits (an idle
// time). The ">" line lists the __keyevent@0__ messages the command
// publishes with notify-keyspace-events KEA, in order; a case without one
// publishes none. The file is one script, replayed from an empty database
// once on a RESP2 connection and once on a RESP3 one.

// wireCase is one command of a corpus and what it must answer and publish.
type wireCase struct {
	line         int
	args         []string
	resp2, resp3 *wireReply
	events       []string
}

// wireReply is an expected reply: its bytes exactly, or, when it holds
// <n>, a pattern where <n> is any digits.
type wireReply struct {
	bytes   string
	pattern *regexp.Regexp
}

func parseWireReply(quoted string) (*wireReply, error) {
	s, err := strconv.Unquote(quoted)
	if err != nil || !strings.Contains(s, "<n>") {
		return &wireReply{bytes: s}, err
	}
	// Digits are the only bytes such a reply varies in; the rest of it is
	// text (replies with other bytes say them exactly).
	re, err := regexp.Compile("^" + strings.ReplaceAll(regexp.QuoteMeta(s), "<n>", `\d+`) + "$")
	return &wireReply{bytes: s, pattern: re}, err
}

func (w *wireReply) matches(reply string) bool {
	if w.pattern != nil {
		return w.pattern.MatchString(reply)
	}
	return reply == w.bytes
}

func readWireCases(t *testing.T, path string) []*wireCase {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	var cases []*wireCase
	for n, line := range strings.Split(string(data), "\n") {
		where := fmt.Sprintf("%s:%d", path, n+1)
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, ">"):
			if len(cases) == 0 || cases[len(cases)-1].events != nil {
				t.Fatalf("%s: events without their command", where)
			}
			cases[len(cases)-1].events = strings.Fields(line[1:])
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 2 && len(fields) != 3 {
			t.Fatalf("%s: %d tab-separated fields", where, len(fields))
		}
		c := &wireCase{line: n + 1}
		if c.args, err = kvdSplit(fields[0]); err != nil || len(c.args) == 0 {
			t.Fatalf("%s: command: %v", where, err)
		}
		if c.resp2, err = parseWireReply(fields[1]); err != nil {
			t.Fatalf("%s: RESP2 reply: %v", where, err)
		}
		c.resp3 = c.resp2
		if len(fields) == 3 {
			if c.resp3, err = parseWireReply(fields[2]); err != nil {
				t.Fatalf("%s: RESP3 reply: %v", where, err)
			}
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatalf("%s: no cases", path)
	}
	return cases
}

// keyEvents returns the __keyevent@ messages among a subscriber's raw
// pmessages, as event:key.
func keyEvents(messages []string) []string {
	out := []string{}
	for _, m := range messages {
		// *4 $8 pmessage $n pattern $n channel $n message (RESP3: >4).
		parts := strings.Split(m, "\r\n")
		if len(parts) < 9 || !strings.HasPrefix(parts[6], "__keyevent@") {
			continue
		}
		_, event, _ := strings.Cut(parts[6], "__:")
		out = append(out, event+":"+parts[8])
	}
	return out
}

// runWireCorpus replays a corpus on p in RESP2 and RESP3, each from an
// empty database, checking every reply and the events of every command.
func runWireCorpus(t *testing.T, p *proc, path string) {
	cases := readWireCases(t, path)
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			side := newNotifySide(t, "basalt", p, proto, "KEA")
			for _, c := range cases {
				reply, messages := side.run(c.args, false)
				want := c.resp2
				if proto == 3 {
					want = c.resp3
				}
				if !want.matches(reply) {
					t.Errorf("%s:%d %q:\n got  %q\n want %q", path, c.line, c.args, reply, want.bytes)
				}
				if got := keyEvents(messages); strings.Join(got, " ") != strings.Join(c.events, " ") {
					t.Errorf("%s:%d %q: events %q, want %q", path, c.line, c.args, got, c.events)
				}
			}
			t.Logf("%d cases", len(cases))
		})
	}
}

// replayWireCorpus replays a corpus on p in RESP2 and RESP3, each from an
// empty database, checking every reply but not the events (for corpora
// whose commands' events other tests check).
func replayWireCorpus(t *testing.T, p *proc, path string) {
	cases := readWireCases(t, path)
	for _, proto := range []int{2, 3} {
		r := dial(t, p)
		if proto == 3 {
			r.do("HELLO", "3")
		}
		if got := r.do("FLUSHALL"); got != "+OK\r\n" {
			t.Fatalf("FLUSHALL: %q", got)
		}
		for _, c := range cases {
			want := c.resp2
			if proto == 3 {
				want = c.resp3
			}
			if got := r.do(c.args...); !want.matches(got) {
				t.Errorf("%s:%d RESP%d %q:\n got  %q\n want %q", path, c.line, proto, c.args, got, want.bytes)
			}
		}
	}
}

// TestStringsNewWire: DIGEST, SET's conditions, DELEX and MSETEX.
func TestStringsNewWire(t *testing.T) {
	runWireCorpus(t, startBasalt(t), "testdata/strings_new_wire.txt")
}

// TestBitOpNewWire: BITOP DIFF, DIFF1, ANDOR and ONE.
func TestBitOpNewWire(t *testing.T) {
	runWireCorpus(t, startBasalt(t), "testdata/bitop_new_wire.txt")
}

// TestStreamNewWire: XDELEX, XACKDEL and XREADGROUP ... CLAIM.
func TestStreamNewWire(t *testing.T) {
	runWireCorpus(t, startBasalt(t), "testdata/stream_new_wire.txt")
}

// clusterSlotStatsNode starts a cluster node serving slots 0-5 and
// 10-16383, beside a node (not started) serving 6-9.
func clusterSlotStatsNode(t *testing.T) *proc {
	nodes, ids := clusterNodes(t, 1)
	text := mastersText(nodes, ids, []string{"0-5 10-16383"}) + strings.Repeat("b", 40) + " 127.0.0.1 1 master - 6-9\n"
	pushTopology(t, nodes, text, 1)
	return nodes[0]
}

// TestClusterSlotStatsWire: CLUSTER SLOT-STATS.
func TestClusterSlotStatsWire(t *testing.T) {
	runWireCorpus(t, clusterSlotStatsNode(t), "testdata/cluster_new_wire.txt")
}
