package it

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestClusterFailover drives the failover of the Kvrocks cluster
// controller (REPLICATION.md §8.2) against three real nodes. The topology
// alone makes two of them replicas of the third. The master is killed;
// the controller's choice (the slave with the highest INFO sequence) is
// promoted by a new topology, which the other replica follows too. The
// first failover comes after the load, and the old master, restarted,
// rejoins as a replica; the second kills the new master under the load,
// and the replica promoted then must hold a prefix of every writer's
// acknowledged writes, at least up to the last one WAIT said both
// replicas had.
func TestClusterFailover(t *testing.T) {
	t.Parallel()
	nodes, ids := clusterNodes(t, 3)
	f := &failover{t: t, nodes: nodes, ids: ids}
	f.push([]int{0, 1, 2}, 0, 1)
	f.waitFollowing(0, 1, 2)

	// A failover after the load: nothing may be lost at all.
	load := f.startLoad(0, "a", 300)
	load.wait()
	master := nodes[0].client(t, 2)
	for _, r := range []int{1, 2} {
		waitCaughtUp(t, master, nodes[r].client(t, 2))
	}
	want := dumpNamespace(t, master)
	dir, port := nodes[0].Dir, nodes[0].Port
	nodes[0].Kill()
	winner := f.elect(1, 2)
	f.push([]int{1, 2}, winner, 2)
	f.checkPromoted(winner, want)
	other := 3 - winner
	f.waitFollowing(winner, other)
	waitCaughtUp(t, nodes[winner].client(t, 2), nodes[other].client(t, 2))
	// The old master comes back with its nodes.conf (it still thinks it
	// is the master) until the controller sees its older epoch and
	// pushes the topology to it.
	nodes[0] = startBasaltAt(t, dir, port, "--cluster-enabled", "yes")
	if v := nodes[0].cli(t, "CLUSTERX", "VERSION"); v != "1" {
		t.Fatalf("the restarted master's topology version = %q, want 1 (nodes.conf)", v)
	}
	f.push([]int{0}, winner, 2)
	f.waitFollowing(winner, 0, other)
	for _, r := range []int{0, other} {
		waitCaughtUp(t, nodes[winner].client(t, 2), nodes[r].client(t, 2))
		f.sameData(winner, r)
	}

	// A failover under the load: the master dies while writers write,
	// each waiting every tenth write until both replicas acknowledged it
	// (WAIT 2): those writes must survive.
	load = f.startLoad(winner, "b", 1<<30)
	load.waitAcked(200)
	nodes[winner].Kill()
	load.wait()
	replicas := []int{0, other}
	next := f.elect(replicas...)
	f.push(replicas, next, 3)
	f.checkPromoted(next, nil)
	load.checkPrefix(t, f.readOnlyClient(next))
	last := replicas[0] + replicas[1] - next
	f.waitFollowing(next, last)
	waitCaughtUp(t, nodes[next].client(t, 2), nodes[last].client(t, 2))
	f.sameData(next, last)
}

// failover is the controller's view of a cluster of one shard.
type failover struct {
	t     *testing.T
	nodes []*proc
	ids   []string
}

// topology is the SETNODES text of a shard whose master is node master,
// with every other node its slave, as the controller writes it.
func (f *failover) topology(master int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s 127.0.0.1 %d master - 0-16383\n", f.ids[master], f.nodes[master].Port)
	for i, p := range f.nodes {
		if i != master {
			fmt.Fprintf(&b, "%s 127.0.0.1 %d slave %s\n", f.ids[i], p.Port, f.ids[master])
		}
	}
	return b.String()
}

// push sends the topology of master at version to nodes as the controller
// does: CLUSTERX SETNODEID with the node's own id, then SETNODES.
func (f *failover) push(to []int, master, version int) {
	f.t.Helper()
	text := f.topology(master)
	for _, i := range to {
		c := f.nodes[i].client(f.t, 2)
		if err := c.Do(ctx, "CLUSTERX", "SETNODEID", f.ids[i]).Err(); err != nil {
			f.t.Fatalf("SETNODEID to node %d: %v", i, err)
		}
		if err := c.Do(ctx, "CLUSTERX", "SETNODES", text, version).Err(); err != nil {
			f.t.Fatalf("SETNODES to node %d: %v", i, err)
		}
	}
}

// waitFollowing waits until every replica's link to master is up.
func (f *failover) waitFollowing(master int, replicas ...int) {
	f.t.Helper()
	for _, r := range replicas {
		c := f.nodes[r].client(f.t, 2)
		waitFor(f.t, replWait, fmt.Sprintf("node %d replicating from node %d", r, master), func() bool {
			info := infoFields(f.t, c, "replication")
			return info["role"] == "slave" && info["master_port"] == strconv.Itoa(f.nodes[master].Port) && info["master_link_status"] == "up"
		})
	}
}

// elect picks the new master as the controller does: among candidates
// whose CLUSTER INFO answers, the ones whose INFO says role:slave with a
// sequence other than 0; the highest sequence wins, a tie goes to the
// later node. INFO is read as the controller reads it: \r\n-separated
// lines with exactly one colon, untrimmed.
func (f *failover) elect(candidates ...int) int {
	f.t.Helper()
	best, bestSeq := -1, uint64(0)
	for _, i := range candidates {
		c := f.nodes[i].client(f.t, 2)
		if err := c.Do(ctx, "CLUSTER", "INFO").Err(); err != nil {
			continue
		}
		text, err := c.Do(ctx, "INFO").Text()
		if err != nil {
			continue
		}
		fields := map[string]string{}
		for _, line := range strings.Split(text, "\r\n") {
			if parts := strings.Split(line, ":"); len(parts) == 2 {
				fields[parts[0]] = parts[1]
			}
		}
		seq, err := strconv.ParseUint(fields["sequence"], 10, 64)
		if err != nil || fields["role"] != "slave" || seq == 0 {
			continue
		}
		if seq >= bestSeq {
			best, bestSeq = i, seq
		}
	}
	if best < 0 {
		f.t.Fatalf("no replica qualifies for promotion among nodes %v", candidates)
	}
	return best
}

