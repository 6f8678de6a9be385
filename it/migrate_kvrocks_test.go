package it

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// kvShard is a small cluster of one kind, Kvrocks or Basalt, that a test
// drives with the same commands as one of the other kind: masters a
// (slots 0-8191) and b (the rest), c a replica of a, and two nodes no
// process serves: d, a slave of b, and e, a master without slots.
type kvShard struct {
	t     *testing.T
	kind  string
	nodes []*proc // a, b, c
	addrs []string
	ports []int // of a to e
}

// shardIDs are the node ids of a to e.
var shardIDs = []string{kvNodeID(10), kvNodeID(11), kvNodeID(12), kvNodeID(13), kvNodeID(14)}

// unknownID names no node of the shard.
var unknownID = kvNodeID(99)

// startShards starts a Kvrocks and a Basalt shard with extra arguments.
func startShards(t *testing.T, extra ...string) [2]*kvShard {
	args := append([]string{"--cluster-enabled", "yes"}, extra...)
	kv := &kvShard{t: t, kind: "kvrocks"}
	kv.nodes = []*proc{startKvrocks(t, args...), startKvrocks(t, args...), startKvrocks(t, args...)}
	bs := &kvShard{t: t, kind: "basalt"}
	bs.nodes = []*proc{startBasalt(t, args...), startBasalt(t, args...), startBasalt(t, args...)}
	for _, s := range []*kvShard{kv, bs} {
		for _, p := range s.nodes {
			s.ports = append(s.ports, p.Port)
		}
		s.ports = append(s.ports, freePort(t), freePort(t))
		for _, port := range s.ports {
			s.addrs = append(s.addrs, "127.0.0.1:"+strconv.Itoa(port))
		}
	}
	return [2]*kvShard{kv, bs}
}

// topology is the SETNODES text of the shard; c is named a "replica",
// which Kvrocks takes for a slave.
func (s *kvShard) topology() string {
	line := func(i int, rest string) string {
		return shardIDs[i] + " 127.0.0.1 " + strconv.Itoa(s.ports[i]) + " " + rest + "\n"
	}
	return line(0, "master - 0-8191") + line(1, "master - 8192-16383") + line(2, "replica "+shardIDs[0]) +
		line(3, "slave "+shardIDs[1]) + line(4, "master -")
}

// push sends the topology at version to the nodes given (all by default).
func (s *kvShard) push(version int, nodes ...int) {
	s.t.Helper()
	if nodes == nil {
		nodes = []int{0, 1, 2}
	}
	for _, i := range nodes {
		if err := s.client(i).Do(ctx, "CLUSTERX", "SETNODES", s.topology(), version).Err(); err != nil {
			s.t.Fatalf("%s: SETNODES to node %d: %v", s.kind, i, err)
		}
	}
}

func (s *kvShard) client(i int) *redis.Client { return s.nodes[i].longClient(s.t, 2) }

// times matches the ping and pong times of CLUSTER NODES lines.
var times = regexp.MustCompile(` \d{13} \d{13} `)

// norm makes a reply comparable across kinds: node addresses become
// <a> to <e>, ping and pong times <t>.
func (s *kvShard) norm(text string) string {
	text = times.ReplaceAllString(text, " <t> <t> ")
	for i, port := range s.ports {
		name := "<" + string(rune('a'+i)) + ">"
		text = strings.ReplaceAll(text, "127.0.0.1:"+strconv.Itoa(port)+"@"+strconv.Itoa(port+10000), name)
		text = strings.ReplaceAll(text, "127.0.0.1:"+strconv.Itoa(port), name)
		text = strings.ReplaceAll(text, "127.0.0.1 "+strconv.Itoa(port), name) // CLUSTER SLOTS
	}
	return text
}

// do sends a command to node i and returns its reply (or error) made
// comparable.
func (s *kvShard) do(i int, args ...any) string {
	v, err := s.client(i).Do(ctx, args...).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return "(nil)"
	case err != nil:
		return s.norm("error: " + err.Error())
	}
	return s.norm(fmt.Sprint(v))
}

