package it

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestTimeSeriesNamespaces: the label index is per namespace: a tenant's
// TS.QUERYINDEX, TS.MGET and TS.MRANGE never see another's series with
// the same labels.
func TestTimeSeriesNamespaces(t *testing.T) {
	p := startBasalt(t, "-c", writeConf(t, "requirepass admin", "namespace.a token-a", "namespace.b token-b"))
	defer p.Stop()
	clients := map[string]*redis.Client{"a": tenant(t, p, "token-a"), "b": tenant(t, p, "token-b"), "admin": tenant(t, p, "admin")}
	for name, c := range clients {
		for _, k := range []string{"s1", name + "-own"} {
			if err := c.Do(ctx, "TS.ADD", k, 1, 1, "LABELS", "kind", "metric").Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, c := range clients {
		got, err := c.Do(ctx, "TS.QUERYINDEX", "kind=metric").StringSlice()
		if want := []string{name + "-own", "s1"}; err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: TS.QUERYINDEX: %q %v, want %q", name, got, err, want)
		}
		rows, err := c.Do(ctx, "TS.MRANGE", "-", "+", "FILTER", "kind=metric").Slice()
		if err != nil || len(rows) != 2 {
			t.Errorf("%s: TS.MRANGE: %d rows %v", name, len(rows), err)
		}
	}
}

// TestTimeSeriesReplication: a replica follows a master's series, rules
// and label index; the master makes the index column family after the
// replica connected, and the replica makes its own to apply it.
func TestTimeSeriesReplication(t *testing.T) {
	m := startBasalt(t)
	defer m.Stop()
	r := startBasalt(t)
	defer r.Stop()
	mc, rc := m.client(t, 2), r.client(t, 2)
	slaveOf(t, rc, m)
	mc.Set(ctx, "before", "x", 0)
	waitCaughtUp(t, mc, rc)
	if err := rc.ConfigSet(ctx, "notify-keyspace-events", "Kd").Err(); err != nil {
		t.Fatal(err)
	}
	sub := rc.PSubscribe(ctx, "__keyspace@0__:src")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]any{
		{"TS.CREATE", "src", "LABELS", "host", "h1"},
		{"TS.CREATE", "dst", "LABELS", "host", "h1", "agg", "sum"},
		{"TS.CREATERULE", "src", "dst", "AGGREGATION", "sum", 10},
		{"TS.MADD", "src", 1, 1, "src", 5, 2, "src", 12, 3, "src", 25, 4},
		{"TS.ALTER", "src", "LABELS", "host", "h2"},
	} {
		if err := mc.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	waitCaughtUp(t, mc, rc)
	// The replica names a series's write by its LogData, the type's.
	if msg, err := sub.ReceiveTimeout(ctx, replWait); err != nil || !isMessage(msg, "ts.add") {
		t.Errorf("the replica's first event on src: %v %v", msg, err)
	}
	for _, q := range [][]any{
		{"TS.QUERYINDEX", "host=h1"}, {"TS.QUERYINDEX", "host=h2"},
		{"TS.RANGE", "dst", "-", "+"}, {"TS.RANGE", "src", "-", "+"}, {"TS.INFO", "dst"},
	} {
		want, err1 := mc.Do(ctx, q...).Result()
		got, err2 := rc.Do(ctx, q...).Result()
		if fmt.Sprint(got, err2) != fmt.Sprint(want, err1) {
			t.Errorf("%v: replica %v %v, master %v %v", q, got, err2, want, err1)
		}
	}
	if got := fmt.Sprint(rc.Do(ctx, "TS.RANGE", "dst", "-", "+").Val()); got != "[[0 3] [10 3]]" {
		t.Errorf("the rule's buckets on the replica: %s", got)
	}
}

// isMessage reports whether a pub/sub receipt is a message of payload.
func isMessage(msg any, payload string) bool {
	m, ok := msg.(*redis.Message)
	return ok && m.Payload == payload
}

// TestTimeSeriesCluster: in cluster mode the commands that find series
// by label are refused, as Kvrocks 2.15 refuses them, and the ones that
// name several keys refuse keys of several slots.
func TestTimeSeriesCluster(t *testing.T) {
	nodes, ids := clusterNodes(t, 1)
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-16383"}), 1)
	c := nodes[0].client(t, 2)
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"TS.CREATE", "{a}1", "LABELS", "l", "v"}, "OK"},
		{[]any{"TS.CREATE", "{a}2"}, "OK"},
		{[]any{"TS.CREATERULE", "{a}1", "{a}2", "AGGREGATION", "sum", 10}, "OK"},
		{[]any{"TS.CREATE", "b"}, "OK"},
		{[]any{"TS.CREATERULE", "{a}1", "b", "AGGREGATION", "sum", 10}, "CROSSSLOT Attempted to access keys that don't hash to the same slot"},
		{[]any{"TS.MADD", "{a}1", 1, 1, "b", 1, 1}, "CROSSSLOT Attempted to access keys that don't hash to the same slot"},
		{[]any{"TS.QUERYINDEX", "l=v"}, "ERR ts.queryindex is not supported in cluster mode"},
		{[]any{"TS.MGET", "FILTER", "l=v"}, "ERR ts.mget is not supported in cluster mode"},
		{[]any{"TS.MRANGE", "-", "+", "FILTER", "l=v"}, "ERR ts.mrange is not supported in cluster mode"},
	} {
		v, err := c.Do(ctx, tc.args...).Result()
		got := fmt.Sprint(v)
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%v: %s, want %s", tc.args, got, tc.want)
		}
	}
}

