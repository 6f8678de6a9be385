package it

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The scripting tests with real clients: go-redis's Script helper, a
// Redlock-style lock, scripts and libraries across a restart and on a
// replica, cluster mode, and long scripts (BUSY, SCRIPT KILL, UNKILLABLE,
// SHUTDOWN NOSAVE, a script that allocates without end).

// Redlock's scripts: take a lock with an expiry, release it only by its
// owner's token.
var (
	lockScript   = redis.NewScript(`return redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])`)
	unlockScript = redis.NewScript(`if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`)
)

// lock tries to take name for token; ok reports whether it did.
func lock(t *testing.T, c redis.Scripter, name, token string, ttl time.Duration) bool {
	t.Helper()
	err := lockScript.Run(ctx, c, []string{name}, token, ttl.Milliseconds()).Err()
	if errors.Is(err, redis.Nil) {
		return false
	}
	if err != nil {
		t.Fatalf("lock %s: %v", name, err)
	}
	return true
}

func unlock(t *testing.T, c redis.Scripter, name, token string) bool {
	t.Helper()
	n, err := unlockScript.Run(ctx, c, []string{name}, token).Int()
	if err != nil {
		t.Fatalf("unlock %s: %v", name, err)
	}
	return n == 1
}

// redlock runs the lock's checks against c (through the Script helper,
// which sends EVALSHA and falls back to EVAL): one owner at a time,
// release by the owner only, expiry, and mutual exclusion among
// goroutines counting under it.
func redlock(t *testing.T, c redis.UniversalClient, name string) {
	if !lock(t, c, name, "owner-a", time.Minute) {
		t.Fatal("a free lock was not taken")
	}
	if lock(t, c, name, "owner-b", time.Minute) {
		t.Fatal("a held lock was taken again")
	}
	if unlock(t, c, name, "owner-b") {
		t.Fatal("a lock was released by another owner")
	}
	if !unlock(t, c, name, "owner-a") || !lock(t, c, name, "owner-b", 100*time.Millisecond) {
		t.Fatal("the owner could not release, or the next could not take")
	}
	waitFor(t, longTimeout, "the lock to expire", func() bool { return lock(t, c, name, "owner-c", time.Minute) })
	unlock(t, c, name, "owner-c")

	// Mutual exclusion: increments of a plain counter under the lock.
	counter := name + ":counter"
	const workers, rounds = 4, 25
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			token := "worker-" + strconv.Itoa(w)
			for range rounds {
				for !lock(t, c, name, token, 10*time.Second) {
				}
				v, _ := c.Get(ctx, counter).Int()
				c.Set(ctx, counter, v+1, 0)
				if !unlock(t, c, name, token) {
					t.Errorf("%s lost its lock", token)
				}
			}
		}()
	}
	wg.Wait()
	if v, _ := c.Get(ctx, counter).Int(); v != workers*rounds {
		t.Fatalf("counter under the lock = %d, want %d", v, workers*rounds)
	}
}

