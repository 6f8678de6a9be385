package it

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/redis/go-redis/v9"
)

// The slots migrated in these tests, owned first by node 0 of
// mastersText(..., initialRanges).
const migFrom, migTo = 0, 999

var (
	initialRanges  = []string{"0-5460", "5461-10922", "10923-16383"}
	migratedRanges = []string{"1000-5460", "0-999 5461-10922", "10923-16383"}
)

// slotKeys returns n key names whose slots are in [from, to].
func slotKeys(n int, from, to uint16) []string {
	var keys []string
	for i := 0; len(keys) < n; i++ {
		k := "k" + strconv.Itoa(i)
		if s := metadata.HashSlot([]byte(k)); s >= from && s <= to {
			keys = append(keys, k)
		}
	}
	return keys
}

// keyState is the model of one key: what the acknowledged writes made it.
type keyState struct {
	typ    byte // s string, h hash, S set, l list, z zset, i sortedint
	exists bool
	str    string
	fields map[string]string // hash fields, set members and sortedint ids (value ""), zset scores
	list   []string
	ttl    bool // a TTL long enough to outlive the test
}

// typeOf gives key i its type.
func typeOf(i int) byte { return "shSlzi"[i%6] }

// dump renders a model key the way dumpRemote renders a stored one.
func (k *keyState) dump() string {
	if !k.exists {
		return "none"
	}
	var parts []string
	switch k.typ {
	case 's':
		parts = []string{k.str}
	case 'l':
		parts = k.list
	default:
		for f, v := range k.fields {
			parts = append(parts, f+"="+v)
		}
		sort.Strings(parts)
	}
	return fmt.Sprintf("%c %v ttl=%v", k.typ, parts, k.ttl)
}

// dumpRemote renders a stored key for comparison with keyState.dump.
func dumpRemote(c *redis.Client, key string, typ byte) (string, error) {
	var parts []string
	var err error
	switch typ {
	case 's':
		var v string
		v, err = c.Get(ctx, key).Result()
		parts = []string{v}
	case 'l':
		parts, err = c.LRange(ctx, key, 0, -1).Result()
	case 'h':
		var m map[string]string
		m, err = c.HGetAll(ctx, key).Result()
		for f, v := range m {
			parts = append(parts, f+"="+v)
		}
	case 'S':
		var ms []string
		ms, err = c.SMembers(ctx, key).Result()
		for _, m := range ms {
			parts = append(parts, m+"=")
		}
	case 'z':
		var zs []redis.Z
		zs, err = c.ZRangeWithScores(ctx, key, 0, -1).Result()
		for _, z := range zs {
			parts = append(parts, z.Member.(string)+"="+strconv.FormatFloat(z.Score, 'g', -1, 64))
		}
	case 'i':
		var ids []string
		ids, err = c.Do(ctx, "SIRANGE", key, 0, 0).StringSlice()
		for _, id := range ids {
			parts = append(parts, id+"=")
		}
	}
	if errors.Is(err, redis.Nil) || (err == nil && len(parts) == 0) {
		return "none", nil
	}
	if err != nil {
		return "", err
	}
	if typ != 's' && typ != 'l' {
		sort.Strings(parts)
	}
	pttl, err := c.PTTL(ctx, key).Result()
	return fmt.Sprintf("%c %v ttl=%v", typ, parts, pttl > 0), err
}

