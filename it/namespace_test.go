package it

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// tenant connects to p with token, on a single connection.
func tenant(t *testing.T, p *proc, token string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: p.Addr(), Password: token, PoolSize: 1, Protocol: 2})
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("AUTH with %q: %v", token, err)
	}
	return c
}

func writeConf(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "basalt.conf")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestNamespaceCommands(t *testing.T) {
	conf := writeConf(t, "# tenants", "requirepass admin", "namespace.ns1 token1")
	p := startBasalt(t, "-c", conf)
	admin := tenant(t, p, "admin")
	do := func(args ...any) (any, error) { return admin.Do(ctx, args...).Result() }
	expect := func(want string, args ...any) {
		t.Helper()
		got, err := do(args...)
		if err != nil {
			got = err.Error()
		}
		if s, ok := got.(string); !ok || s != want {
			t.Errorf("%v = %v, want %q", args, got, want)
		}
	}
	expect("token1", "NAMESPACE", "GET", "ns1")
	if v, err := do("NAMESPACE", "GET", "nope"); err != redis.Nil {
		t.Errorf("GET of an unknown namespace = %v, %v", v, err)
	}
	expect("OK", "NAMESPACE", "ADD", "ns2", "token2")
	expect("ERR the namespace already exists", "NAMESPACE", "ADD", "ns2", "other")
	expect("ERR the token already exists", "NAMESPACE", "ADD", "ns3", "token1")
	expect("ERR the token is duplicated with requirepass or masterauth", "NAMESPACE", "ADD", "ns3", "admin")
	expect("ERR forbidden to add the default namespace", "NAMESPACE", "ADD", "__namespace", "t")
	expect("ERR forbidden to delete the default namespace", "NAMESPACE", "DEL", "__namespace")
	expect("ERR the namespace was not found", "NAMESPACE", "DEL", "nope")
	expect("ERR NAMESPACE subcommand must be one of GET, SET, DEL, ADD", "NAMESPACE", "LIST", "x")
	expect("OK", "NAMESPACE", "SET", "ns1", "token1b")
	all, _ := admin.Do(ctx, "NAMESPACE", "GET", "*").StringSlice()
	if strings.Join(all, " ") != "ns1 token1b ns2 token2 __namespace admin" {
		t.Errorf("NAMESPACE GET * = %q", all)
	}

	// A changed token works at once; the old one no longer does.
	old := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: p.Addr(), Password: "token1", PoolSize: 1, Protocol: 2})
	defer old.Close()
	if err := old.Ping(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "WRONGPASS") {
		t.Errorf("AUTH with a replaced token: %v", err)
	}
	ns1 := tenant(t, p, "token1b")
	ns1.Set(ctx, "k", "ns1 value", 0)
	for _, args := range [][]any{{"NAMESPACE", "GET", "*"}, {"FLUSHALL"}, {"CONFIG", "GET", "port"}, {"COMPACT"}, {"SHUTDOWN"}} {
		if err := ns1.Do(ctx, args...).Err(); err == nil || err.Error() != "ERR admin permission required to perform the command" {
			t.Errorf("tenant %v: %v", args, err)
		}
	}

	// The tokens were rewritten into the config file and survive a restart,
	// with the data.
	text, _ := os.ReadFile(conf)
	if !strings.Contains(string(text), "namespace.ns1 token1b\n") || !strings.Contains(string(text), "namespace.ns2 token2\n") || !strings.Contains(string(text), "# tenants") {
		t.Errorf("config file after NAMESPACE changes:\n%s", text)
	}
	expect("OK", "NAMESPACE", "DEL", "ns2")
	p.Stop()
	again := startBasaltIn(t, p.Dir, "-c", conf)
	if v := tenant(t, again, "token1b").Get(ctx, "k").Val(); v != "ns1 value" {
		t.Errorf("after restart ns1's key = %q", v)
	}
	gone := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: again.Addr(), Password: "token2", PoolSize: 1, Protocol: 2})
	defer gone.Close()
	if err := gone.Ping(ctx).Err(); err == nil {
		t.Error("a deleted namespace's token still authenticates after restart")
	}
}

