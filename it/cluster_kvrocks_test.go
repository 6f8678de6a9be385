package it

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// kvNodeID is a made-up 40-hex node id.
func kvNodeID(i int) string {
	sum := sha1.Sum([]byte("node" + strconv.Itoa(i)))
	return hex.EncodeToString(sum[:])
}

// clusterPair is a Kvrocks and a Basalt node in cluster mode, given the
// same commands.
type clusterPair struct {
	t       *testing.T
	servers [2]*proc // Kvrocks, Basalt
	extra   []string
}

func startClusterPair(t *testing.T, extra ...string) *clusterPair {
	args := append([]string{"--cluster-enabled", "yes"}, extra...)
	return &clusterPair{t: t, extra: extra, servers: [2]*proc{startKvrocks(t, args...), startBasalt(t, args...)}}
}

// restart stops both servers and starts them again on their directories
// and ports, with extra arguments.
func (cp *clusterPair) restart(extra ...string) {
	cp.t.Helper()
	args := append([]string{"--cluster-enabled", "yes"}, extra...)
	for _, p := range cp.servers {
		stopClean(cp.t, p)
	}
	cp.servers[0] = startKvrocksAt(cp.t, cp.servers[0].Dir, cp.servers[0].Port, args...)
	cp.servers[1] = startBasaltAt(cp.t, cp.servers[1].Dir, cp.servers[1].Port, args...)
}

// do sends a command to both and fails the test unless the replies (or
// errors) are the same, ping and pong times left out; it returns
// Basalt's.
func (cp *clusterPair) do(args ...any) string {
	cp.t.Helper()
	var replies [2]string
	for i, p := range cp.servers {
		c := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: p.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
		v, err := c.Do(ctx, args...).Result()
		c.Close()
		replies[i] = noTimes(fmt.Sprint(v))
		if err != nil {
			replies[i] = "error: " + err.Error()
		}
	}
	if replies[0] != replies[1] {
		cp.t.Errorf("%v:\nkvrocks: %s\nbasalt:  %s", args, replies[0], replies[1])
	}
	return replies[1]
}

// pingPong matches the ping and pong times of a CLUSTER NODES line.
var pingPong = regexp.MustCompile(`(master -|slave [0-9a-f]{40}) \d+ \d+ `)

// noTimes leaves the ping and pong times out of CLUSTER NODES lines.
func noTimes(s string) string { return pingPong.ReplaceAllString(s, "$1 <ping> <pong> ") }

// sameNodes fails the test unless CLUSTER NODES lists the same lines in
// the same order on both (the ping and pong times left out).
func (cp *clusterPair) sameNodes(when string) {
	cp.t.Helper()
	var texts [2]string
	for i, p := range cp.servers {
		c := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: p.Addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
		texts[i] = noTimes(c.ClusterNodes(ctx).Val())
		c.Close()
	}
	if texts[0] != texts[1] {
		cp.t.Errorf("CLUSTER NODES %s:\nkvrocks:\n%sbasalt:\n%s", when, texts[0], texts[1])
	}
}

// nodesFile returns <dir>/nodes.conf of both servers; a missing file is
// "(none)".
func (cp *clusterPair) nodesFile() [2]string {
	cp.t.Helper()
	var out [2]string
	for i, p := range cp.servers {
		b, err := os.ReadFile(filepath.Join(p.Dir, "nodes.conf"))
		switch {
		case errors.Is(err, os.ErrNotExist):
			out[i] = "(none)"
		case err != nil:
			cp.t.Fatal(err)
		default:
			out[i] = string(b)
		}
	}
	return out
}

// sameFile fails the test unless both wrote the same nodes.conf, byte for
// byte (or neither has one), and returns it.
func (cp *clusterPair) sameFile(when string) string {
	cp.t.Helper()
	f := cp.nodesFile()
	if f[0] != f[1] {
		cp.t.Errorf("nodes.conf %s:\nkvrocks:\n%q\nbasalt:\n%q", when, f[0], f[1])
	}
	return f[1]
}

