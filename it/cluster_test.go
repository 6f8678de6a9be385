package it

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// clusterNodes starts n cluster-mode nodes with ids made of one repeated
// hex digit each.
func clusterNodes(t *testing.T, n int, extra ...string) ([]*proc, []string) {
	t.Helper()
	var nodes []*proc
	var ids []string
	for i := 0; i < n; i++ {
		nodes = append(nodes, startBasalt(t, append([]string{"--cluster-enabled", "yes"}, extra...)...))
		ids = append(ids, strings.Repeat(strconv.FormatInt(int64(10+i), 16), 40))
	}
	return nodes, ids
}

// mastersText is the SETNODES text of masters, one per node, with the
// slot ranges given for each ("" for none).
func mastersText(nodes []*proc, ids, ranges []string) string {
	var text strings.Builder
	for i, p := range nodes {
		text.WriteString(strings.TrimSpace(ids[i]+" 127.0.0.1 "+strconv.Itoa(p.Port)+" master - "+ranges[i]) + "\n")
	}
	return text.String()
}

// pushTopology sends SETNODES to every node.
func pushTopology(t *testing.T, nodes []*proc, text string, version int) {
	t.Helper()
	for _, p := range nodes {
		if err := p.client(t, 2).Do(ctx, "CLUSTERX", "SETNODES", text, version).Err(); err != nil {
			t.Fatalf("SETNODES to %s: %v", p.Addr(), err)
		}
	}
}