// TestTimeSeriesSlotMigration: a raw-key-value slot migration moves a
// series with its labels, its compaction rule and its destination's
// buckets, and its TTL; redis-command cannot recreate a series (Redis has
// no command for one), so that migration fails and the source keeps it.
func TestTimeSeriesSlotMigration(t *testing.T) {
	writes := [][]any{
		{"TS.CREATE", "{c}src", "RETENTION", 0, "LABELS", "kind", "temp"},
		{"TS.CREATE", "{c}sum"},
		{"TS.CREATERULE", "{c}src", "{c}sum", "AGGREGATION", "sum", 10},
		{"PEXPIRE", "{c}sum", 600000},
	}
	for i := 1; i <= 95; i++ {
		writes = append(writes, []any{"TS.ADD", "{c}src", i, i % 7})
	}
	read := func(c *redis.Client) string {
		var out []string
		for _, cmd := range [][]any{
			{"TS.RANGE", "{c}src", "-", "+"}, {"TS.RANGE", "{c}sum", "-", "+"},
			{"TS.INFO", "{c}src"}, {"TYPE", "{c}sum"},
		} {
			v, err := c.Do(ctx, cmd...).Result()
			out = append(out, fmt.Sprint(v, err))
		}
		ttl, err := c.PTTL(ctx, "{c}sum").Result()
		return strings.Join(append(out, fmt.Sprint(ttl > 500*time.Second, err)), " | ")
	}
	migrateTypedSlot(t, writes, read, func(t *testing.T, dc *redis.Client) {
		// The rule goes on feeding its destination there.
		must(t, dc.Do(ctx, "TS.ADD", "{c}src", 100, 1).Err())
		if got, err := dc.Do(ctx, "TS.RANGE", "{c}sum", 90, 90).Result(); err != nil || fmt.Sprint(got) != "[[90 16]]" {
			t.Errorf("the destination's last bucket: %v, %v", got, err)
		}
	})
}