// TestNamespacesWithoutConfigFile: with no config file to keep tokens in,
// NAMESPACE changes are refused unless repl-namespace-enabled keeps them
// in the database, as Kvrocks does; a data directory then never holds
// tokens that a Kvrocks without that option refuses to open.
func TestNamespacesWithoutConfigFile(t *testing.T) {
	plain := startBasalt(t, "--requirepass", "admin")
	err := tenant(t, plain, "admin").Do(ctx, "NAMESPACE", "ADD", "ns", "tok").Err()
	if err == nil || err.Error() != "ERR modify namespace requires the server is running with a configuration file or enabled namespace replication" {
		t.Errorf("NAMESPACE ADD without a config file or repl-namespace-enabled: %v", err)
	}
	p := startBasalt(t, "--requirepass", "admin", "--repl-namespace-enabled", "yes")
	if err := tenant(t, p, "admin").Do(ctx, "NAMESPACE", "ADD", "ns", "tok").Err(); err != nil {
		t.Fatal(err)
	}
	tenant(t, p, "tok").Set(ctx, "k", "v", 0)
	p.Stop()
	if out, code := runBasaltCommand(t, "--dir", p.Dir, "--requirepass", "admin", "--port", strconv.Itoa(freePort(t))); code == 0 || !strings.Contains(out, "repl-namespace-enabled") {
		t.Errorf("tokens in the database, started without repl-namespace-enabled: exit %d\n%s", code, out)
	}
	again := startBasaltIn(t, p.Dir, "--requirepass", "admin", "--repl-namespace-enabled", "yes")
	if v := tenant(t, again, "tok").Get(ctx, "k").Val(); v != "v" {
		t.Errorf("after restart the namespace's key = %q", v)
	}
	// NAMESPACE DEL keeps the data: the namespace added back sees it.
	admin := tenant(t, again, "admin")
	for _, args := range [][]any{{"NAMESPACE", "DEL", "ns"}, {"NAMESPACE", "ADD", "ns", "tok2"}} {
		if err := admin.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if v := tenant(t, again, "tok2").Get(ctx, "k").Val(); v != "v" {
		t.Errorf("after NAMESPACE DEL and ADD the namespace's key = %q", v)
	}
}

func TestNamespaceStartupChecks(t *testing.T) {
	dir := t.TempDir()
	out, code := runBasaltCommand(t, "-c", writeConf(t, "namespace.ns token"), "--dir", dir)
	if code == 0 || !strings.Contains(out, "requirepass") {
		t.Errorf("namespaces without requirepass: exit %d\n%s", code, out)
	}
	out, code = runBasaltCommand(t, "-c", writeConf(t, "requirepass admin", "namespace.ns token", "cluster-enabled yes"), "--dir", dir)
	if code == 0 || !strings.Contains(out, "cluster") {
		t.Errorf("namespaces in cluster mode: exit %d\n%s", code, out)
	}
}

// TestNamespaceIsolation has two tenants and the admin write the same key
// names of every type: none sees another's.
func TestNamespaceIsolation(t *testing.T) {
	p := startBasalt(t, "-c", writeConf(t, "requirepass admin", "namespace.a token-a", "namespace.b token-b"))
	clients := map[string]*redis.Client{"a": tenant(t, p, "token-a"), "b": tenant(t, p, "token-b"), "admin": tenant(t, p, "admin")}
	for name, c := range clients {
		c.Set(ctx, "string", name, 0)
		c.HSet(ctx, "hash", "owner", name)
		c.SAdd(ctx, "set", name)
		c.RPush(ctx, "list", name)
		c.ZAdd(ctx, "zset", redis.Z{Score: 1, Member: name})
		c.MSet(ctx, "m1", name, "m2", name)
		c.SInterStore(ctx, "setcopy", "set")
		c.Copy(ctx, "string", "copied", 0, false)
		c.Rename(ctx, "m2", "renamed")
	}
	for name, c := range clients {
		checks := map[string]string{
			"GET":    c.Get(ctx, "string").Val(),
			"HGET":   c.HGet(ctx, "hash", "owner").Val(),
			"SMEM":   strings.Join(c.SMembers(ctx, "setcopy").Val(), ","),
			"LRANGE": strings.Join(c.LRange(ctx, "list", 0, -1).Val(), ","),
			"ZRANGE": strings.Join(c.ZRange(ctx, "zset", 0, -1).Val(), ","),
			"MGET":   c.Get(ctx, "m1").Val(),
			"COPY":   c.Get(ctx, "copied").Val(),
			"RENAME": c.Get(ctx, "renamed").Val(),
		}
		for what, got := range checks {
			if got != name {
				t.Errorf("%s: %s sees %q", name, what, got)
			}
		}
		keys := c.Keys(ctx, "*").Val()
		sort.Strings(keys)
		if strings.Join(keys, ",") != "copied,hash,list,m1,renamed,set,setcopy,string,zset" {
			t.Errorf("%s: KEYS * = %v", name, keys)
		}
		if n := c.DBSize(ctx).Val(); n != 9 {
			t.Errorf("%s: DBSIZE = %d", name, n)
		}
		scanned, _ := c.Scan(ctx, 0, "*", 1000).Val()
		random := c.RandomKey(ctx).Val()
		if len(scanned) != 9 || !strings.Contains(","+strings.Join(keys, ",")+",", ","+random+",") {
			t.Errorf("%s: SCAN found %d keys, RANDOMKEY %q", name, len(scanned), random)
		}
	}
	// redis-cli, and HELLO 3 with AUTH, land in the namespace too.
	for name, token := range map[string]string{"a": "token-a", "b": "token-b"} {
		if got := p.cli(t, "--no-auth-warning", "-a", token, "HGET", "hash", "owner"); got != name {
			t.Errorf("redis-cli -a %s HGET hash owner = %q", token, got)
		}
		hello := redis.NewClient(&redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: p.Addr(), PoolSize: 1, Protocol: 3, Username: "default", Password: token})
		if got := hello.LRange(ctx, "list", 0, -1).Val(); len(got) != 1 || got[0] != name {
			t.Errorf("HELLO 3 AUTH default %s: LRANGE list = %v", token, got)
		}
		hello.Close()
	}
	if err := clients["a"].FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if n := clients["a"].DBSize(ctx).Val(); n != 0 {
		t.Errorf("after FLUSHDB tenant a has %d keys", n)
	}
	if v := clients["b"].Get(ctx, "string").Val(); v != "b" {
		t.Errorf("FLUSHDB in tenant a touched tenant b: %q", v)
	}
	if v := clients["admin"].Get(ctx, "string").Val(); v != "admin" {
		t.Errorf("FLUSHDB in tenant a touched the default namespace: %q", v)
	}
}

