package it

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
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

// TestSlotMigrationSortedInt moves sortedint keys (one of 300 ids, more
// than one SIADD carries; one with a TTL; one emptied and made again,
// whose old ids the destination must not get) from one node to another,
// in both migration modes, Basalt to Basalt and across Basalt and
// Kvrocks both ways: the destination answers as the source did.
func TestSlotMigrationSortedInt(t *testing.T) {
	kvrocksBin(t)
	for _, pair := range [][2]string{{"basalt", "basalt"}, {"kvrocks", "basalt"}, {"basalt", "kvrocks"}} {
		for _, mode := range []string{"redis-command", "raw-key-value"} {
			t.Run(pair[0]+"-to-"+pair[1]+"/"+mode, func(t *testing.T) {
				args := []string{"--cluster-enabled", "yes", "--migrate-type", mode, "--migrate-speed", "0"}
				starter := map[string]func(testing.TB, ...string) *proc{"basalt": startBasalt, "kvrocks": startKvrocks}
				src, dst := starter[pair[0]](t, args...), starter[pair[1]](t, args...)
				text := shardIDs[0] + " 127.0.0.1 " + strconv.Itoa(src.Port) + " master - 0-8191\n" +
					shardIDs[1] + " 127.0.0.1 " + strconv.Itoa(dst.Port) + " master - 8192-16383\n"
				pushTopology(t, []*proc{src, dst}, text, 1)
				sc, dc := src.longClient(t, 2), dst.longClient(t, 2)
				big := []any{"SIADD", "{c}big", 0, uint64(math.MaxUint64), uint64(1) << 63}
				for i := 1; i < 298; i++ {
					big = append(big, i*7919)
				}
				for _, cmd := range [][]any{big,
					{"SIADD", "{c}ttl", 1, 2, 3}, {"PEXPIRE", "{c}ttl", 3600000},
					{"SIADD", "{c}re", 5, 6}, {"SIREM", "{c}re", 5, 6}, {"SIADD", "{c}re", 7},
				} {
					must(t, sc.Do(ctx, cmd...).Err())
				}
				keys := []string{"{c}big", "{c}ttl", "{c}re"}
				read := func(c *redis.Client) string {
					var out []string
					for _, k := range keys {
						ids, err := c.Do(ctx, "SIRANGEBYVALUE", k, "-inf", "+inf").StringSlice()
						card, err2 := c.Do(ctx, "SICARD", k).Int64()
						ttl, err3 := c.PTTL(ctx, k).Result()
						out = append(out, fmt.Sprintf("%s %d ids %v card %d ttl %v (%v %v %v)", k, len(ids), ids, card, ttl > time.Minute, err, err2, err3))
					}
					return strings.Join(out, "\n")
				}
				want := read(sc)
				must(t, sc.Do(ctx, "CLUSTERX", "MIGRATE", "7365", shardIDs[1], "SYNC").Err())
				if got := read(dc); got != want {
					t.Errorf("on the destination:\n%s\nwant:\n%s", got, want)
				}
			})
		}
	}
}

// TestCompactDropsSortedIntIDs: COMPACT reclaims the id records of
// sortedints deleted, expired, emptied and made again (the old
// incarnation's), and keeps those of the live ones: RocksDB then holds
// exactly the live ids in the default column family.
func TestCompactDropsSortedIntIDs(t *testing.T) {
	c := startBasalt(t).longClient(t, 2)
	siadd := func(key string, from, to int) {
		args := []any{"SIADD", key}
		for id := from; id <= to; id++ {
			args = append(args, id)
		}
		must(t, c.Do(ctx, args...).Err())
	}
	siadd("live", 1, 100)
	siadd("deleted", 1, 1000)
	siadd("unlinked", 1, 1000)
	siadd("expiring", 1, 1000)
	siadd("emptied", 1, 10)
	siadd("remade", 1, 500)
	must(t, c.Del(ctx, "deleted").Err())
	must(t, c.Unlink(ctx, "unlinked").Err())
	must(t, c.PExpire(ctx, "expiring", 50*time.Millisecond).Err())
	must(t, c.Do(ctx, "SIREM", "emptied", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10).Err())
	must(t, c.Del(ctx, "remade").Err())
	siadd("remade", 7, 7)
	waitFor(t, time.Minute, "expiring expires", func() bool { return c.Exists(ctx, "expiring").Val() == 0 })
	must(t, c.Do(ctx, "COMPACT").Err())
	waitFor(t, time.Minute, "101 id records left", func() bool {
		return infoInt(t, c, "rocksdb", "estimate_keys[default]") == 101
	})
	if ids, err := c.Do(ctx, "SIRANGE", "live", 0, 0).StringSlice(); err != nil || len(ids) != 100 {
		t.Errorf("live after COMPACT: %d ids, %v", len(ids), err)
	}
	if ids, err := c.Do(ctx, "SIRANGE", "remade", 0, 0).StringSlice(); err != nil || strings.Join(ids, " ") != "7" {
		t.Errorf("remade after COMPACT: %v, %v", ids, err)
	}
}

// TestKvrocksDriftedSortedInt: Kvrocks counts an id named twice in one
// SIADD or SIREM twice, so its sizes drift from the ids held and wrap
// around below 0. Basalt opening such a directory answers as Kvrocks
// does for those keys, byte for byte (SICARD's unsigned size included),
// and its own writes to them keep the size at the top rather than
// wrapping it back.
func TestKvrocksDriftedSortedInt(t *testing.T) {
	kvrocksBin(t)
	dir, port := t.TempDir(), freePort(t)
	k := startKvrocksAt(t, dir, port)
	kc := dial(t, k)
	for _, cmd := range [][]string{
		{"SIADD", "wrapped", "5", "5", "6"}, {"SIREM", "wrapped", "5", "5"}, {"SIREM", "wrapped", "6", "6", "6"},
		{"SIADD", "inflated", "1", "1", "1", "2"},
	} {
		kc.do(cmd...)
	}
	reads := [][]string{
		{"SICARD", "wrapped"}, {"EXISTS", "wrapped"}, {"TYPE", "wrapped"}, {"SIRANGE", "wrapped", "0", "0"},
		{"SICARD", "inflated"}, {"SIRANGE", "inflated", "0", "0"}, {"SIEXISTS", "inflated", "1", "2", "3"},
	}
	var want []string
	for _, r := range reads {
		want = append(want, kc.do(r...))
	}
	if want[0] != ":18446744073709551614\r\n" {
		t.Fatalf("Kvrocks's SICARD of the wrapped key: %q", want[0])
	}
	stopClean(t, k)

	b := startBasaltAt(t, dir, port)
	bc := dial(t, b)
	for i, r := range reads {
		if got := bc.do(r...); got != want[i] {
			t.Errorf("%v: basalt %q, kvrocks %q", r, got, want[i])
		}
	}
	bc.do("SIADD", "wrapped", "7", "8", "9")
	if got := bc.do("SICARD", "wrapped"); got != ":18446744073709551615\r\n" {
		t.Errorf("SICARD after SIADD to the wrapped key: %q, want the top", got)
	}
}