func TestScriptClients(t *testing.T) {
	p := startBasalt(t)
	c := p.longClient(t, 2)
	t.Run("redlock", func(t *testing.T) {
		// The helper's EVALSHA misses once (NOSCRIPT), loads the
		// script by EVAL, then hits.
		if exists := c.ScriptExists(ctx, lockScript.Hash()).Val(); len(exists) != 1 || exists[0] {
			t.Fatalf("SCRIPT EXISTS before any use: %v", exists)
		}
		redlock(t, c, "lock:{resource}")
		if exists := c.ScriptExists(ctx, lockScript.Hash(), unlockScript.Hash()).Val(); len(exists) != 2 || !exists[0] || !exists[1] {
			t.Fatalf("SCRIPT EXISTS after the helper's EVAL: %v", exists)
		}
	})
	t.Run("multi", func(t *testing.T) {
		// A script queued in MULTI runs inside EXEC; WATCH sees its
		// writes.
		c.Set(ctx, "watched", "1", 0)
		err := c.Watch(ctx, func(tx *redis.Tx) error {
			c.Eval(ctx, "return redis.call('incr', KEYS[1])", []string{"watched"})
			_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, "watched", "lost", 0)
				return nil
			})
			return err
		}, "watched")
		if !errors.Is(err, redis.TxFailedErr) {
			t.Fatalf("EXEC after a script wrote a watched key: %v", err)
		}
		cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Eval(ctx, "return redis.call('incr', KEYS[1])", []string{"watched"})
			p.Eval(ctx, "return redis.call('blmpop', 0, 1, 'nolist', 'left')", nil)
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			t.Fatal(err)
		}
		if v := cmds[0].(*redis.Cmd).Val(); v != int64(3) {
			t.Fatalf("EVAL in EXEC = %v", v)
		}
	})
	t.Run("functions", func(t *testing.T) {
		lib := "#!lua name=counters\nredis.register_function('bump', function(keys, args) return redis.call('incrby', keys[1], args[1]) end)\n" +
			"redis.register_function{function_name='peek', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}}"
		if err := c.FunctionLoad(ctx, lib).Err(); err != nil {
			t.Fatal(err)
		}
		if v, err := c.FCall(ctx, "bump", []string{"fk"}, 5).Int(); err != nil || v != 5 {
			t.Fatalf("FCALL bump = %v, %v", v, err)
		}
		if v, err := c.FCallRO(ctx, "peek", []string{"fk"}).Text(); err != nil || v != "5" {
			t.Fatalf("FCALL_RO peek = %v, %v", v, err)
		}
		if err := c.FCallRO(ctx, "bump", []string{"fk"}, 1).Err(); err == nil || err.Error() != "ERR Can not execute a script with write flag using *_ro command." {
			t.Fatalf("FCALL_RO of a writer: %v", err)
		}
	})
	t.Run("namespaces", func(t *testing.T) {
		// The default namespace's libraries serve every namespace; a
		// namespace's scripts are its own (script_tenant_test.go); their
		// commands run in the caller's namespace.
		p := startBasalt(t, "--requirepass", "admin-token", "--repl-namespace-enabled", "yes")
		admin := newClient(t, &redis.Options{Addr: p.Addr(), Password: "admin-token", ReadTimeout: longTimeout})
		must(t, admin.Do(ctx, "NAMESPACE", "ADD", "tenant", "tenant-token").Err())
		must(t, admin.FunctionLoad(ctx, "#!lua name=ns\nredis.register_function('bumpns', function(keys) return redis.call('incr', keys[1]) end)").Err())
		tenant := newClient(t, &redis.Options{Addr: p.Addr(), Password: "tenant-token", ReadTimeout: longTimeout})
		sha := tenant.ScriptLoad(ctx, "return redis.call('get', KEYS[1])").Val()
		if v, err := tenant.FCall(ctx, "bumpns", []string{"fk"}).Int(); err != nil || v != 1 {
			t.Fatalf("FCALL from a namespace = %v, %v", v, err)
		}
		if v, err := tenant.EvalSha(ctx, sha, []string{"fk"}).Text(); err != nil || v != "1" {
			t.Fatalf("EVALSHA from a namespace = %v, %v", v, err)
		}
		if err := admin.Get(ctx, "fk").Err(); !errors.Is(err, redis.Nil) {
			t.Fatalf("the namespace's FCALL wrote the default namespace: %v", err)
		}
	})
}