func TestMoveX(t *testing.T) {
	p := startBasalt(t, "-c", writeConf(t, "requirepass admin", "namespace.a token-a", "namespace.b token-b"))
	a, b := tenant(t, p, "token-a"), tenant(t, p, "token-b")
	a.HSet(ctx, "h", "f1", "v1", "f2", "v2")
	a.Set(ctx, "taken", "a", 0)
	b.Set(ctx, "taken", "b", 0)
	for _, tt := range []struct {
		key, token string
		want       any
	}{
		{"h", "token-b", int64(1)},
		{"h", "token-b", int64(0)}, // gone from a
		{"taken", "token-b", int64(0)},
		{"taken", "nope", "ERR Invalid password"},
	} {
		got, err := a.Do(ctx, "MOVEX", tt.key, tt.token).Result()
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("MOVEX %s %s = %v, want %v", tt.key, tt.token, got, tt.want)
		}
	}
	if m := b.HGetAll(ctx, "h").Val(); len(m) != 2 || m["f2"] != "v2" {
		t.Errorf("moved hash in b: %v", m)
	}
	if n := a.Exists(ctx, "h").Val(); n != 0 {
		t.Error("moved hash still in a")
	}
	if v := a.Get(ctx, "taken").Val(); v != "a" {
		t.Errorf("MOVEX onto an existing key changed the source: %q", v)
	}
}

// TestNamespacesUnderConcurrency runs 200 connections over 10 namespaces,
// each writing its own keys and a counter its namespace shares, then
// checks every namespace's DBSIZE and contents.
func TestNamespacesUnderConcurrency(t *testing.T) {
	const namespaces, conns, ops = 10, 20, 30
	lines := []string{"requirepass admin"}
	for n := 0; n < namespaces; n++ {
		lines = append(lines, "namespace.ns"+strconv.Itoa(n)+" token"+strconv.Itoa(n))
	}
	p := startBasalt(t, "-c", writeConf(t, lines...))
	var wg sync.WaitGroup
	for n := 0; n < namespaces; n++ {
		for j := 0; j < conns; j++ {
			wg.Add(1)
			go func(n, j int) {
				defer wg.Done()
				// No retries: a pipeline re-sent after a timeout would
				// run its RPUSH and INCR twice.
				opts := longOptions(p.Addr(), 2)
				opts.Password, opts.PoolSize = "token"+strconv.Itoa(n), 1
				c := redis.NewClient(opts)
				defer c.Close()
				id := strconv.Itoa(j)
				for i := 0; i < ops; i++ {
					v := strconv.Itoa(i)
					pipe := c.Pipeline()
					pipe.Set(ctx, "s:"+id, "ns"+strconv.Itoa(n)+":"+v, 0)
					pipe.HSet(ctx, "h:"+id, "f"+v, v)
					pipe.SAdd(ctx, "set:"+id, v)
					pipe.RPush(ctx, "l:"+id, v)
					pipe.ZAdd(ctx, "z:"+id, redis.Z{Score: float64(i), Member: v})
					pipe.Incr(ctx, "counter")
					if _, err := pipe.Exec(ctx); err != nil {
						t.Error(err)
						return
					}
				}
			}(n, j)
		}
	}
	wg.Wait()
	for n := 0; n < namespaces; n++ {
		c := tenant(t, p, "token"+strconv.Itoa(n))
		if got := c.DBSize(ctx).Val(); got != conns*5+1 {
			t.Errorf("ns%d DBSIZE = %d, want %d", n, got, conns*5+1)
		}
		if got := c.Get(ctx, "counter").Val(); got != strconv.Itoa(conns*ops) {
			t.Errorf("ns%d counter = %s, want %d", n, got, conns*ops)
		}
		for j := 0; j < conns; j++ {
			id := strconv.Itoa(j)
			last := strconv.Itoa(ops - 1)
			if v := c.Get(ctx, "s:"+id).Val(); v != "ns"+strconv.Itoa(n)+":"+last {
				t.Fatalf("ns%d s:%s = %q", n, id, v)
			}
			if l := c.HLen(ctx, "h:"+id).Val() + c.SCard(ctx, "set:"+id).Val() + c.LLen(ctx, "l:"+id).Val() + c.ZCard(ctx, "z:"+id).Val(); l != 4*ops {
				t.Fatalf("ns%d collections of connection %s hold %d elements, want %d", n, id, l, 4*ops)
			}
			if items := c.LRange(ctx, "l:"+id, 0, -1).Val(); items[0] != "0" || items[ops-1] != last {
				t.Fatalf("ns%d l:%s = %v", n, id, items)
			}
		}
	}
}

