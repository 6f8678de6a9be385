package it

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// tenant connects to p with token, on a single connection.
func tenant(t *testing.T, p *proc, token string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), Password: token, PoolSize: 1, Protocol: 2})
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
	old := redis.NewClient(&redis.Options{Addr: p.Addr(), Password: "token1", PoolSize: 1, Protocol: 2})
	defer old.Close()
	if err := old.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "invalid password") {
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
	gone := redis.NewClient(&redis.Options{Addr: again.Addr(), Password: "token2", PoolSize: 1, Protocol: 2})
	defer gone.Close()
	if err := gone.Ping(ctx).Err(); err == nil {
		t.Error("a deleted namespace's token still authenticates after restart")
	}
}

// TestNamespacesWithoutConfigFile keeps tokens in the database.
func TestNamespacesWithoutConfigFile(t *testing.T) {
	p := startBasalt(t, "--requirepass", "admin")
	if err := tenant(t, p, "admin").Do(ctx, "NAMESPACE", "ADD", "ns", "tok").Err(); err != nil {
		t.Fatal(err)
	}
	tenant(t, p, "tok").Set(ctx, "k", "v", 0)
	p.Stop()
	again := startBasaltIn(t, p.Dir, "--requirepass", "admin")
	if v := tenant(t, again, "tok").Get(ctx, "k").Val(); v != "v" {
		t.Errorf("after restart the namespace's key = %q", v)
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