// preload writes keys through c: every type, some with a long TTL, some
// (those where short(i)) with a TTL that ends 2 s later. It returns the
// model.
func preload(t *testing.T, c *redis.Client, keys []string) map[string]*keyState {
	t.Helper()
	model := map[string]*keyState{}
	pipe := c.Pipeline()
	for i, k := range keys {
		st := &keyState{typ: typeOf(i), exists: true, fields: map[string]string{}}
		switch st.typ {
		case 's':
			st.str = "v" + k
			pipe.Set(ctx, k, st.str, 0)
		case 'h':
			st.fields["f0"], st.fields["f1"] = "x\x00\xff", k
			pipe.HSet(ctx, k, "f0", "x\x00\xff", "f1", k)
		case 'S':
			st.fields["m0"], st.fields[k] = "", ""
			pipe.SAdd(ctx, k, "m0", k)
		case 'l':
			st.list = []string{"a", k, "c"}
			pipe.RPush(ctx, k, "a", k, "c")
		case 'z':
			st.fields["m0"], st.fields[k] = "1.5", "-2"
			pipe.ZAdd(ctx, k, redis.Z{Score: 1.5, Member: "m0"}, redis.Z{Score: -2, Member: k})
		case 'i':
			id := strconv.Itoa(i + 10)
			st.fields["1"], st.fields[id] = "", ""
			pipe.Do(ctx, "SIADD", k, 1, id)
		}
		switch {
		case i%7 == 0:
			st.ttl = true
			pipe.PExpire(ctx, k, time.Hour)
		case short(i):
			st.exists = false // by the time it is checked
			pipe.PExpire(ctx, k, 2*time.Second)
		}
		model[k] = st
		if pipe.Len() >= 1000 {
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	return model
}

// short tells the preloaded keys that expire 2 s after preload; writers
// leave them alone.
func short(i int) bool { return i%7 == 1 }

// router sends commands to whichever node serves them: it follows MOVED
// and retries TRYAGAIN, and counts both. Its clients never retry by
// themselves: a command that timed out may have run.
type router struct {
	clients         map[string]*redis.Client
	cur             *redis.Client
	moved, tryAgain atomic.Int64 // read by the test while the writer runs
	mu              *sync.Mutex  // guards clients, shared by the routers of a test
	newClient       func(addr string) *redis.Client
}

func (r *router) do(args ...any) (any, error) {
	for {
		res, err := r.cur.Do(ctx, args...).Result()
		if err == nil || errors.Is(err, redis.Nil) {
			return res, err
		}
		msg := err.Error()
		switch {
		case strings.HasPrefix(msg, "TRYAGAIN "):
			r.tryAgain.Add(1)
			time.Sleep(2 * time.Millisecond)
		case strings.HasPrefix(msg, "MOVED "):
			r.moved.Add(1)
			addr := msg[strings.LastIndexByte(msg, ' ')+1:]
			r.mu.Lock()
			if r.clients[addr] == nil {
				r.clients[addr] = r.newClient(addr)
			}
			r.cur = r.clients[addr]
			r.mu.Unlock()
		default:
			return res, err
		}
	}
}

// writer changes its own keys at random through a router, keeping their
// model exact: every acknowledged write is applied to it.
type writer struct {
	t     *testing.T
	r     *router
	keys  []string
	model map[string]*keyState
	rng   *rand.Rand
	ops   int
	acked *atomic.Int64 // acknowledged writes of all writers
}

func (w *writer) step() {
	j := w.rng.IntN(len(w.keys))
	k, st := w.keys[j], w.model[w.keys[j]]
	create := func() {
		if !st.exists {
			*st = keyState{typ: st.typ, exists: true, fields: map[string]string{}}
		}
	}
	check := func(err error) bool {
		if err != nil {
			w.t.Errorf("%s: %v", k, err)
			return false
		}
		w.ops++
		if w.acked != nil {
			w.acked.Add(1)
		}
		return true
	}
	field := "f" + strconv.Itoa(w.rng.IntN(4))
	switch op := w.rng.IntN(10); {
	case op == 0:
		if _, err := w.r.do("DEL", k); check(err) {
			st.exists = false
		}
	case op == 1:
		n, err := w.r.do("PEXPIRE", k, 20)
		if check(err) && n.(int64) == 1 {
			time.Sleep(25 * time.Millisecond)
			st.exists = false
		} else if err == nil && st.exists {
			w.t.Errorf("PEXPIRE %s: 0 for a key the model has", k)
		}
	case st.typ == 's':
		v := "w" + strconv.Itoa(w.ops)
		if _, err := w.r.do("SET", k, v); check(err) {
			create()
			st.str, st.ttl = v, false
		}
	case st.typ == 'h' && op < 7:
		if _, err := w.r.do("HSET", k, field, w.ops); check(err) {
			create()
			st.fields[field] = strconv.Itoa(w.ops - 1)
		}
	case st.typ == 'h':
		if _, err := w.r.do("HDEL", k, field); check(err) {
			delete(st.fields, field)
			st.exists = st.exists && len(st.fields) > 0
		}
	case st.typ == 'S' && op < 7:
		if _, err := w.r.do("SADD", k, field); check(err) {
			create()
			st.fields[field] = ""
		}
	case st.typ == 'S':
		if _, err := w.r.do("SREM", k, field); check(err) {
			delete(st.fields, field)
			st.exists = st.exists && len(st.fields) > 0
		}
	case st.typ == 'z' && op < 7:
		score := float64(w.rng.IntN(100)) / 4
		if _, err := w.r.do("ZADD", k, score, field); check(err) {
			create()
			st.fields[field] = strconv.FormatFloat(score, 'g', -1, 64)
		}
	case st.typ == 'z':
		if _, err := w.r.do("ZREM", k, field); check(err) {
			delete(st.fields, field)
			st.exists = st.exists && len(st.fields) > 0
		}
	case st.typ == 'i' && op < 7:
		id := strconv.Itoa(1 + w.rng.IntN(4))
		if _, err := w.r.do("SIADD", k, id); check(err) {
			create()
			st.fields[id] = ""
		}
	case st.typ == 'i':
		id := strconv.Itoa(1 + w.rng.IntN(4))
		if _, err := w.r.do("SIREM", k, id); check(err) {
			delete(st.fields, id)
			st.exists = st.exists && len(st.fields) > 0
		}
	case st.typ == 'l' && op < 7:
		if _, err := w.r.do("RPUSH", k, w.ops); check(err) {
			create()
			st.list = append(st.list, strconv.Itoa(w.ops-1))
		}
	case st.typ == 'l':
		v, err := w.r.do("LPOP", k)
		if errors.Is(err, redis.Nil) {
			err = nil
		}
		if check(err) && st.exists {
			if v != st.list[0] {
				w.t.Errorf("LPOP %s = %v, model says %q", k, v, st.list[0])
			}
			st.list = st.list[1:]
			st.exists = len(st.list) > 0
		}
	}
}

// waitMigration polls CLUSTER INFO on the source until migrating_state
// leaves start, and returns it.
func waitMigration(t *testing.T, c *redis.Client, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		info, err := c.Do(ctx, "CLUSTER", "INFO").Text()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(info, "\r\n") {
			if state, ok := strings.CutPrefix(line, "migrating_state: "); ok && state != "start" {
				return state
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("migration still running after %v", timeout)
	return ""
}

// keyCountIn sums COUNTKEYSINSLOT over [from, to] on one node.
func keyCountIn(t *testing.T, c *redis.Client, from, to int) int64 {
	t.Helper()
	pipe := c.Pipeline()
	var cmds []*redis.IntCmd
	for s := from; s <= to; s++ {
		cmds = append(cmds, pipe.ClusterCountKeysInSlot(ctx, s))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	total := int64(0)
	for _, c := range cmds {
		total += c.Val()
	}
	return total
}

// checkModel compares every key of the model with node c.
func checkModel(t *testing.T, c *redis.Client, model map[string]*keyState) {
	t.Helper()
	t.Logf("checking %d keys on %s", len(model), c.Options().Addr)
	bad := 0
	for k, st := range model {
		got, err := dumpRemote(c, k, st.typ)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if want := st.dump(); got != want && bad < 10 {
			bad++
			t.Errorf("key %s: stored %s, model %s", k, got, want)
		}
	}
}

// repeatUntil calls fn in a goroutine counted by wg until stop is closed
// or fn returns false.
func repeatUntil(stop <-chan struct{}, wg *sync.WaitGroup, fn func() bool) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if !fn() {
				return
			}
		}
	}()
}

func raceBuild() bool { return os.Getenv("BASALT_RACE") != "" }

func TestSlotMigrationUnderLoad(t *testing.T) {
	for _, mode := range []string{"redis-command", "raw-key-value"} {
		t.Run(mode, func(t *testing.T) { migrateUnderLoad(t, mode) })
	}
}

// migrateUnderLoad moves slots 0-999 with 50,000 keys from node 0 to node
// 1 while 10 clients write, delete and expire keys of those slots.
func migrateUnderLoad(t *testing.T, mode string) {
	n := 50_000
	if raceBuild() {
		n = 10_000
	}
	nodes, ids := clusterNodes(t, 3, "--migrate-type", mode, "--migrate-speed", "0", "--migrate-sequence-gap", "100")
	pushTopology(t, nodes, mastersText(nodes, ids, initialRanges), 1)
	src, dst := nodes[0].longClient(t, 2), nodes[1].longClient(t, 2)
	keys := slotKeys(n, migFrom, migTo)
	model := preload(t, src, keys)
	preloaded := time.Now() // the short TTLs end by 2 s after this

	writers := 10
	if raceBuild() {
		// The race build's migration, several times slower, would take
		// minutes to catch up with ten writers' WAL.
		writers = 3
	}
	var mu sync.Mutex
	clients := map[string]*redis.Client{nodes[0].Addr(): src}
	var acked atomic.Int64
	dial := func(addr string) *redis.Client { return newClient(t, longOptions(addr, 2)) }
	var ws []*writer
	for w := 0; w < writers; w++ {
		wr := &writer{t: t, model: model, rng: rand.New(rand.NewPCG(uint64(w), 7)), acked: &acked,
			r: &router{clients: clients, cur: src, mu: &mu, newClient: dial}}
		for i, k := range keys {
			if i%writers == w && !short(i) {
				wr.keys = append(wr.keys, k)
			}
		}
		ws = append(ws, wr)
	}
	stop := make(chan struct{})
	var stopOnce sync.Once
	var wg sync.WaitGroup
	stopWriters := func() {
		stopOnce.Do(func() { close(stop) })
		wg.Wait()
	}
	// A failure that ends the test early stops the writers before the
	// servers, and before the test is over.
	t.Cleanup(stopWriters)
	for _, w := range ws {
		repeatUntil(stop, &wg, func() bool { w.step(); return true })
	}
	waitFor(t, time.Minute, "writers start", func() bool { return acked.Load() >= int64(5*writers) })
	start := time.Now()
	if err := src.Do(ctx, "CLUSTERX", "MIGRATE", fmt.Sprintf("%d-%d", migFrom, migTo), ids[1]).Err(); err != nil {
		t.Fatal(err)
	}
	if text := src.Do(ctx, "CLUSTER", "NODES").String(); !strings.Contains(text, "[0-999->-"+ids[1]+"]") {
		t.Errorf("CLUSTER NODES while migrating:\n%s", text)
	}
	state := waitMigration(t, src, 10*time.Minute) // generous: a loaded machine starves its catch-up
	took := time.Since(start)
	redirected := func() (moved, tryAgain int64) {
		for _, w := range ws {
			moved, tryAgain = moved+w.r.moved.Load(), tryAgain+w.r.tryAgain.Load()
		}
		return moved, tryAgain
	}
	if state == "success" {
		// The writers go on, on the destination.
		at := acked.Load()
		waitFor(t, time.Minute, "writers redirected to the destination", func() bool {
			moved, _ := redirected()
			return moved > 0 && acked.Load() >= at+int64(writers)
		})
	}
	stopWriters()
	if state != "success" {
		t.Fatalf("migration ended in %s\n%s", state, nodes[0].Output)
	}
	ops := 0
	for _, w := range ws {
		ops += w.ops
	}
	moved, tryAgain := redirected()
	t.Logf("%s: %d keys migrated in %v while writers acknowledged %d writes (%d MOVED, %d TRYAGAIN)", mode, n, took, ops, moved, tryAgain)
	if moved == 0 {
		t.Errorf("no writer was redirected to the destination")
	}

	// The destination serves the slots before the topology says so.
	if info := dst.Do(ctx, "CLUSTER", "INFO").String(); !strings.Contains(info, "import_state: success") {
		t.Errorf("destination CLUSTER INFO:\n%s", info)
	}
	pushTopology(t, nodes, mastersText(nodes, ids, migratedRanges), 2)
	if left := keyCountIn(t, src, migFrom, migTo); left != 0 {
		t.Errorf("the source still holds %d keys of the migrated slots", left)
	}
	time.Sleep(time.Until(preloaded.Add(2100 * time.Millisecond)))
	checkModel(t, dst, model)
	live := int64(0)
	for _, st := range model {
		if st.exists {
			live++
		}
	}
	if got := keyCountIn(t, dst, migFrom, migTo); got != live {
		t.Errorf("the destination holds %d keys in the migrated slots, the model %d", got, live)
	}
	if err := src.Get(ctx, keys[0]).Err(); err == nil || !strings.HasPrefix(err.Error(), "MOVED ") {
		t.Errorf("source after SETNODES: %v", err)
	}
}

// TestMigrateErrors checks the replies of CLUSTERX MIGRATE, CLUSTER IMPORT
// and APPLYBATCH to bad requests.
func TestMigrateErrors(t *testing.T) {
	nodes, ids := clusterNodes(t, 2)
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-8191", "8192-16383"}), 1)
	c := nodes[0].client(t, 2)
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"CLUSTERX", "MIGRATE", "9000", ids[1]}, "ERR Can't migrate slot which doesn't belong to me"},
		{[]any{"CLUSTERX", "MIGRATE", "5", ids[0]}, "ERR Can't migrate slot to myself"},
		{[]any{"CLUSTERX", "MIGRATE", "5", strings.Repeat("f", 40)}, "ERR Can't find the destination node id"},
		{[]any{"CLUSTERX", "MIGRATE", "5", ids[1], "SOMETIMES"}, "ERR Invalid sync flag"},
		{[]any{"CLUSTERX", "MIGRATE", "9-5", ids[1]}, "ERR Invalid slot range: `9-5`."},
		{[]any{"CLUSTER", "IMPORT", "5", "7"}, "ERR Invalid import state"},
		{[]any{"APPLYBATCH", "garbage"}, "ERR Corruption: malformed WriteBatch (too small)"},
		{[]any{"APPLYBATCH", "garbage but longer than a header"}, "ERR invalid write batch"},
	} {
		err := c.Do(ctx, tc.args...).Err()
		if err == nil || (tc.want != "" && !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	if v := c.Do(ctx, "COMMAND", "INFO", "APPLYBATCH").Val(); !slices.ContainsFunc(v.([]any), func(x any) bool { return x != nil }) {
		t.Errorf("COMMAND INFO APPLYBATCH: %v", v)
	}
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
}