// checkPromoted checks that node i serves as a master once the new
// topology names it: it holds want (when given) and takes writes.
func (f *failover) checkPromoted(i int, want map[string]keyDump) {
	f.t.Helper()
	c := f.nodes[i].client(f.t, 2)
	if role := infoFields(f.t, c, "replication")["role"]; role != "master" {
		f.t.Fatalf("node %d promoted: role %q", i, role)
	}
	if want != nil {
		if got := dumpNamespace(f.t, c); !reflect.DeepEqual(got, want) {
			f.t.Fatalf("node %d promoted holds %d keys, the old master held %d (or other values)", i, len(got), len(want))
		}
	}
	if err := c.Set(ctx, "failover:written", f.ids[i], 0).Err(); err != nil {
		f.t.Fatalf("a write to the new master: %v", err)
	}
}

// sameData compares every key of two nodes, reading the replica's with
// READONLY.
func (f *failover) sameData(master, replica int) {
	f.t.Helper()
	want := dumpNamespace(f.t, f.nodes[master].client(f.t, 2))
	got := dumpNamespace(f.t, f.readOnlyClient(replica))
	if !reflect.DeepEqual(got, want) {
		f.t.Fatalf("node %d holds %d keys, its master node %d %d (or other values)", replica, len(got), master, len(want))
	}
}

// readOnlyClient is a client of node i that may read a replica's keys.
func (f *failover) readOnlyClient(i int) *redis.Client {
	opts := longOptions(f.nodes[i].Addr(), 2)
	opts.OnConnect = func(ctx context.Context, cn *redis.Conn) error { return cn.ReadOnly(ctx).Err() }
	return newClient(f.t, opts)
}

// failoverLoad is writers, each setting its keys <prefix>:<writer>:<n>
// for n = 0, 1, ... one after the other, each acknowledged before the
// next is sent, until the server fails or its count is reached.
type failoverLoad struct {
	prefix string
	wg     sync.WaitGroup
	mu     sync.Mutex
	acked  []int // per writer, the writes acknowledged
	// replicated is, per writer, how many of its first writes WAIT said
	// both replicas acknowledged.
	replicated []int
	cond       *sync.Cond
}

// failoverWaitEvery is how often a writer waits for the replicas.
const failoverWaitEvery = 10

const failoverWriters = 4

func (f *failover) startLoad(node int, prefix string, count int) *failoverLoad {
	l := &failoverLoad{prefix: prefix, acked: make([]int, failoverWriters), replicated: make([]int, failoverWriters)}
	l.cond = sync.NewCond(&l.mu)
	for w := 0; w < failoverWriters; w++ {
		c := redis.NewClient(&redis.Options{Addr: f.nodes[node].Addr(), MaxRetries: -1, ReadTimeout: longTimeout, WriteTimeout: longTimeout})
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			defer c.Close()
			for n := 0; n < count; n++ {
				if err := c.Set(ctx, l.key(w, n), strconv.Itoa(n), 0).Err(); err != nil {
					return
				}
				replicated := false
				if n%failoverWaitEvery == failoverWaitEvery-1 {
					acks, err := c.Do(ctx, "WAIT", 2, 10000).Int()
					if err != nil {
						return
					}
					replicated = acks == 2
				}
				l.mu.Lock()
				l.acked[w]++
				if replicated {
					l.replicated[w] = n + 1
				}
				l.cond.Broadcast()
				l.mu.Unlock()
			}
		}()
	}
	return l
}

func (l *failoverLoad) key(writer, n int) string {
	return fmt.Sprintf("%s:%d:%d", l.prefix, writer, n)
}

func (l *failoverLoad) wait() { l.wg.Wait() }

// waitAcked returns once every writer has n acknowledged writes.
func (l *failoverLoad) waitAcked(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for slicesMin(l.acked) < n {
		l.cond.Wait()
	}
}

func slicesMin(s []int) int {
	m := s[0]
	for _, v := range s[1:] {
		m = min(m, v)
	}
	return m
}

// checkPrefix checks that c holds, of each writer's keys, a prefix: keys
// 0 to k-1 and none after, with k at most the writes acknowledged plus
// the one in flight when the master died.
func (l *failoverLoad) checkPrefix(t *testing.T, c *redis.Client) {
	t.Helper()
	for w, acked := range l.acked {
		held := 0
		for ; held <= acked; held++ {
			v, err := c.Get(ctx, l.key(w, held)).Result()
			if errors.Is(err, redis.Nil) {
				break
			}
			if err != nil || v != strconv.Itoa(held) {
				t.Fatalf("GET %s: %q %v", l.key(w, held), v, err)
			}
		}
		t.Logf("writer %d: %d writes acknowledged, %d of them by both replicas (WAIT), %d on the promoted replica", w, acked, l.replicated[w], held)
		if held < l.replicated[w] {
			t.Errorf("writer %d: the promoted replica lost writes both replicas had acknowledged: it holds %d, WAIT confirmed %d", w, held, l.replicated[w])
		}
		for n := held + 1; n <= acked+1; n++ {
			if c.Exists(ctx, l.key(w, n)).Val() != 0 {
				t.Errorf("writer %d: key %d is on the new master, key %d is not", w, n, held)
			}
		}
	}
}