// TestTimeSeriesRuleDestinationLocked: a source's write that closes a
// bucket writes the rule's destination under the destination's lock too,
// so a client writing the destination directly at the same time loses
// none of its samples to the source's write, nor the source any bucket;
// in a script and in MULTI too.
func TestTimeSeriesRuleDestinationLocked(t *testing.T) {
	const samples, batch = 2000, 50
	p := startBasalt(t)
	defer p.Stop()
	c := p.client(t, 2)
	for _, cmd := range [][]any{
		{"TS.CREATE", "src"},
		{"TS.CREATE", "dst"},
		// A bucket of 2 ms: each source sample (even timestamps) closes
		// the bucket of the one before.
		{"TS.CREATERULE", "src", "dst", "AGGREGATION", "sum", 2},
	} {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// The destination's own samples at odd timestamps, the source's at
	// even ones: both append to the destination's newest chunk.
	write := func(key string, first int64) error {
		wc := redis.NewClient(&redis.Options{Addr: p.Addr(), Protocol: 2, PoolSize: 1})
		defer wc.Close()
		for from := 0; from < samples; from += batch {
			pipe := wc.Pipeline()
			for i := from; i < from+batch; i++ {
				pipe.Do(ctx, "TS.ADD", key, first+2*int64(i), 1)
			}
			if _, err := pipe.Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make(chan error, 2)
	go func() { errs <- write("src", 0) }()
	go func() { errs <- write("dst", 1) }()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// A script's and a transaction's samples close buckets too (the
	// script's write joins its queue's joint, which locks the
	// destination with the source).
	if err := c.Eval(ctx, "return redis.call('TS.ADD', KEYS[1], ARGV[1], 1)", []string{"src"}, 2*samples).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.Do(ctx, "TS.ADD", "src", 2*samples+2, 1)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, err := c.Do(ctx, "TS.RANGE", "dst", "-", "+").Slice()
	if err != nil {
		t.Fatal(err)
	}
	// Every direct sample, and every bucket but the open one.
	if want := 2*samples + 1; len(got) != want {
		t.Errorf("dst holds %d samples, want %d", len(got), want)
	}
	info, err := c.Do(ctx, "TS.INFO", "dst").Slice()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(info); i += 2 {
		if info[i] == "totalSamples" && info[i+1] != int64(len(got)) {
			t.Errorf("TS.INFO dst totalSamples %v, TS.RANGE %d", info[i+1], len(got))
		}
	}
}

// TestTimeSeriesDestEvents: a sample that closes a rule's bucket
// publishes ts.add:dest on the destination, after the source's events,
// whichever command added it (REDIS-NEW.md §9.8); one that leaves the
// bucket open, and TS.DEL, publish nothing there.
func TestTimeSeriesDestEvents(t *testing.T) {
	p := startBasalt(t)
	defer p.Stop()
	c := p.client(t, 2)
	for _, cmd := range [][]any{
		{"CONFIG", "SET", "notify-keyspace-events", "KEA"},
		{"TS.CREATE", "src"}, {"TS.CREATE", "dst"},
		{"TS.CREATERULE", "src", "dst", "AGGREGATION", "sum", 10},
	} {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	sub := c.PSubscribe(ctx, "__keyspace@0__:*")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]any{
		{"TS.ADD", "src", 1, 1}, {"TS.ADD", "src", 12, 2}, {"TS.INCRBY", "src", 3, "TIMESTAMP", 25},
		{"TS.MADD", "src", 31, 1, "src", 32, 1}, {"TS.DEL", "src", 0, 100}, {"SET", "end", "x"},
	} {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	var got []string
	for len(got) == 0 || got[len(got)-1] != "end:set" {
		msg, err := sub.ReceiveTimeout(ctx, replWait)
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		if m, ok := msg.(*redis.Message); ok {
			got = append(got, strings.TrimPrefix(m.Channel, "__keyspace@0__:")+":"+m.Payload)
		}
	}
	want := []string{"src:ts.add", "src:ts.add", "dst:ts.add:dest", "src:ts.incrby", "dst:ts.add:dest",
		"src:ts.add", "src:ts.add", "dst:ts.add:dest", "src:ts.del", "end:set"} // TS.MADD's after all its samples' own
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("events\n got %q\nwant %q", got, want)
	}
}
