package it

import (
	"net"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestMigrateCommandDiff runs the same MIGRATE calls from a redis-server
// and from Basalt, each to a redis-server target of its own, and compares
// the replies and what each source and target then hold: keys moved with
// their TTLs, COPY, REPLACE, KEYS, NOKEY, BUSYKEY and AUTH errors of the
// target, a target that does not listen or does not answer, and bad input.
// The AUTH password never shows in SLOWLOG.
func TestMigrateCommandDiff(t *testing.T) {
	t.Parallel()
	sources := []*proc{startRedis(t), startBasalt(t)}
	// Each source has a target, and one that requires a password.
	targets := []*proc{startRedis(t), startRedis(t)}
	authTargets := []*proc{startRedis(t, "--requirepass", "sesame"), startRedis(t, "--requirepass", "sesame")}
	// A target that accepts and never answers.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	_, silentPort, _ := net.SplitHostPort(silent.Addr().String())
	deadPort := strconv.Itoa(freePort(t))

	type step struct {
		on   string // "src", or "target" (the first target)
		args []string
	}
	steps := []step{
		{"src", []string{"SET", "a", "1", "EX", "1000"}},
		{"src", []string{"RPUSH", "l", "x", "y"}},
		{"src", []string{"HSET", "h", "f", "v"}},
		{"src", []string{"SADD", "s", "m"}},
		{"src", []string{"MIGRATE", "$host", "$port", "a", "0", "5000"}},
		{"src", []string{"EXISTS", "a"}},
		{"target", []string{"GET", "a"}},
		{"target", []string{"EVAL", "return redis.call('TTL', 'a') > 990", "0"}},
		{"src", []string{"MIGRATE", "$host", "$port", "", "0", "5000", "COPY", "KEYS", "l", "nokey", "h"}},
		{"src", []string{"EXISTS", "l", "h"}},
		{"target", []string{"LRANGE", "l", "0", "-1"}},
		{"src", []string{"MIGRATE", "$host", "$port", "", "0", "5000", "KEYS", "s", "l", "h"}},
		{"src", []string{"EXISTS", "s", "l", "h"}},
		{"target", []string{"SMEMBERS", "s"}},
		{"src", []string{"MIGRATE", "$host", "$port", "", "0", "5000", "REPLACE", "KEYS", "l", "h"}},
		{"src", []string{"EXISTS", "l", "h"}},
		{"src", []string{"MIGRATE", "$host", "$port", "nokey", "0", "5000"}},
		{"src", []string{"MIGRATE", "$host", "$port", "", "0", "5000", "KEYS", "n1", "n2"}},
		{"src", []string{"SET", "z", "1"}},
		{"src", []string{"MIGRATE", "$host", "$port", "z", "0", "5000", "AUTH", "secret"}},
		{"src", []string{"MIGRATE", "$host", "$auth_port", "z", "0", "5000", "AUTH", "wrong"}},
		{"src", []string{"MIGRATE", "$host", "$auth_port", "z", "0", "5000", "AUTH2", "default", "sesame", "COPY"}},
		{"src", []string{"MIGRATE", "$host", "$auth_port", "z", "0", "5000", "AUTH", "sesame", "REPLACE"}},
		{"src", []string{"EXISTS", "z"}},
		{"src", []string{"SET", "y", "1"}},
		{"src", []string{"MIGRATE", "$host", deadPort, "y", "0", "5000"}},
		{"src", []string{"MIGRATE", "$host", silentPort, "y", "0", "200"}},
		{"src", []string{"EXISTS", "y"}},
		// Bad input.
		{"src", []string{"MIGRATE", "$host", "$port", "y", "0", "5000", "FOO"}},
		{"src", []string{"MIGRATE", "$host", "$port", "y", "0", "5000", "AUTH"}},
		{"src", []string{"MIGRATE", "$host", "$port", "y", "0", "5000", "AUTH2", "u"}},
		{"src", []string{"MIGRATE", "$host", "$port", "y", "0", "5000", "KEYS", "y"}},
		{"src", []string{"MIGRATE", "$host", "$port", "y", "0", "x"}},
		{"src", []string{"MIGRATE", "$host", "$port", "y", "x", "5000"}},
		{"src", []string{"MIGRATE", "$host", "$port", "y", "0"}},
		{"src", []string{"COMMAND", "GETKEYS", "MIGRATE", "h", "1", "", "0", "1", "AUTH", "keys", "KEYS", "k1", "k2"}},
		{"src", []string{"COMMAND", "GETKEYS", "MIGRATE", "h", "1", "k", "0", "1", "COPY"}},
	}
	var replies [2][]string
	for i, src := range sources {
		sc, tc := rawConn2(t, src), rawConn2(t, targets[i])
		for _, s := range steps {
			args := make([]string, len(s.args))
			for j, a := range s.args {
				switch a {
				case "$host":
					a = "127.0.0.1"
				case "$port":
					a = strconv.Itoa(targets[i].Port)
				case "$auth_port":
					a = strconv.Itoa(authTargets[i].Port)
				}
				args[j] = a
			}
			c := sc
			if s.on == "target" {
				c = tc
			}
			replies[i] = append(replies[i], strings.Join(s.args, " ")+" -> "+cmdDo(t, c, args...).render())
		}
	}
	for j := range steps {
		if replies[0][j] != replies[1][j] {
			t.Errorf("redis-server: %s\nbasalt:       %s", replies[0][j], replies[1][j])
		}
	}
	// The targets took the same keys with the same values.
	for _, pair := range [][]*proc{targets, authTargets} {
		var dumps [2]string
		for i, target := range pair {
			c := target.client(t, 2)
			if pair[0] == authTargets[0] {
				must(t, c.Do(ctx, "AUTH", "sesame").Err())
			}
			keys, err := c.Keys(ctx, "*").Result()
			must(t, err)
			sort.Strings(keys)
			for _, k := range keys {
				dumps[i] += k + "=" + c.Dump(ctx, k).Val() + " "
			}
		}
		if dumps[0] != dumps[1] || dumps[0] == "" {
			t.Errorf("the targets hold\nfrom redis-server: %q\nfrom basalt:       %q", dumps[0], dumps[1])
		}
	}
	// SLOWLOG shows no password.
	bc := sources[1].client(t, 2)
	must(t, bc.ConfigSet(ctx, "slowlog-log-slower-than", "0").Err())
	if err := bc.Do(ctx, "MIGRATE", "127.0.0.1", deadPort, "y", "0", "1000", "AUTH2", "user", "hunter2").Err(); err == nil {
		t.Error("MIGRATE to a port nobody listens on succeeded")
	}
	entries, err := bc.SlowLogGet(ctx, 10).Result()
	must(t, err)
	for _, e := range entries {
		for _, a := range e.Args {
			if a == "hunter2" || a == "user" {
				t.Errorf("SLOWLOG shows a secret of MIGRATE: %q", e.Args)
			}
		}
	}
}

// TestMigrateToBasalt: a redis-server and a Basalt migrate keys into a
// Basalt target, which RESTOREs them, and answers RESTORE-ASKING as
// RESTORE.
func TestMigrateToBasalt(t *testing.T) {
	t.Parallel()
	target := startBasalt(t)
	tc := target.client(t, 2)
	for _, src := range []*proc{startRedis(t), startBasalt(t)} {
		c := src.client(t, 2)
		must(t, c.ZAdd(ctx, "z", redis.Z{Score: 1, Member: "one"}, redis.Z{Score: 2, Member: "two"}).Err())
		must(t, c.Do(ctx, "MIGRATE", "127.0.0.1", strconv.Itoa(target.Port), "z", "0", "5000", "REPLACE").Err())
		if got := tc.ZRangeWithScores(ctx, "z", 0, -1).Val(); len(got) != 2 || got[1].Member != "two" {
			t.Errorf("from %s: the target holds %v", src.cmd.Path, got)
		}
	}
	if r := tc.Do(ctx, "RESTORE-ASKING", "k", "0", "bad").Err(); r == nil || !strings.Contains(r.Error(), "payload") {
		t.Errorf("RESTORE-ASKING of a bad payload: %v", r)
	}
}
