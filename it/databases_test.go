package it

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// databasesScript is run on redis-server (16 databases) and on Basalt
// with redis-databases 16, on one raw connection: the replies must be the
// same bytes.
var databasesScript = [][]string{
	{"SET", "foo", "db0"}, {"SELECT", "1"}, {"GET", "foo"}, {"SET", "foo", "db1"}, {"SET", "bar", "b1"},
	{"DBSIZE"}, {"KEYS", "b*"}, {"SCAN", "0", "MATCH", "f*"}, {"SELECT", "0"}, {"GET", "foo"}, {"DBSIZE"},
	{"SELECT", "16"}, {"SELECT", "-1"}, {"SELECT", "x"}, {"GET", "foo"},
	{"MOVE", "foo", "1"}, {"MOVE", "foo", "2"}, {"MOVE", "foo", "0"}, {"MOVE", "foo", "16"}, {"MOVE", "foo", "x"},
	{"MOVE", "nokey", "3"}, {"EXISTS", "foo"}, {"SELECT", "2"}, {"GET", "foo"}, {"PEXPIRE", "foo", "100000"},
	{"MOVE", "foo", "3"}, {"SELECT", "3"}, {"GET", "foo"}, {"FLUSHDB"}, {"DBSIZE"}, {"SELECT", "1"}, {"DBSIZE"},
	{"MULTI"}, {"SELECT", "4"}, {"SET", "in4", "x"}, {"EXEC"}, {"GET", "in4"}, {"SELECT", "1"}, {"EXISTS", "in4"},
	{"FLUSHALL"}, {"SELECT", "4"}, {"DBSIZE"},
}

// TestRedisDatabases: with redis-databases N, SELECT, MOVE, DBSIZE, KEYS,
// SCAN, FLUSHDB, FLUSHALL and MULTI answer as redis-server's databases do
// (Kvrocks 2.15, KVROCKS-TYPES.md §8); PUBLISH reaches subscribers of
// every database, and keyspace events name the database.
func TestRedisDatabases(t *testing.T) {
	b, r := dial(t, startBasalt(t, "--redis-databases", "16")), dial(t, startRedis(t))
	for _, args := range databasesScript {
		want, got := r.do(args...), b.do(args...)
		if got != want {
			t.Errorf("%v: basalt %q, redis %q", args, got, want)
		}
	}

	p := startBasalt(t, "--redis-databases", "4", "--notify-keyspace-events", "KEA")
	sub := dial(t, p)
	sub.do("SUBSCRIBE", "news")
	sub.do("PSUBSCRIBE", "__keyspace@*")
	pub := dial(t, p)
	pub.do("SELECT", "3")
	if got := pub.do("PUBLISH", "news", "hi"); got != ":1\r\n" {
		t.Errorf("PUBLISH from database 3 reached %q subscribers", got)
	}
	if got := sub.reply(); got != "*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$2\r\nhi\r\n" {
		t.Errorf("message: %q", got)
	}
	pub.do("SET", "k", "v")
	if got := sub.reply(); got != "*4\r\n$8\r\npmessage\r\n$12\r\n__keyspace@*\r\n$16\r\n__keyspace@3__:k\r\n$3\r\nset\r\n" {
		t.Errorf("keyspace event of database 3: %q", got)
	}
	if got := pub.do("INFO", "keyspace"); !strings.Contains(got, "\r\ndb3:keys=") {
		t.Errorf("INFO keyspace in database 3: %q", got)
	}

	// A client tracking a key of database 3 hears of its FLUSHDB.
	tr := dial(t, p)
	tr.do("HELLO", "3")
	tr.do("SELECT", "3")
	tr.do("CLIENT", "TRACKING", "ON")
	tr.do("GET", "k")
	pub.do("FLUSHDB")
	if got := tr.reply(); got != ">2\r\n$10\r\ninvalidate\r\n_\r\n" {
		t.Errorf("invalidation of a database's FLUSHDB: %q", got)
	}
}

// TestRedisDatabasesOnDisk: database 1's keys are namespace db1's, as
// Kvrocks 2.15 keeps them (key bytes 03 646231 666f6f): a Kvrocks 2.10
// given namespace db1 reads them through its token, and database 0's
// through the admin; the default (no redis-databases) keeps SELECT a no-op
// on one database, as today.
func TestRedisDatabasesOnDisk(t *testing.T) {
	dir := t.TempDir()
	p := startBasaltIn(t, dir, "--redis-databases", "2")
	c := dial(t, p)
	c.do("SET", "foo", "zero")
	c.do("SELECT", "1")
	c.do("SET", "foo", "one")
	p.Stop()

	conf := filepath.Join(t.TempDir(), "kvrocks.conf")
	if err := os.WriteFile(conf, []byte("requirepass admin\nnamespace.db1 token1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := startKvrocksIn(t, dir, "-c", conf)
	for token, want := range map[string]string{"admin": "$4\r\nzero\r\n", "token1": "$3\r\none\r\n"} {
		kc := dial(t, k)
		kc.do("AUTH", token)
		if got := kc.do("GET", "foo"); got != want {
			t.Errorf("Kvrocks, AUTH %s: GET foo = %q, want %q", token, got, want)
		}
	}
	stopClean(t, k)

	// Without redis-databases, the same directory is database 0 alone.
	q := dial(t, startBasaltIn(t, dir))
	for _, step := range [][2]string{{"SELECT 1", "+OK\r\n"}, {"GET foo", "$4\r\nzero\r\n"}, {"SELECT 99", "+OK\r\n"}, {"DBSIZE", ":1\r\n"}} {
		if got := q.do(strings.Fields(step[0])...); got != step[1] {
			t.Errorf("without redis-databases, %s = %q, want %q", step[0], got, step[1])
		}
	}
}

// TestRedisDatabasesRefusesNamespaces: databases are namespaces, so a
// server with namespace tokens (or in cluster mode) refuses
// redis-databases at start, and NAMESPACE ADD is refused beside it.
func TestRedisDatabasesRefusesNamespaces(t *testing.T) {
	conf := writeConf(t, "requirepass admin", "namespace.ns1 token1", "redis-databases 4")
	out, code := runBasaltCommand(t, "-c", conf, "--dir", t.TempDir(), "--port", "1")
	if code == 0 || !strings.Contains(out, "redis-databases is not allowed with namespaces") {
		t.Errorf("start with namespaces and redis-databases: exit %d\n%s", code, out)
	}
	p := startBasalt(t, "-c", writeConf(t, "requirepass admin", "redis-databases 4"))
	c := dial(t, p)
	c.do("AUTH", "admin")
	if got := c.do("NAMESPACE", "ADD", "ns1", "token1"); got != "-ERR forbidden to add namespace when redis-databases was enabled\r\n" {
		t.Errorf("NAMESPACE ADD: %q", got)
	}
	if got := c.do("CONFIG", "SET", "redis-databases", "8"); !strings.HasPrefix(got, "-ERR") {
		t.Errorf("CONFIG SET redis-databases: %q", got)
	}
}