// TestKvrocksClusterNodesFile gives the same topology commands to Kvrocks
// and Basalt and checks that they write the same nodes.conf, byte for
// byte, and list the nodes in the same order (Kvrocks's hash-map order,
// which changes when a restart reinserts them from the file); then that
// persist-cluster-nodes-enabled no starts without the file (version -1),
// and that turning it on and off at run time writes and removes it.
func TestKvrocksClusterNodesFile(t *testing.T) {
	cp := startClusterPair(t)
	me := kvNodeID(0)
	cp.do("CLUSTERX", "SETNODEID", me)
	cp.sameFile("after SETNODEID")

	// A small topology: two masters, three slaves of the first.
	var text strings.Builder
	text.WriteString(me + " 127.0.0.1 30000 master - 0-100 101-200 300 301-8000\n")
	text.WriteString(kvNodeID(1) + " 127.0.0.1 30001 master - 201-299 8001-16383\n")
	for i := 2; i < 5; i++ {
		text.WriteString(kvNodeID(i) + " 127.0.0.1 " + strconv.Itoa(30000+i) + " slave " + me + "\n")
	}
	cp.do("CLUSTERX", "SETNODES", text.String(), 2)
	if f := cp.sameFile("after SETNODES"); !strings.Contains(f, "node "+kvNodeID(1)+" 127.0.0.1 30001 master -  201-299 8001-16383\n") {
		t.Errorf("nodes.conf lacks the line of the second master:\n%s", f)
	}
	cp.sameNodes("after SETNODES")
	cp.do("CLUSTER", "SLOTS")
	cp.do("CLUSTER", "REPLICAS", me)
	cp.do("CLUSTERX", "SETSLOT", "150 250-260", "NODE", kvNodeID(1), 3)
	cp.sameFile("after SETSLOT")
	cp.sameNodes("after SETSLOT")

	// Thirty masters and slaves: Kvrocks's map grows its buckets twice.
	// Every slot is given (Kvrocks keeps a slot a topology does not name
	// with its old owner).
	text.Reset()
	slots := make([]string, 30)
	for k := 0; k <= 16; k++ {
		owner := k
		if owner%3 == 2 {
			owner--
		}
		slots[owner] += " " + strconv.Itoa(k*1000) + "-" + strconv.Itoa(min(k*1000+999, 16383))
	}
	for i := 0; i < 30; i++ {
		if i%3 == 2 {
			text.WriteString(kvNodeID(i) + " 10.0.0." + strconv.Itoa(i) + " 6666 slave " + kvNodeID(i-2) + "\n")
			continue
		}
		text.WriteString(kvNodeID(i) + " 10.0.0." + strconv.Itoa(i) + " 6666 master -" + slots[i] + "\n")
	}
	cp.do("CLUSTERX", "SETNODES", text.String(), 4)
	cp.sameFile("with 30 nodes")
	cp.sameNodes("with 30 nodes")
	cp.do("CLUSTER", "SLOTS")

	// A restart reads the file back: the nodes are inserted in the file's
	// order, and listed in a new one.
	before := cp.sameFile("before the restart")
	cp.restart()
	cp.do("CLUSTERX", "VERSION")
	cp.do("CLUSTERX", "MYID")
	cp.sameNodes("after a restart")
	if after := cp.sameFile("after a restart"); after != before {
		t.Errorf("a restart rewrote nodes.conf:\n%s\nwas\n%s", after, before)
	}
	cp.do("CLUSTERX", "SETSLOT", "16001", "NODE", kvNodeID(1), 5)
	cp.sameFile("after SETSLOT following a restart")

	// Without persistence the file is neither read nor written.
	written := cp.sameFile("before a restart without persistence")
	cp.restart("--persist-cluster-nodes-enabled", "no")
	if v := cp.do("CLUSTERX", "VERSION"); v != "-1" {
		t.Errorf("version after a restart without persistence = %s", v)
	}
	cp.do("CLUSTERX", "MYID")
	cp.do("CLUSTERX", "SETNODES", me+" 127.0.0.1 30000 master - 0-16383", 7)
	if f := cp.sameFile("when not persisted"); f != written {
		t.Errorf("nodes.conf changed while not persisted:\n%s", f)
	}
	cp.do("CONFIG", "SET", "persist-cluster-nodes-enabled", "yes")
	// (The node has no id: it was not read from the file, and the
	// topology does not name this node's address.)
	if f := cp.sameFile("after persistence is turned on"); f != "version 7\nid \nnode "+me+" 127.0.0.1 30000 master -  0-16383\n" {
		t.Errorf("nodes.conf after persistence is turned on:\n%s", f)
	}
	cp.do("CONFIG", "SET", "persist-cluster-nodes-enabled", "no")
	if f := cp.sameFile("after persistence is turned off"); f != "(none)" {
		t.Errorf("nodes.conf after persistence is turned off:\n%s", f)
	}
}

// TestKvrocksClusterMigrateSyncTimeout starts a slow migration with SYNC
// and a timeout on a Kvrocks and on a Basalt source, each towards its own
// Basalt destination: both answer nil when the timeout passes, and the
// job goes on to its end.
func TestKvrocksClusterMigrateSyncTimeout(t *testing.T) {
	src, dst := kvNodeID(0), kvNodeID(1)
	sources := []*proc{
		startKvrocks(t, "--cluster-enabled", "yes", "--migrate-speed", "20"),
		startBasalt(t, "--cluster-enabled", "yes", "--migrate-speed", "20"),
	}
	for i, s := range sources {
		d := startBasalt(t, "--cluster-enabled", "yes")
		text := src + " 127.0.0.1 " + strconv.Itoa(s.Port) + " master - 0-8000\n" + dst + " 127.0.0.1 " + strconv.Itoa(d.Port) + " master - 8001-16383"
		pushTopology(t, []*proc{s, d}, text, 1)
		c := s.client(t, 2)
		// 100 keys of slot 3300 ("{b}"): five seconds at 20 keys a
		// second, so that a loaded machine's delay in answering after the
		// 1 s timeout is not taken for the end of the migration.
		for k := 0; k < 100; k++ {
			if err := c.Set(ctx, "{b}"+strconv.Itoa(k), k, 0).Err(); err != nil {
				t.Fatal(err)
			}
		}
		name := [...]string{"kvrocks", "basalt"}[i]
		start := time.Now()
		err := c.Do(ctx, "CLUSTERX", "MIGRATE", "3300", dst, "SYNC", "1").Err()
		if err != redis.Nil {
			t.Errorf("%s: SYNC migration past its timeout replied %v, want nil", name, err)
		}
		if took := time.Since(start); took < time.Second || took > 4500*time.Millisecond {
			t.Errorf("%s: SYNC 1 replied after %v", name, took)
		}
		if state := waitMigration(t, c, time.Minute); state != "success" {
			t.Errorf("%s: the migration ended in %s", name, state)
		}
		if n := d.client(t, 2).ClusterCountKeysInSlot(ctx, 3300).Val(); n != 100 {
			t.Errorf("%s: the destination holds %d keys of slot 3300, want 100", name, n)
		}
	}
}