func TestClusterThreeNodes(t *testing.T) {
	t.Parallel()
	nodes, ids := clusterNodes(t, 3)
	first := nodes[0].client(t, 2)
	if err := first.Do(ctx, "CLUSTER", "INFO").Err(); err == nil || err.Error() != "CLUSTERDOWN The cluster is not initialized" {
		t.Errorf("CLUSTER INFO before SETNODES: %v", err)
	}
	if err := first.Get(ctx, "k").Err(); err == nil || err.Error() != "CLUSTERDOWN Hash slot not served" {
		t.Errorf("GET before SETNODES: %v", err)
	}
	ranges := []string{"0-5460", "5461-10922", "10923-16383"}
	text := mastersText(nodes, ids, ranges)
	pushTopology(t, nodes, text, 1)
	info := first.Do(ctx, "CLUSTER", "INFO").String()
	for _, want := range []string{"cluster_state:ok", "cluster_slots_assigned:16384", "cluster_known_nodes:3", "cluster_size:3", "cluster_current_epoch:1"} {
		if !strings.Contains(info, want) {
			t.Errorf("CLUSTER INFO lacks %s:\n%s", want, info)
		}
	}
	if id := first.Do(ctx, "CLUSTERX", "MYID").Val(); id != ids[0] {
		t.Errorf("node 1 found itself as %v", id)
	}

	// A pipeline of 10,000 writes: long timeouts, and no retries, which
	// would re-send its RPUSHes.
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{nodes[0].Addr()}, Protocol: 2, MaxRetries: -1,
		DialTimeout: time.Minute, ReadTimeout: longTimeout, WriteTimeout: longTimeout, PoolTimeout: longTimeout})
	defer cc.Close()
	const keys = 10000
	if _, err := cc.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := 0; i < keys; i++ {
			k := "key:" + strconv.Itoa(i)
			switch i % 5 {
			case 0:
				p.Set(ctx, k, i, 0)
			case 1:
				p.HSet(ctx, k, "f", i)
			case 2:
				p.SAdd(ctx, k, i)
			case 3:
				p.RPush(ctx, k, i)
			case 4:
				p.ZAdd(ctx, k, redis.Z{Score: float64(i), Member: i})
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < keys; i += 97 {
		k, want := "key:"+strconv.Itoa(i), strconv.Itoa(i)
		var got string
		switch i % 5 {
		case 0:
			got = cc.Get(ctx, k).Val()
		case 1:
			got = cc.HGet(ctx, k, "f").Val()
		case 2:
			got = strings.Join(cc.SMembers(ctx, k).Val(), "")
		case 3:
			got = cc.LIndex(ctx, k, 0).Val()
		case 4:
			got = strings.Join(cc.ZRange(ctx, k, 0, -1).Val(), "")
		}
		if got != want {
			t.Fatalf("%s = %q, want %q", k, got, want)
		}
	}
	// Every key lives on its slot's owner only.
	total := int64(0)
	for i, p := range nodes {
		c := p.longClient(t, 2)
		pipe := c.Pipeline()
		counts := make([]*redis.IntCmd, 16384)
		for s := range counts {
			counts[s] = pipe.ClusterCountKeysInSlot(ctx, s)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		r := strings.Split(ranges[i], "-")
		lo, _ := strconv.Atoi(r[0])
		hi, _ := strconv.Atoi(r[1])
		for s, cmd := range counts {
			if n := cmd.Val(); n != 0 && (s < lo || s > hi) {
				t.Fatalf("node %d holds %d keys of slot %d it does not own", i, n, s)
			}
			total += cmd.Val()
		}
		if n := c.DBSize(ctx).Val(); n == 0 {
			t.Errorf("node %d has no keys", i)
		}
	}
	if total != keys {
		t.Errorf("COUNTKEYSINSLOT adds up to %d, want %d", total, keys)
	}

	// Hash tags keep multi-key commands in one slot; without them a node
	// refuses with CROSSSLOT.
	if err := cc.MSet(ctx, "{user}:a", "1", "{user}:b", "2").Err(); err != nil {
		t.Errorf("MSET with a hash tag: %v", err)
	}
	if err := first.MSet(ctx, "a", "1", "b", "2").Err(); err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT") {
		t.Errorf("MSET across slots: %v", err)
	}
	// redis-cli -c follows MOVED.
	if out := nodes[0].cli(t, "-c", "SET", "foo", "bar"); out != "OK" {
		t.Errorf("redis-cli -c SET: %q", out)
	}
	if out := nodes[2].cli(t, "-c", "GET", "foo"); out != "bar" {
		t.Errorf("redis-cli -c GET: %q", out)
	}
	// Malformed text never changes the topology.
	if err := first.Do(ctx, "CLUSTERX", "SETNODES", ids[0]+" 127.0.0.1 1 master - 0-100 "+ids[1], 5).Err(); err == nil {
		t.Error("malformed SETNODES accepted")
	}
	if v := first.Do(ctx, "CLUSTERX", "VERSION").Val(); v != "1" {
		t.Errorf("version after a malformed SETNODES = %v", v)
	}
	if err := first.Do(ctx, "CLUSTERX", "SETNODES", text, 0).Err(); err == nil || err.Error() != "ERR Invalid cluster version" {
		t.Errorf("older SETNODES: %v", err)
	}

	// A newer topology gives node 1's slots to node 2: node 1 redirects.
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"", "0-10922", "10923-16383"}), 2)
	slot := first.ClusterKeySlot(ctx, "key:0").Val()
	if slot <= 5460 {
		if err := first.Get(ctx, "key:0").Err(); err == nil || err.Error() != "MOVED "+strconv.FormatInt(slot, 10)+" "+nodes[1].Addr() {
			t.Errorf("old owner after the move: %v", err)
		}
	}

	// A restarted node keeps its topology and data.
	nodes[2].Stop()
	again := startBasaltAt(t, nodes[2].Dir, nodes[2].Port, "--cluster-enabled", "yes")
	c := again.client(t, 2)
	if v := c.Do(ctx, "CLUSTERX", "VERSION").Val(); v != "2" {
		t.Errorf("version after restart = %v", v)
	}
	if id := c.Do(ctx, "CLUSTERX", "MYID").Val(); id != ids[2] {
		t.Errorf("id after restart = %v", id)
	}
	var kept int64
	for s := 10923; s < 16384; s++ {
		kept += c.ClusterCountKeysInSlot(ctx, s).Val()
	}
	if kept == 0 {
		t.Error("restarted node lost its keys")
	}
}

