package it

import (
	"strings"
	"testing"
)

// Keyspace notifications of the sortedint commands, which no Redis has:
// SIADD publishes "siadd" and SIREM "sirem" (then "del" when it emptied
// the key), in the module class, and only when they changed something. A
// replica publishes the same for its master's writes, by the LogData
// record Basalt and Kvrocks both write (executor/batch_events.go).

var sortedIntNotifyCases = [][]string{
	{"SIADD", "k", "1", "2"},
	{"SIADD", "k", "2"},
	{"SIADD", "k", "3"},
	{"SIREM", "k", "1"},
	{"SIREM", "k", "9"},
	{"SIREM", "nokey", "9"},
	{"SIREM", "k", "2", "3"},
	{"SIADD", "t", "5"},
	{"EXPIRE", "t", "100"},
	{"SIADD", "t", "6"},
	{"DEL", "t"},
}

// sortedIntEvents are the events of sortedIntNotifyCases, command by
// command.
var sortedIntEvents = [][]string{
	{"__keyspace@0__:k new", "__keyevent@0__:new k", "__keyspace@0__:k siadd", "__keyevent@0__:siadd k"},
	nil,
	{"__keyspace@0__:k siadd", "__keyevent@0__:siadd k"},
	{"__keyspace@0__:k sirem", "__keyevent@0__:sirem k"},
	nil,
	nil,
	{"__keyspace@0__:k sirem", "__keyevent@0__:sirem k", "__keyspace@0__:k del", "__keyevent@0__:del k"},
	{"__keyspace@0__:t new", "__keyevent@0__:new t", "__keyspace@0__:t siadd", "__keyevent@0__:siadd t"},
	{"__keyspace@0__:t expire", "__keyevent@0__:expire t"},
	{"__keyspace@0__:t siadd", "__keyevent@0__:siadd t"},
	{"__keyspace@0__:t del", "__keyevent@0__:del t"},
}

// TestSortedIntNotify: the events a Basalt master publishes for the
// sortedint commands, and those its replica and a Basalt replica of a
// Kvrocks master publish for the same commands.
func TestSortedIntNotify(t *testing.T) {
	kvrocksBin(t)
	master := startBasalt(t, "--notify-keyspace-events", "KEAn")
	local := &replicaEvents{data: dial(t, master), sub: dial(t, master)}
	local.sub.do("PSUBSCRIBE", "__key*@*__:*")
	sides := []struct {
		name   string
		events *replicaEvents
	}{
		{"basalt master", local},
		{"replica of basalt", newReplicaEvents(t, newReplicaPair(t, "basalt", startBasalt(t), startBasalt(t)))},
		{"replica of kvrocks", newReplicaEvents(t, newReplicaPair(t, "kvrocks master", startKvrocks(t), startBasalt(t)))},
	}
	for i, args := range sortedIntNotifyCases {
		want := strings.Join(sortedIntEvents[i], "\n")
		for _, side := range sides {
			if got := strings.Join(side.events.run(t, args), "\n"); got != want {
				t.Errorf("%s: %v publishes\n%s\nwant\n%s", side.name, args, got, want)
			}
		}
	}
}