// TestScriptPersistence: SCRIPT LOAD and FUNCTION LOAD survive a restart;
// a script only EVAL saw does not, as in Kvrocks. A replica gets them,
// and forgets the scripts when the master flushes them.
func TestScriptPersistence(t *testing.T) {
	dir := t.TempDir()
	p := startBasaltIn(t, dir)
	c := p.longClient(t, 2)
	loaded := c.ScriptLoad(ctx, "return 'loaded'").Val()
	evaluated := redis.NewScript("return 'evaluated'")
	must(t, evaluated.Eval(ctx, c, nil).Err())
	must(t, c.FunctionLoad(ctx, "#!lua name=kept\nredis.register_function('kept', function() return 'kept' end)").Err())
	p.Stop()
	p = startBasaltIn(t, dir)
	c = p.longClient(t, 2)
	if v, err := c.EvalSha(ctx, loaded, nil).Text(); err != nil || v != "loaded" {
		t.Fatalf("EVALSHA of a loaded script after a restart: %v %v", v, err)
	}
	if err := c.EvalSha(ctx, evaluated.Hash(), nil).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOSCRIPT") {
		t.Fatalf("EVALSHA of an EVAL'd script after a restart: %v", err)
	}
	if v, err := c.FCall(ctx, "kept", nil).Text(); err != nil || v != "kept" {
		t.Fatalf("FCALL after a restart: %v %v", v, err)
	}

	// A replica.
	r := startBasalt(t)
	rc := r.longClient(t, 2)
	slaveOf(t, rc, p)
	waitCaughtUp(t, c, rc)
	if v, err := rc.EvalShaRO(ctx, loaded, nil).Text(); err != nil || v != "loaded" {
		t.Fatalf("EVALSHA_RO on the replica: %v %v", v, err)
	}
	if v, err := rc.FCallRO(ctx, "kept", nil).Text(); err == nil || v != "" {
		// kept has no no-writes flag: a replica refuses it.
		t.Fatalf("FCALL_RO of a writing function on the replica: %v %v", v, err)
	}
	must(t, c.FunctionLoad(ctx, "#!lua name=later\nredis.register_function{function_name='later', callback=function() return 'later' end, flags={'no-writes'}}").Err())
	second := c.ScriptLoad(ctx, "return 'second'").Val()
	waitCaughtUp(t, c, rc)
	// The replica reloads its libraries once it applied the batch that
	// changed them, just after its sequence moved.
	waitFor(t, replWait, "FCALL_RO of a library loaded after the sync", func() bool {
		v, err := rc.FCallRO(ctx, "later", nil).Text()
		return err == nil && v == "later"
	})
	if e := rc.ScriptExists(ctx, loaded, second).Val(); len(e) != 2 || !e[0] || !e[1] {
		t.Fatalf("SCRIPT EXISTS on the replica: %v", e)
	}
	if err := rc.ScriptLoad(ctx, "return 1").Err(); err == nil || !strings.HasPrefix(err.Error(), "READONLY") {
		t.Fatalf("SCRIPT LOAD on the replica: %v", err)
	}
	must(t, c.ScriptFlush(ctx).Err())
	must(t, c.FunctionDelete(ctx, "later").Err())
	waitCaughtUp(t, c, rc)
	for _, cl := range []*redis.Client{c, rc} {
		waitFor(t, replWait, "SCRIPT FLUSH and FUNCTION DELETE to reach "+cl.Options().Addr, func() bool {
			e := cl.ScriptExists(ctx, loaded, second).Val()
			err := cl.FCallRO(ctx, "later", nil).Err()
			return len(e) == 2 && !e[0] && !e[1] && err != nil && err.Error() == "ERR Function not found"
		})
	}
}