// TestInfoKeyspacePerNamespace checks that INFO keyspace shows each
// namespace's own figures, from a walk DBSIZE SCAN refreshes rather than
// one per INFO.
func TestInfoKeyspacePerNamespace(t *testing.T) {
	p := startBasalt(t, "-c", writeConf(t, "requirepass admin", "namespace.a token-a"))
	a, admin := tenant(t, p, "token-a"), tenant(t, p, "admin")
	for i := 0; i < 5; i++ {
		a.Set(ctx, "k"+strconv.Itoa(i), "v", time.Hour)
	}
	admin.Set(ctx, "only-admin", "v", 0)
	keyspace := func(c *redis.Client) string { return c.Info(ctx, "keyspace").Val() }
	if info := keyspace(a); !strings.Contains(info, "db0:keys=5,expires=5,") || !strings.Contains(info, "# Last DBSIZE SCAN time: ") {
		t.Fatalf("tenant a INFO keyspace:\n%s", info)
	}
	if info := keyspace(admin); !strings.Contains(info, "db0:keys=1,expires=0,") {
		t.Fatalf("admin INFO keyspace:\n%s", info)
	}
	for i := 5; i < 8; i++ {
		a.Set(ctx, "k"+strconv.Itoa(i), "v", 0)
	}
	if info := keyspace(a); !strings.Contains(info, "db0:keys=5,") {
		t.Errorf("INFO keyspace walked again without DBSIZE SCAN:\n%s", info)
	}
	if err := a.Do(ctx, "DBSIZE", "SCAN").Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(keyspace(a), "db0:keys=8,expires=5,") {
		if time.Now().After(deadline) {
			t.Fatalf("DBSIZE SCAN did not refresh INFO keyspace:\n%s", keyspace(a))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReplNamespaceEnabled keeps the tokens in the database even with a
// config file, whose rewrite then drops the namespace lines.
func TestReplNamespaceEnabled(t *testing.T) {
	conf := writeConf(t, "requirepass admin", "repl-namespace-enabled yes", "namespace.x tokx")
	p := startBasalt(t, "-c", conf)
	if err := tenant(t, p, "admin").Do(ctx, "NAMESPACE", "ADD", "y", "toky").Err(); err != nil {
		t.Fatal(err)
	}
	if text, _ := os.ReadFile(conf); strings.Contains(string(text), "namespace.") {
		t.Errorf("the config file still holds namespace lines:\n%s", text)
	}
	p.Stop()
	again := startBasaltIn(t, p.Dir, "-c", conf)
	for _, token := range []string{"tokx", "toky"} {
		tenant(t, again, token)
	}
	again.Stop()
	out, code := runBasaltCommand(t, "-c", conf, "--dir", p.Dir, "--repl-namespace-enabled", "no", "--port", strconv.Itoa(freePort(t)))
	if code == 0 || !strings.Contains(out, "repl-namespace-enabled") {
		t.Errorf("tokens in the database with repl-namespace-enabled no: exit %d\n%s", code, out)
	}
}