// migrationLines returns CLUSTER INFO's lines about migrations and
// imports on node i.
func (s *kvShard) migrationLines(i int) string {
	info := s.do(i, "CLUSTER", "INFO")
	var lines []string
	for _, l := range strings.Split(info, "\r\n") {
		if strings.HasPrefix(l, "migrating_") || strings.HasPrefix(l, "importing_") || strings.HasPrefix(l, "destination_") || strings.HasPrefix(l, "import_") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " | ")
}

// keyCount counts the keys KEYS lists on node i (Kvrocks has no
// COUNTKEYSINSLOT).
func (s *kvShard) keyCount(i int) int {
	s.t.Helper()
	keys, err := s.client(i).Keys(ctx, "*").Result()
	if err != nil {
		s.t.Fatalf("%s: KEYS on node %d: %v", s.kind, i, err)
	}
	return len(keys)
}

// fill writes n string keys of slot 7365 ("{c}") on node a.
func (s *kvShard) fill(n int) {
	s.t.Helper()
	pipe := s.client(0).Pipeline()
	for k := 0; k < n; k++ {
		pipe.Set(ctx, "{c}"+strconv.Itoa(k), k, 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		s.t.Fatalf("%s: %v", s.kind, err)
	}
}

// sameSteps fails the test where the two kinds recorded different steps.
func sameSteps(t *testing.T, kv, bs []string) {
	t.Helper()
	for i := range max(len(kv), len(bs)) {
		var k, b string
		if i < len(kv) {
			k = kv[i]
		}
		if i < len(bs) {
			b = bs[i]
		}
		if k != b {
			t.Errorf("step %d:\nkvrocks: %s\nbasalt:  %s", i, k, b)
		}
	}
}

// legacySlotLine is the line CLUSTER INFO adds for the controllers that
// read Kvrocks before 2.10, which Kvrocks 2.10 itself lacks.
var legacySlotLine = regexp.MustCompile(`migrating_slot: [0-9-]+ \| `)

// TestKvrocksMigrateRefusals migrates a slot on a Kvrocks and on a Basalt
// shard with the same commands, and compares every reply: CLUSTERX
// MIGRATE refused before the topology, from a replica, to itself, to a
// slave, to an unknown node, of slots not its own, while a job runs and
// for a slot already migrated, each with Kvrocks's error (the checks come
// in Kvrocks's order, so a request wrong twice gets the same one); a SYNC
// migration to a node that does not answer; CLUSTER INFO and NODES while
// the job runs and after it; the redirects of the migrated slot.
func TestKvrocksMigrateRefusals(t *testing.T) {
	shards := startShards(t, "--migrate-speed", "100")
	var steps [2][]string
	for i, s := range shards {
		rec := func(node int, args ...any) {
			steps[i] = append(steps[i], fmt.Sprint(node, args, " -> ", s.do(node, args...)))
		}
		info := func(node int) string {
			lines := s.migrationLines(node)
			if s.kind == "basalt" {
				// Compared without the line Kvrocks 2.10 lacks; checked
				// below.
				lines = legacySlotLine.ReplaceAllString(lines, "")
			}
			steps[i] = append(steps[i], fmt.Sprint(node, " CLUSTER INFO -> ", lines))
			return s.migrationLines(node)
		}
		migrate := func(node int, slots string, dst int, more ...any) {
			rec(node, append([]any{"CLUSTERX", "MIGRATE", slots, shardIDs[dst]}, more...)...)
		}
		migrate(0, "5", 1)
		s.push(1)
		s.fill(600)
		// From the replica: it owns no slot.
		migrate(2, "7365", 1)
		migrate(2, "9000", 1)
		rec(2, "CLUSTERX", "MIGRATE", "7365", unknownID)
		// Wrong in one way, and in two.
		migrate(0, "7366", 2)
		migrate(0, "7366", 0)
		migrate(0, "9000", 1)
		migrate(0, "9000", 2)
		migrate(0, "9000", 0)
		rec(0, "CLUSTERX", "MIGRATE", "7366", unknownID)
		rec(0, "CLUSTERX", "MIGRATE", "9000", unknownID)
		migrate(0, "7366-7365", 1)
		// A destination that does not answer: the job fails.
		migrate(0, "7366", 4, "SYNC")
		// Kvrocks answers the SYNC request before it records the job's
		// failure: under load its CLUSTER INFO can still say start.
		steps[i] = append(steps[i], "sync migration ended: "+waitMigration(t, s.client(0), time.Minute))
		info(0)
		// 600 keys at 100 a second: the job runs for 6 s.
		migrate(0, "7365", 1)
		migrate(0, "7365", 1)
		migrate(0, "7366", 1)
		migrate(0, "9000", 1)
		migrate(0, "7366", 0)
		migrate(0, "7366", 2)
		rec(0, "CLUSTERX", "MIGRATE", "7366", unknownID)
		rec(0, "CLUSTER", "RESET")
		running := info(0)
		info(1)
		info(2)
		rec(0, "CLUSTER", "NODES")
		rec(1, "CLUSTER", "NODES")
		if s.kind == "basalt" && !strings.Contains(running, "migrating_slot(s): 7365 | migrating_slot: 7365 | ") {
			t.Errorf("basalt: CLUSTER INFO while migrating lacks migrating_slot: %s", running)
		}
		steps[i] = append(steps[i], "migration ended: "+waitMigration(t, s.client(0), time.Minute))
		done := info(0)
		info(1)
		if s.kind == "basalt" && !strings.Contains(done, "migrating_slot(s): 7365 | migrating_slot: 7365 | ") {
			t.Errorf("basalt: CLUSTER INFO after the migration lacks migrating_slot: %s", done)
		}
		steps[i] = append(steps[i], fmt.Sprint("keys on b: ", s.keyCount(1)))
		// Migrated: every request for the slot is refused, the unknown
		// destination first.
		migrate(0, "7365", 1)
		migrate(0, "7364-7366", 1)
		migrate(0, "7365", 0)
		migrate(0, "7365", 2)
		rec(0, "CLUSTERX", "MIGRATE", "7365", unknownID)
		rec(0, "GET", "{c}1")
		rec(0, "SET", "{c}1", "x")
		rec(1, "GET", "{c}1")
		migrate(2, "7365", 1)
		info(2)
	}
	sameSteps(t, steps[0], steps[1])
}

// TestKvrocksMigrateHandover writes to a slot while it migrates, on a
// Kvrocks and on a Basalt source: writes succeed while the keys are
// copied, get Kvrocks's TRYAGAIN while the last writes are sent (reads
// are still served), then MOVED to the destination; never a success
// after a refusal.
func TestKvrocksMigrateHandover(t *testing.T) {
	for _, kind := range []string{"kvrocks", "basalt"} {
		t.Run(kind, func(t *testing.T) {
			start := startKvrocks
			if kind == "basalt" {
				start = startBasalt
			}
			src := start(t, "--cluster-enabled", "yes", "--migrate-speed", "20")
			dst := start(t, "--cluster-enabled", "yes")
			text := shardIDs[0] + " 127.0.0.1 " + strconv.Itoa(src.Port) + " master - 0-8191\n" +
				shardIDs[1] + " 127.0.0.1 " + strconv.Itoa(dst.Port) + " master - 8192-16383\n"
			pushTopology(t, []*proc{src, dst}, text, 1)
			c := src.longClient(t, 2)
			for k := 0; k < 40; k++ {
				must(t, c.Set(ctx, "{c}"+strconv.Itoa(k), k, 0).Err())
			}
			// 40 keys at 20 a second: 2 s of copying.
			must(t, c.Do(ctx, "CLUSTERX", "MIGRATE", "7365", shardIDs[1]).Err())
			phases := []string{}
			phase := func(p string) {
				if len(phases) == 0 || phases[len(phases)-1] != p {
					phases = append(phases, p)
				}
			}
			moved := "MOVED 7365 " + dst.Addr()
			tryAgain := "TRYAGAIN Can't write to slot being migrated which is in write forbidden phase"
			// Twenty keys written again and again: Basalt's last
			// increment resends them at 20 a second, 1 s of refused
			// writes; Kvrocks replays its WAL at that pace.
			deadline := time.Now().Add(2 * time.Minute)
			for i := 0; time.Now().Before(deadline); i++ {
				err := c.Set(ctx, "{c}w"+strconv.Itoa(i%20), i, 0).Err()
				switch {
				case err == nil:
					phase("OK")
				case err.Error() == tryAgain:
					phase("TRYAGAIN")
					// Reads are still served; MOVED means the handover
					// ended since the write was refused.
					v, err := c.Get(ctx, "{c}1").Result()
					if !(err == nil && v == "1") && !(err != nil && err.Error() == moved) {
						t.Errorf("read in the write forbidden phase: %q, %v", v, err)
					}
				case err.Error() == moved:
					phase("MOVED")
				default:
					t.Fatalf("write during the migration: %v", err)
				}
				if phases[len(phases)-1] == "MOVED" {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Logf("%s: %v", kind, phases)
			want := []string{"OK", "TRYAGAIN", "MOVED"}
			if kind == "kvrocks" && slices.Equal(phases, []string{"OK", "MOVED"}) {
				t.Skip("kvrocks: the write forbidden phase passed between two writes")
			}
			if !slices.Equal(phases, want) {
				t.Errorf("%s: writes went through %v, want %v", kind, phases, want)
			}
		})
	}
}

// TestKvrocksClusterResetReplica compares a Kvrocks and a Basalt shard:
// CLUSTER NODES and CLUSTER REPLICAS as seen by a master and by a replica
// (a replica's own line is "myself,slave" in NODES and "slave" in
// REPLICAS); then CLUSTER RESET on the empty replica makes it a master
// without an id or a topology, and the next topology a replica again,
// which then refuses CLUSTER RESET while it holds its master's data.
func TestKvrocksClusterResetReplica(t *testing.T) {
	shards := startShards(t)
	var steps [2][]string
	for i, s := range shards {
		rec := func(node int, args ...any) string {
			reply := s.do(node, args...)
			steps[i] = append(steps[i], fmt.Sprint(node, args, " -> ", reply))
			return reply
		}
		role := func(node int) string {
			v, err := s.client(node).Do(ctx, "ROLE").Slice()
			if err != nil || len(v) == 0 {
				t.Fatalf("%s: ROLE: %v %v", s.kind, v, err)
			}
			steps[i] = append(steps[i], fmt.Sprint(node, " role -> ", v[0]))
			return fmt.Sprint(v[0])
		}
		linkUp := func(node int) {
			waitFor(t, time.Minute, s.kind+": the replica's link is up", func() bool {
				return strings.Contains(s.do(node, "INFO", "replication"), "master_link_status:up")
			})
		}
		s.push(1)
		rec(2, "CLUSTER", "NODES")
		rec(0, "CLUSTER", "NODES")
		for _, node := range []int{0, 2} {
			rec(node, "CLUSTER", "REPLICAS", shardIDs[0])
			rec(node, "CLUSTER", "REPLICAS", shardIDs[1])
			rec(node, "CLUSTER", "REPLICAS", shardIDs[2])
			rec(node, "CLUSTER", "SLOTS")
		}
		linkUp(2)
		role(2)
		if reply := rec(2, "CLUSTER", "RESET"); reply != "OK" {
			t.Errorf("%s: CLUSTER RESET on an empty replica: %s", s.kind, reply)
		}
		if r := role(2); r != "master" {
			t.Errorf("%s: a replica reset is a %s", s.kind, r)
		}
		rec(2, "CLUSTERX", "MYID")
		rec(2, "CLUSTERX", "VERSION")
		rec(2, "CLUSTER", "INFO")
		rec(2, "CLUSTER", "NODES")
		rec(2, "SET", "k", "v")
		// The next topology makes it a replica again.
		s.push(2)
		rec(2, "CLUSTERX", "MYID")
		linkUp(2)
		role(2)
		rec(0, "SET", "{c}1", "v")
		opts := longOptions(s.nodes[2].Addr(), 2)
		opts.PoolSize = 1
		ro := newClient(t, opts)
		must(t, ro.ReadOnly(ctx).Err())
		waitFor(t, time.Minute, s.kind+": the replica has the write", func() bool { return ro.Get(ctx, "{c}1").Val() == "v" })
		rec(2, "CLUSTER", "RESET")
		role(2)
	}
	sameSteps(t, steps[0], steps[1])
}