// TestScriptCluster: a Redlock-style lock through a cluster client, and
// the cluster's refusals: declared keys of two slots, keys of another
// node, keys of another slot than the declared ones.
func TestScriptCluster(t *testing.T) {
	nodes, ids := clusterNodes(t, 2)
	pushTopology(t, nodes, mastersText(nodes, ids, []string{"0-8191", "8192-16383"}), 1)
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{nodes[0].Addr()}, Protocol: 2,
		DialTimeout: time.Minute, ReadTimeout: longTimeout, WriteTimeout: longTimeout, PoolTimeout: longTimeout})
	t.Cleanup(func() { cc.Close() })
	// The Script helper's EVALSHA goes to each node its keys hash to.
	for _, name := range []string{"lock:a", "lock:b", "lock:c"} {
		t.Run(name, func(t *testing.T) { redlock(t, cc, "{"+name+"}") })
	}
	n0 := nodes[0].client(t, 2)
	// "a" is slot 15495 (second node), "b" 3300 and "c" 7365 (first).
	for _, tc := range []struct {
		script string
		keys   []string
		want   string
	}{
		{"return 1", []string{"b", "c"}, "CROSSSLOT "},
		{"return 1", []string{"a"}, "MOVED 15495 127.0.0.1:" + strconv.Itoa(nodes[1].Port)},
		{"return redis.call('get', 'a')", []string{"b"}, "ERR Script attempted to access a non local key in a cluster node script: "},
		{"#!lua\nreturn redis.call('get', 'c')", []string{"b"}, "ERR Script attempted to access keys that do not hash to the same slot script: "},
		{"#!lua flags=allow-cross-slot-keys\nreturn redis.call('get', 'c')", []string{"b"}, ""},
		{"return redis.call('get', 'c')", []string{"b"}, ""},
		{"#!lua flags=no-cluster\nreturn 1", nil, "ERR Can not run script on cluster, 'no-cluster' flag is set."},
	} {
		err := n0.Eval(ctx, tc.script, tc.keys).Err()
		if errors.Is(err, redis.Nil) {
			err = nil
		}
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (tc.want == "" && got != "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("EVAL %q %v: %q, want %q", tc.script, tc.keys, got, tc.want)
		}
	}
}

// TestScriptBusy: a script past busy-reply-threshold makes other clients
// get BUSY; SCRIPT KILL stops a script that has not written, one that
// wrote is UNKILLABLE, and SHUTDOWN NOSAVE stops the server anyway.
func TestScriptBusy(t *testing.T) {
	p := startBasalt(t, "--busy-reply-threshold", "100")
	c := p.longClient(t, 2)
	other := p.longClient(t, 2)
	busy := func(kill string, script []any) chan error {
		done := make(chan error, 1)
		go func() { done <- c.Do(ctx, script...).Err() }()
		waitFor(t, longTimeout, "the script to be busy", func() bool {
			err := other.Ping(ctx).Err()
			return err != nil && strings.HasPrefix(err.Error(), "BUSY Redis is busy running a script. You can only call "+kill+" KILL or SHUTDOWN NOSAVE.")
		})
		return done
	}
	done := busy("SCRIPT", []any{"EVAL", "while true do end", "0"})
	// What Redis lets through while busy.
	if err := other.Do(ctx, "FUNCTION", "KILL").Err(); err == nil || !strings.HasPrefix(err.Error(), "BUSY") {
		t.Errorf("FUNCTION KILL of a script: %v", err)
	}
	if err := other.Do(ctx, "FUNCTION", "STATS").Err(); err == nil || !strings.HasPrefix(err.Error(), "BUSY") {
		t.Errorf("FUNCTION STATS while a script runs: %v", err)
	}
	if err := other.Do(ctx, "SHUTDOWN").Err(); err == nil || !strings.HasPrefix(err.Error(), "BUSY") {
		t.Errorf("SHUTDOWN while busy: %v", err)
	}
	must(t, other.Do(ctx, "SCRIPT", "KILL").Err())
	// SCRIPT KILL answers once the script ended: what comes next is not
	// BUSY (on redis-server it may be, until the script noticed the kill).
	must(t, other.Ping(ctx).Err())
	if err := <-done; err == nil || !strings.HasPrefix(err.Error(), "ERR Script killed by user with SCRIPT KILL...") {
		t.Fatalf("the killed script replied %v", err)
	}
	if err := other.Do(ctx, "SCRIPT", "KILL").Err(); err == nil || err.Error() != "NOTBUSY No scripts in execution right now." {
		t.Fatalf("SCRIPT KILL with nothing running: %v", err)
	}
	must(t, other.Ping(ctx).Err())

	// pcall cannot swallow the kill.
	done = busy("SCRIPT", []any{"EVAL", "while true do pcall(function() while true do end end) end", "0"})
	must(t, other.Do(ctx, "SCRIPT", "KILL").Err())
	if err := <-done; err == nil || !strings.Contains(err.Error(), "Script killed") {
		t.Fatalf("a script looping in pcall replied %v", err)
	}

	// A function, and FUNCTION STATS while it runs.
	must(t, other.FunctionLoad(ctx, "#!lua name=spin\nredis.register_function{function_name='spin', callback=function() while true do end end, flags={'no-writes'}}").Err())
	done = busy("FUNCTION", []any{"FCALL", "spin", "0"})
	stats := other.Do(ctx, "FUNCTION", "STATS").String()
	if !strings.Contains(stats, "running_script [name spin command [FCALL spin 0] duration_ms ") {
		t.Errorf("FUNCTION STATS while a function runs: %s", stats)
	}
	if err := other.Do(ctx, "SCRIPT", "KILL").Err(); err == nil || !strings.HasPrefix(err.Error(), "BUSY Redis is busy running a script. You can only call FUNCTION KILL") {
		t.Errorf("SCRIPT KILL of a function: %v", err)
	}
	must(t, other.Do(ctx, "FUNCTION", "KILL").Err())
	must(t, other.Ping(ctx).Err())
	if err := <-done; err == nil || !strings.HasPrefix(err.Error(), "ERR Script killed by user with SCRIPT KILL...") {
		t.Fatalf("the killed function replied %v", err)
	}

	// A script that wrote cannot be killed; SHUTDOWN NOSAVE ends it all.
	done = busy("SCRIPT", []any{"EVAL", "redis.call('set', 'k', 'v') while true do end", "0"})
	if err := other.Do(ctx, "SCRIPT", "KILL").Err(); err == nil || !strings.HasPrefix(err.Error(), "UNKILLABLE Sorry the script already executed write commands") {
		t.Fatalf("SCRIPT KILL of a script that wrote: %v", err)
	}
	other.Do(ctx, "SHUTDOWN", "NOSAVE")
	if code := p.Wait(longTimeout); code != 0 {
		t.Fatalf("SHUTDOWN NOSAVE of a busy server: exit code %d", code)
	}
	<-done
}

