package it

import (
	"strings"
	"testing"
)

// TestBloomKeyspaceEvents: a BF write publishes "new" for a filter it
// creates and then its own event, of the module class (d), on the
// filters it changed, and nothing when every item was there already; a
// replica publishes "new" and "bf.add" for each of its master's BF writes
// (its batch names the type only). RedisBloom publishes none of its own
// and Kvrocks 5fccd57 has no keyspace events: Basalt's choice, named as
// RedisJSON names its own.
func TestBloomKeyspaceEvents(t *testing.T) {
	p := newReplicaPair(t, "basalt", startBasalt(t), startBasalt(t))
	checkReplicaEvents(t, p, "Edn", []replicaEventCase{
		{[]string{"BF.RESERVE", "r", "0.01", "100"}, "new:r bf.reserve:r", "new:r bf.add:r"},
		{[]string{"BF.ADD", "r", "a"}, "bf.add:r", "bf.add:r"},
		{[]string{"BF.ADD", "r", "a"}, "", ""},
		{[]string{"BF.MADD", "m", "a", "b"}, "new:m bf.madd:m", "new:m bf.add:m"},
		{[]string{"BF.INSERT", "r", "ITEMS", "a", "c"}, "bf.insert:r", "bf.add:r"},
		{[]string{"BF.INSERT", "i", "NOCREATE", "ITEMS", "a"}, "", ""},
		{[]string{"BF.EXISTS", "r", "a"}, "", ""},
	})
}

// replicaEventCase is a command run on a master, and the keyspace
// events ("event:key ...") the master and its replica publish for it.
type replicaEventCase struct {
	args            []string
	master, replica string
}

// checkReplicaEvents runs each case on p's master, with notify-keyspace-events
// flags on both servers, and checks the events each publishes.
func checkReplicaEvents(t *testing.T, p *replicaPair, flags string, cases []replicaEventCase) {
	t.Helper()
	data := dial(t, p.master)
	subscribe := func(server *proc) *rawConn {
		if r := dial(t, server).do("CONFIG", "SET", "notify-keyspace-events", flags); r != "+OK\r\n" {
			t.Fatalf("CONFIG SET notify-keyspace-events: %q", r)
		}
		sub := dial(t, server)
		sub.do("PSUBSCRIBE", "__key*@*__:*")
		return sub
	}
	master, replica := subscribe(p.master), subscribe(p.replica)
	events := func(sub *rawConn) string {
		var out []string
		for {
			m := pubSubMessage(t, sub.reply())
			if strings.HasPrefix(m, notifyMark+" ") {
				return strings.Join(out, " ")
			}
			channel, key, _ := strings.Cut(m, " ")
			out = append(out, channel[strings.Index(channel, "__:")+3:]+":"+key)
		}
	}
	for _, c := range cases {
		data.do(c.args...)
		data.do("PUBLISH", notifyMark, "x")
		if got := events(master); got != c.master {
			t.Errorf("%v: the master publishes %q, want %q", c.args, got, c.master)
		}
		if got := events(replica); got != c.replica {
			t.Errorf("%v: the replica publishes %q, want %q", c.args, got, c.replica)
		}
	}
}