// TestClusterSlave checks a slave's answers for its master's slots.
func TestClusterSlave(t *testing.T) {
	nodes, ids := clusterNodes(t, 2)
	text := ids[0] + " 127.0.0.1 " + strconv.Itoa(nodes[0].Port) + " master - 0-16383\n" +
		ids[1] + " 127.0.0.1 " + strconv.Itoa(nodes[1].Port) + " slave " + ids[0] + "\n"
	pushTopology(t, nodes, text, 1)
	c := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: nodes[1].Addr(), PoolSize: 1, Protocol: 2})
	defer c.Close()
	// As Kvrocks, a slave sends writes to its master, so that cluster
	// clients follow the redirect.
	slot := strconv.FormatInt(c.ClusterKeySlot(ctx, "k").Val(), 10)
	moved := "MOVED " + slot + " " + nodes[0].Addr()
	if err := c.Set(ctx, "k", "v", 0).Err(); err == nil || err.Error() != moved {
		t.Errorf("write on a slave: %v", err)
	}
	if err := c.Get(ctx, "k").Err(); err == nil || err.Error() != moved {
		t.Errorf("read on a slave without READONLY: %v", err)
	}
	if err := c.ReadOnly(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, "k").Err(); err != redis.Nil {
		t.Errorf("read on a slave after READONLY: %v", err)
	}
	if err := c.Set(ctx, "k", "v", 0).Err(); err == nil || err.Error() != moved {
		t.Errorf("write on a slave after READONLY: %v", err)
	}
	// A cluster client writing through the slave lands on the master.
	cc := redis.NewClusterClient(&redis.ClusterOptions{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addrs: []string{nodes[1].Addr()}, Protocol: 2})
	defer cc.Close()
	if err := cc.Set(ctx, "k", "through the slave", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v := nodes[0].client(t, 2).Get(ctx, "k").Val(); v != "through the slave" {
		t.Errorf("the master holds %q", v)
	}
	if err := nodes[0].client(t, 2).Del(ctx, "k").Err(); err != nil {
		t.Fatal(err)
	}
	replicas := nodes[0].client(t, 2).Do(ctx, "CLUSTER", "REPLICAS", ids[0]).String()
	if !strings.Contains(replicas, ids[1]+" "+nodes[1].Addr()) || !strings.Contains(replicas, " slave "+ids[0]+" ") {
		t.Errorf("CLUSTER REPLICAS: %s", replicas)
	}
	if err := nodes[0].client(t, 2).Do(ctx, "CLUSTER", "RESET").Err(); err != nil {
		t.Errorf("CLUSTER RESET of an empty node: %v", err)
	}
	if v := nodes[0].client(t, 2).Do(ctx, "CLUSTERX", "VERSION").Val(); v != "-1" {
		t.Errorf("version after CLUSTER RESET = %v", v)
	}
}

// TestClusterDemotedReleasesBlocked: a master that a new topology makes
// a slave answers its blocked clients as one that REPLICAOF demotes, as
// Redis's cluster does, instead of leaving them waiting for writes that
// now go to another node.
func TestClusterDemotedReleasesBlocked(t *testing.T) {
	nodes, ids := clusterNodes(t, 2)
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-16383", ""}), 1)
	admin := nodes[0].client(t, 2)
	must(t, admin.XGroupCreateMkStream(ctx, "s", "g", "$").Err())
	blocked := dial(t, nodes[0])
	blocked.send(resp("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"))
	waitBlocked(t, admin, 1)
	text := ids[1] + " 127.0.0.1 " + strconv.Itoa(nodes[1].Port) + " master - 0-16383\n" +
		ids[0] + " 127.0.0.1 " + strconv.Itoa(nodes[0].Port) + " slave " + ids[1] + "\n"
	pushTopology(t, nodes, text, 2)
	if got := blocked.reply(); got != "-UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)\r\n" {
		t.Fatalf("the blocked client got %q", got)
	}
	if !blocked.closed() {
		t.Error("the released client's connection stays open")
	}
}

// TestClusterMultiSlots checks that, as in Kvrocks, a transaction may use
// keys of several slots this node serves, while one command's keys must
// share a slot and a key of another node is refused when queued.
func TestClusterMultiSlots(t *testing.T) {
	nodes, ids := clusterNodes(t, 2)
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-8000", "8001-16383"}), 1)
	c := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: nodes[0].Addr(), PoolSize: 1, Protocol: 2})
	defer c.Close()
	// b (slot 3300) and c (7365) are node 0's; a (15495) is node 1's.
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "b", "1", 0)
		p.Set(ctx, "c", "2", 0)
		p.IncrBy(ctx, "b", 10)
		p.Get(ctx, "c")
		return nil
	})
	if err != nil || len(cmds) != 4 || cmds[2].(*redis.IntCmd).Val() != 11 || cmds[3].(*redis.StringCmd).Val() != "2" {
		t.Errorf("MULTI over two slots: %v %v", cmds, err)
	}
	cmds, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "b", "x", 0)
		p.Set(ctx, "a", "x", 0)
		return nil
	})
	if err == nil || !strings.HasPrefix(err.Error(), "EXECABORT") || len(cmds) != 2 || !strings.HasPrefix(fmt.Sprint(cmds[1].Err()), "MOVED 15495 ") {
		t.Errorf("MULTI with a key of another node: %v %v", cmds, err)
	}
	cmds, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.MSet(ctx, "b", "y", "c", "y")
		return nil
	})
	if err == nil || len(cmds) != 1 || !strings.HasPrefix(fmt.Sprint(cmds[0].Err()), "CROSSSLOT") {
		t.Errorf("MULTI with a command across slots: %v %v", cmds, err)
	}
	if v := c.MGet(ctx, "b").Val(); len(v) != 1 || v[0] != "11" {
		t.Errorf("b after the refused transactions: %v", v)
	}
}