// TestScriptMemory: a script that allocates without end is stopped with
// an error, and the server keeps serving.
func TestScriptMemory(t *testing.T) {
	p := startBasalt(t)
	c := p.longClient(t, 2)
	cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	err := c.Eval(cctx, "local t = {} local mb = string.rep('x', 1048576) while true do t[#t + 1] = mb .. #t end", nil).Err()
	if err == nil || !strings.Contains(err.Error(), "not enough memory") {
		t.Fatalf("an unbounded script replied %v", err)
	}
	if err := c.Eval(ctx, "return string.rep('x', 2^40)", nil).Err(); err == nil || !strings.Contains(err.Error(), "not enough memory") {
		t.Fatalf("string.rep of a terabyte: %v", err)
	}
	for i := range 3 {
		if v, err := c.Eval(ctx, "return ARGV[1]", nil, i).Int(); err != nil || v != i {
			t.Fatalf("after: %v %v", v, err)
		}
	}
}

// TestScriptQueue: script commands from many clients at once run one at a
// time, queued behind the one that leads (commands/scriptqueue.go): each
// client gets its own replies, none runs twice or is lost, the other
// commands keep their turn, and queued scripts answer BUSY once the one
// running is busy, then run again after SCRIPT KILL.
func TestScriptQueue(t *testing.T) {
	t.Parallel()
	// Never busy while the clients race: on a loaded machine a short
	// script can pass 200 ms. The busy part below sets the threshold.
	p := startBasalt(t, "--busy-reply-threshold", "0")
	const clients, rounds = 16, 150
	// Not atomic without the queue's one-at-a-time: a GET, then a SET of
	// one more.
	const bump = "local n = tonumber(redis.call('get', KEYS[1]) or '0') + 1 redis.call('set', KEYS[1], n) redis.call('rpush', KEYS[2], n) return {ARGV[1], n}"
	var wg sync.WaitGroup
	errs := make(chan error, clients+1)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := p.longClient(t, 2)
			me := "client-" + strconv.Itoa(i)
			for range rounds {
				r, err := c.Eval(ctx, bump, []string{"counter", "log"}, me).Slice()
				if err != nil || len(r) != 2 || r[0] != me {
					errs <- fmt.Errorf("%s got %v, %v", me, r, err)
					return
				}
			}
		}()
	}
	stop, getsDone := make(chan struct{}), make(chan struct{})
	var gets int
	go func() {
		defer close(getsDone)
		c := p.longClient(t, 2)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := c.Get(ctx, "counter").Err(); err != nil && !errors.Is(err, redis.Nil) {
				errs <- fmt.Errorf("GET beside the scripts: %v", err)
				return
			}
			gets++
		}
	}()
	wg.Wait()
	close(stop)
	<-getsDone
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c := p.client(t, 2)
	if n, err := c.Get(ctx, "counter").Int(); err != nil || n != clients*rounds {
		t.Fatalf("counter = %d (%v), want %d", n, err, clients*rounds)
	}
	log, err := c.LRange(ctx, "log", 0, -1).Result()
	if err != nil || len(log) != clients*rounds {
		t.Fatalf("log has %d entries (%v), want %d", len(log), err, clients*rounds)
	}
	for i, v := range log {
		if v != strconv.Itoa(i+1) {
			t.Fatalf("log[%d] = %s: two runs interleaved", i, v)
		}
	}
	if gets == 0 {
		t.Fatal("no GET got through while the scripts ran")
	}

	// Scripts queued behind a busy one answer BUSY; after SCRIPT KILL they
	// run again.
	must(t, c.ConfigSet(ctx, "busy-reply-threshold", "200").Err())
	spinner := p.longClient(t, 2)
	spun := make(chan error, 1)
	go func() { spun <- spinner.Eval(ctx, "while true do end", nil).Err() }()
	waitFor(t, longTimeout, "the script to be busy", func() bool {
		err := c.Ping(ctx).Err()
		return err != nil && strings.HasPrefix(err.Error(), "BUSY ")
	})
	queued := make([]chan error, 4)
	for i := range queued {
		queued[i] = make(chan error, 1)
		go func() { queued[i] <- p.longClient(t, 2).Eval(ctx, "return 1", nil).Err() }()
	}
	for i, q := range queued {
		if err := <-q; err == nil || !strings.HasPrefix(err.Error(), "BUSY ") {
			t.Errorf("queued script %d: %v, want BUSY", i, err)
		}
	}
	must(t, c.Do(ctx, "SCRIPT", "KILL").Err())
	if err := <-spun; err == nil || !strings.Contains(err.Error(), "Script killed") {
		t.Fatalf("the spinning script replied %v", err)
	}
	if v, err := c.Eval(ctx, "return 7", nil).Int(); err != nil || v != 7 {
		t.Fatalf("a script after the kill: %d, %v", v, err)
	}
}

// TestScriptJoint covers the rounds of scripts whose writes reach RocksDB
// in one write (commands/scriptqueue.go): a reply comes only once its
// script's writes are applied and durable, the commands that write around
// the round's joint (FLUSHALL, PFCOUNT's cache, the deletion of a key
// found expired) keep their order and do not wait for it, and a client
// blocked on a key a script wrote gets what it wrote.
func TestScriptJoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Never busy: a slow machine must not turn the long script of the
	// expiry case into BUSY replies.
	flags := []string{"--notify-keyspace-events", "KEA", "--busy-reply-threshold", "0"}
	p := startBasaltIn(t, dir, flags...)
	// Keyspace events are published, and keys found expired deleted,
	// only while someone listens.
	listen := func(p *proc) *redis.PubSub {
		sub := p.longClient(t, 2).PSubscribe(ctx, "__keyspace@0__:*")
		t.Cleanup(func() { sub.Close() })
		if _, err := sub.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		return sub
	}
	listen(p)
	const clients, rounds = 8, 100
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, reader := p.longClient(t, 2), p.longClient(t, 2)
			key := "joint:" + strconv.Itoa(i)
			hll := "{" + key + "}:hll"
			for n := 1; n <= rounds; n++ {
				// PFCOUNT writes its cached count under the key's lock
				// from inside the script.
				got, err := c.Eval(ctx, "redis.call('set', KEYS[1], ARGV[1]) redis.call('pfadd', KEYS[2], ARGV[1]) return redis.call('pfcount', KEYS[2])", []string{key, hll}, n).Int()
				if err != nil || got != n {
					errs <- fmt.Errorf("%s: PFCOUNT in the script = %d, %v; want %d", key, got, err, n)
					return
				}
				// Answered means applied: another connection reads it.
				if v, err := reader.Get(ctx, key).Int(); err != nil || v != n {
					errs <- fmt.Errorf("%s read %d (%v) after the reply of the script that set %d", key, v, err, n)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	// What was answered survives kill -9.
	p.Kill()
	p = startBasaltAt(t, dir, freePort(t), flags...)
	events := listen(p).Channel()
	c := p.client(t, 2)
	for i := range clients {
		if v, err := c.Get(ctx, "joint:"+strconv.Itoa(i)).Int(); err != nil || v != rounds {
			t.Fatalf("after kill -9, joint:%d = %d (%v), want %d", i, v, err, rounds)
		}
	}

	// A key the script wrote, found expired by a later command of the
	// same script: with expired events on, it is deleted under the key's
	// lock, which the round holds. Time stands still inside a script, as
	// in Redis, so the GET still finds it.
	spin := "redis.call('set', KEYS[1], 'v', 'px', 1) local n = 0 while n < 3000000 do n = n + 1 end return redis.call('get', KEYS[1])"
	if v, err := c.Eval(ctx, spin, []string{"short"}).Text(); err != nil || v != "v" {
		t.Fatalf("GET of a key set with PX 1 in the same script: %q, %v; want v as redis-server", v, err)
	}
	// A script queued behind one that wrote a key with PX 1 runs in its
	// round, holding that key's lock, and finds the key expired: with
	// expired events on it deletes it through the round, as it must
	// (through its own lock, it would wait for itself). The event of the
	// first one's SET tells that it runs.
	spun := make(chan error, 1)
	go func() {
		spun <- p.longClient(t, 2).Eval(ctx, "redis.call('set', KEYS[1], 'v', 'px', 1) local n = 0 while n < 10000000 do n = n + 1 end return 1", []string{"brief"}).Err()
	}()
	for m := range events {
		if m.Channel == "__keyspace@0__:brief" && m.Payload == "set" {
			break
		}
	}
	if n, err := p.longClient(t, 2).Eval(ctx, "return redis.call('exists', KEYS[1])", []string{"brief"}).Int(); err != nil || n != 0 {
		t.Fatalf("EXISTS of a key expired before the script began: %d, %v", n, err)
	}
	must(t, <-spun)
	// FLUSHALL applies the writes before it first, and those after it
	// come after it.
	n, err := c.Eval(ctx, "redis.call('set', 'a', '1') redis.call('flushall') redis.call('set', 'b', '2') return redis.call('exists', 'a', 'b')", nil).Int()
	if err != nil || n != 1 {
		t.Fatalf("EXISTS a b after SET a, FLUSHALL, SET b in a script: %d, %v; want 1", n, err)
	}
	if c.Exists(ctx, "a").Val() != 0 || c.Get(ctx, "b").Val() != "2" {
		t.Fatal("after the script, a survived FLUSHALL or b was lost")
	}
	// A client blocked on a list gets what a script pushed.
	popped := make(chan []string, 1)
	go func() { popped <- p.longClient(t, 2).BLPop(ctx, longTimeout, "jobs").Val() }()
	waitFor(t, longTimeout, "BLPOP to block", func() bool {
		return strings.Contains(c.ClientList(ctx).Val(), "cmd=blpop")
	})
	must(t, c.Eval(ctx, "redis.call('set', 'other', '1') return redis.call('rpush', KEYS[1], 'job')", []string{"jobs"}).Err())
	if got := <-popped; len(got) != 2 || got[1] != "job" {
		t.Fatalf("BLPOP woken by a script's RPUSH got %v", got)
	}
}
