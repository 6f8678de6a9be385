package it

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Tenants and their code: a namespace sees, calls and changes only its
// own function libraries and scripts (and calls the default namespace's
// functions, which serve the whole server); the admin sees and manages
// them all; the namespaces are kept beside Kvrocks's records, across a
// restart, on a replica, and on a data directory Kvrocks shares.

const tenantConf = "requirepass admin\nnamespace.a token-a\nnamespace.b token-b"

// tenantLibrary is a library name with one function fn, which returns
// tag and the caller's value of the key who, in the form both Redis and
// Kvrocks load.
func tenantLibrary(name, fn, tag string) string {
	return fmt.Sprintf("#!lua name=%s\nredis.register_function('%s', function() return '%s:' .. tostring(redis.call('get', 'who')) end)", name, fn, tag)
}

// readOnlyLibrary is tenantLibrary with a no-writes function, which a
// replica runs.
func readOnlyLibrary(name, fn, tag string) string {
	return fmt.Sprintf("#!lua name=%s\nredis.register_function{function_name='%s', callback=function() return '%s:' .. tostring(redis.call('get', 'who')) end, flags={'no-writes'}}", name, fn, tag)
}

// replyText is a command's reply, or its error, as text.
func replyText(c *redis.Client, args ...any) string {
	v, err := c.Do(ctx, args...).Result()
	if err != nil {
		return err.Error()
	}
	return fmt.Sprint(v)
}

// libraryNames lists the libraries c sees, sorted.
func libraryNames(t *testing.T, c *redis.Client) string {
	t.Helper()
	libs, err := c.FunctionList(ctx, redis.FunctionListQuery{}).Result()
	if err != nil {
		t.Fatalf("FUNCTION LIST: %v", err)
	}
	var names []string
	for _, lib := range libs {
		names = append(names, lib.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

type tenants struct{ a, b, admin *redis.Client }

func connectTenants(t *testing.T, p *proc) tenants {
	t.Helper()
	return tenants{tenant(t, p, "token-a"), tenant(t, p, "token-b"), tenant(t, p, "admin")}
}

func (ts tenants) expect(t *testing.T, steps []tenantStep) {
	t.Helper()
	for _, s := range steps {
		if got := replyText(s.c, s.args...); got != s.want {
			t.Errorf("%s %v = %q, want %q", s.who(ts), s.args, got, s.want)
		}
	}
}

type tenantStep struct {
	c    *redis.Client
	args []any
	want string
}

func (s tenantStep) who(ts tenants) string {
	switch s.c {
	case ts.a:
		return "a"
	case ts.b:
		return "b"
	}
	return "admin"
}

func (ts tenants) seeLibraries(t *testing.T, a, b, admin string) {
	t.Helper()
	for c, want := range map[*redis.Client]string{ts.a: a, ts.b: b, ts.admin: admin} {
		if got := libraryNames(t, c); got != want {
			t.Errorf("%s sees libraries %q, want %q", tenantStep{c: c}.who(ts), got, want)
		}
	}
}

func TestFunctionTenants(t *testing.T) {
	conf := writeConf(t, tenantConf)
	p := startBasalt(t, "-c", conf)
	ts := connectTenants(t, p)
	for c, who := range map[*redis.Client]string{ts.a: "a", ts.b: "b", ts.admin: "admin"} {
		must(t, c.Set(ctx, "who", who, 0).Err())
	}
	must(t, ts.a.FunctionLoad(ctx, tenantLibrary("la", "fa", "la")).Err())
	must(t, ts.b.FunctionLoad(ctx, tenantLibrary("lb", "fb", "lb")).Err())
	must(t, ts.admin.FunctionLoad(ctx, tenantLibrary("shared", "fs", "shared")).Err())
	const other = " already exists in another namespace"
	ts.expect(t, []tenantStep{
		{ts.b, []any{"FCALL", "fa", 0}, "ERR Function not found"},
		{ts.b, []any{"FCALL_RO", "FA", 0}, "ERR Function not found"},
		{ts.b, []any{"FCALL", "fb", 0}, "lb:b"},
		// The default namespace's functions serve every namespace, in
		// the caller's keys.
		{ts.b, []any{"FCALL", "fs", 0}, "shared:b"},
		{ts.a, []any{"FCALL", "fs", 0}, "shared:a"},
		{ts.admin, []any{"FCALL", "fa", 0}, "la:admin"},
		{ts.b, []any{"FUNCTION", "DELETE", "la"}, "ERR Library not found"},
		{ts.b, []any{"FUNCTION", "DELETE", "shared"}, "ERR Library not found"},
		{ts.b, []any{"FUNCTION", "LOAD", tenantLibrary("la", "fx", "b")}, "ERR Library 'la'" + other},
		{ts.b, []any{"FUNCTION", "LOAD", "REPLACE", tenantLibrary("la", "fa", "b")}, "ERR Library 'la'" + other},
		{ts.b, []any{"FUNCTION", "LOAD", tenantLibrary("lx", "fa", "b")}, "ERR Function fa" + other},
		{ts.b, []any{"FUNCTION", "LOAD", "REPLACE", tenantLibrary("lb", "FS", "b")}, "ERR Function FS" + other},
		{ts.b, []any{"FUNCTION", "LOAD", tenantLibrary("lb", "fy", "b")}, "ERR Library 'lb' already exists"},
		{ts.b, []any{"FCALL", "fb", 0}, "lb:b"},
	})
	ts.seeLibraries(t, "la", "lb", "la,lb,shared")
	// Kvrocks's LISTFUNC and LISTLIB show a namespace its own too.
	if got := replyText(ts.b, "FUNCTION", "LISTFUNC"); got != "[[function_name fb from_library lb]]" {
		t.Errorf("b's FUNCTION LISTFUNC: %s", got)
	}
	if got := replyText(ts.b, "FUNCTION", "LISTLIB", "la"); got != "ERR The library is not found or not loaded from storage" {
		t.Errorf("b's FUNCTION LISTLIB of a's library: %s", got)
	}
	stats := ts.b.Do(ctx, "FUNCTION", "STATS").Val()
	if s := fmt.Sprint(stats); !strings.Contains(s, "[libraries_count 1 functions_count 1]") {
		t.Errorf("b's FUNCTION STATS: %s", s)
	}

	// RESTORE: a namespace replaces, appends or flushes only its own.
	all := ts.admin.FunctionDump(ctx).Val()
	for _, policy := range []string{"APPEND", "REPLACE", "FLUSH"} {
		if got := replyText(ts.b, "FUNCTION", "RESTORE", all, policy); !strings.HasSuffix(got, other) {
			t.Errorf("b restores every library with %s: %q", policy, got)
		}
	}
	ts.seeLibraries(t, "la", "lb", "la,lb,shared")
	// DUMP holds b's libraries only: restored after b's FLUSH, which
	// leaves the others', it brings back lb and nothing else.
	mine := ts.b.FunctionDump(ctx).Val()
	must(t, ts.b.FunctionFlush(ctx).Err())
	ts.seeLibraries(t, "la", "", "la,shared")
	must(t, ts.b.FunctionRestore(ctx, mine).Err())
	ts.seeLibraries(t, "la", "lb", "la,lb,shared")

	// The namespaces survive a restart.
	p.Stop()
	p = startBasaltIn(t, p.Dir, "-c", conf)
	ts = connectTenants(t, p)
	ts.seeLibraries(t, "la", "lb", "la,lb,shared")
	ts.expect(t, []tenantStep{
		{ts.b, []any{"FCALL", "fa", 0}, "ERR Function not found"},
		{ts.a, []any{"FCALL", "fa", 0}, "la:a"},
		{ts.a, []any{"FCALL", "fs", 0}, "shared:a"},
		// The admin manages every library: one it replaces stays its
		// namespace's.
		{ts.admin, []any{"FUNCTION", "LOAD", "REPLACE", tenantLibrary("la", "fa", "fixed")}, "la"},
		{ts.a, []any{"FCALL", "fa", 0}, "fixed:a"},
		{ts.b, []any{"FCALL", "fa", 0}, "ERR Function not found"},
		{ts.admin, []any{"FUNCTION", "DELETE", "lb"}, "OK"},
	})
	ts.seeLibraries(t, "la", "", "la,shared")
	must(t, ts.admin.FunctionFlush(ctx).Err())
	ts.seeLibraries(t, "", "", "")
}

func TestScriptTenants(t *testing.T) {
	conf := writeConf(t, tenantConf)
	p := startBasalt(t, "-c", conf)
	ts := connectTenants(t, p)
	loaded := ts.a.ScriptLoad(ctx, "return 'loaded'").Val()
	evaluated := redis.NewScript("return 'evaluated'")
	must(t, evaluated.Eval(ctx, ts.a, nil).Err())
	const noScript = "NOSCRIPT No matching script. Please use EVAL."
	exists := func(c *redis.Client, shas ...string) string {
		return fmt.Sprint(c.ScriptExists(ctx, shas...).Val())
	}
	for c, want := range map[*redis.Client]string{ts.a: "[true true]", ts.b: "[false false]", ts.admin: "[true true]"} {
		if got := exists(c, loaded, evaluated.Hash()); got != want {
			t.Errorf("%s: SCRIPT EXISTS = %s, want %s", tenantStep{c: c}.who(ts), got, want)
		}
	}
	ts.expect(t, []tenantStep{
		{ts.b, []any{"EVALSHA", loaded, 0}, noScript},
		{ts.b, []any{"EVALSHA_RO", evaluated.Hash(), 0}, noScript},
		{ts.a, []any{"EVALSHA", loaded, 0}, "loaded"},
		{ts.admin, []any{"EVALSHA", evaluated.Hash(), 0}, "evaluated"},
		// b loads the same script, then flushes: a keeps it.
		{ts.b, []any{"SCRIPT", "LOAD", "return 'loaded'"}, loaded},
		{ts.b, []any{"EVALSHA", loaded, 0}, "loaded"},
		{ts.b, []any{"SCRIPT", "FLUSH"}, "OK"},
		{ts.b, []any{"EVALSHA", loaded, 0}, noScript},
		{ts.a, []any{"EVALSHA", loaded, 0}, "loaded"},
		{ts.a, []any{"EVALSHA", evaluated.Hash(), 0}, "evaluated"},
	})
	// What a loaded is stored for a only.
	p.Stop()
	p = startBasaltIn(t, p.Dir, "-c", conf)
	ts = connectTenants(t, p)
	for c, want := range map[*redis.Client]string{ts.a: "[true false]", ts.b: "[false false]", ts.admin: "[true false]"} {
		if got := exists(c, loaded, evaluated.Hash()); got != want {
			t.Errorf("after a restart, %s: SCRIPT EXISTS = %s, want %s", tenantStep{c: c}.who(ts), got, want)
		}
	}
	// a's flush removes what only a loaded; the admin's removes all.
	shared := ts.admin.ScriptLoad(ctx, "return 'admin'").Val()
	ts.a.ScriptLoad(ctx, "return 'admin'")
	must(t, ts.a.ScriptFlush(ctx).Err())
	for c, want := range map[*redis.Client]string{ts.a: "[false false]", ts.admin: "[false true]"} {
		if got := exists(c, loaded, shared); got != want {
			t.Errorf("after a's flush, %s: SCRIPT EXISTS = %s, want %s", tenantStep{c: c}.who(ts), got, want)
		}
	}
	ts.b.ScriptLoad(ctx, "return 'b'")
	must(t, ts.admin.ScriptFlush(ctx).Err())
	if got := exists(ts.admin, shared, ts.b.ScriptLoad(ctx, "return 'other'").Val()); got != "[false true]" {
		t.Errorf("after the admin's flush: %s", got)
	}
	if got := exists(ts.b, redis.NewScript("return 'b'").Hash()); got != "[false]" {
		t.Errorf("b's script after the admin's flush: %s", got)
	}
}

// A replica follows the namespaces of scripts and libraries.
func TestScriptTenantsReplica(t *testing.T) {
	conf := writeConf(t, tenantConf, "masterauth admin")
	m, r := startBasalt(t, "-c", conf), startBasalt(t, "-c", conf)
	ms, rs := connectTenants(t, m), connectTenants(t, r)
	slaveOf(t, rs.admin, m)
	loaded := ms.a.ScriptLoad(ctx, "return 'loaded'").Val()
	must(t, ms.a.FunctionLoad(ctx, readOnlyLibrary("la", "fa", "la")).Err())
	waitCaughtUp(t, ms.admin, rs.admin)
	waitFor(t, replWait, "the library to reach the replica", func() bool { return libraryNames(t, rs.admin) == "la" })
	rs.expect(t, []tenantStep{
		{rs.a, []any{"EVALSHA_RO", loaded, 0}, "loaded"},
		{rs.b, []any{"EVALSHA_RO", loaded, 0}, "NOSCRIPT No matching script. Please use EVAL."},
		{rs.a, []any{"FCALL_RO", "fa", 0}, "la:false"},
		{rs.b, []any{"FCALL_RO", "fa", 0}, "ERR Function not found"},
	})
	rs.seeLibraries(t, "la", "", "la")
	must(t, ms.a.ScriptFlush(ctx).Err())
	must(t, ms.admin.FunctionLoad(ctx, tenantLibrary("lb", "fb", "lb")).Err())
	waitCaughtUp(t, ms.admin, rs.admin)
	waitFor(t, replWait, "a's flush and the admin's library to reach the replica", func() bool {
		return fmt.Sprint(rs.a.ScriptExists(ctx, loaded).Val()) == "[false]" && libraryNames(t, rs.admin) == "la,lb"
	})
	rs.seeLibraries(t, "la", "", "la,lb")
}

// TestKvrocksScriptTenantsInterop: the libraries and scripts Kvrocks's
// tenants stored are the default namespace's on Basalt (the admin's,
// callable from every namespace, as on Kvrocks); those Basalt's tenants
// stored run on Kvrocks, and are theirs again when Basalt reopens the
// directory.
func TestKvrocksScriptTenantsInterop(t *testing.T) {
	kvrocksBin(t)
	conf := writeConf(t, tenantConf)
	data, port := t.TempDir(), freePort(t)
	explainOnFailure(t, data)
	k := startKvrocksAt(t, data, port, "-c", conf)
	ka := interopClient(t, k, "token-a", 5*time.Second)
	must(t, ka.Do(ctx, "FUNCTION", "LOAD", tenantLibrary("kl", "kf", "kvrocks")).Err())
	fromKvrocks := ka.ScriptLoad(ctx, "return 'kvrocks'").Val()
	must(t, ka.Set(ctx, "who", "a", 0).Err())
	stopClean(t, k)

	b := startBasaltAt(t, data, port, "-c", conf)
	ts := connectTenants(t, b)
	ts.seeLibraries(t, "", "", "kl")
	ts.expect(t, []tenantStep{
		{ts.a, []any{"FCALL", "kf", 0}, "kvrocks:a"},
		{ts.a, []any{"FUNCTION", "FLUSH"}, "OK"},
		{ts.a, []any{"FCALL", "kf", 0}, "kvrocks:a"},
		{ts.a, []any{"EVALSHA", fromKvrocks, 0}, "NOSCRIPT No matching script. Please use EVAL."},
		{ts.admin, []any{"EVALSHA", fromKvrocks, 0}, "kvrocks"},
	})
	must(t, ts.a.FunctionLoad(ctx, tenantLibrary("la", "fa", "la")).Err())
	must(t, ts.b.FunctionLoad(ctx, tenantLibrary("lb", "fb", "lb")).Err())
	mine := ts.a.ScriptLoad(ctx, "return 'a'").Val()
	stopClean(t, b)

	k = startKvrocksAt(t, data, port, "-c", conf)
	kb := interopClient(t, k, "token-b", 5*time.Second)
	for fn, want := range map[string]string{"fa": "la:false", "fb": "lb:false", "kf": "kvrocks:false"} {
		if got := replyText(kb, "FCALL", fn, 0); got != want {
			t.Errorf("Kvrocks: b's FCALL %s = %q, want %q", fn, got, want)
		}
	}
	if got := replyText(kb, "EVALSHA", mine, 0); got != "a" {
		t.Errorf("Kvrocks: EVALSHA of a's script = %q", got)
	}
	stopClean(t, k)

	b = startBasaltAt(t, data, port, "-c", conf)
	ts = connectTenants(t, b)
	ts.seeLibraries(t, "la", "lb", "kl,la,lb")
	if got := replyText(ts.a, "EVALSHA", mine, 0); got != "a" {
		t.Errorf("a's script back on Basalt: %q", got)
	}
}

// FUNCTION STATS shows a namespace the functions it runs only: another
// namespace's run, its name and its arguments, are no run to it.
func TestFunctionStatsTenants(t *testing.T) {
	p := startBasalt(t, "-c", writeConf(t, tenantConf), "--busy-reply-threshold", "100")
	ts := connectTenants(t, p)
	must(t, ts.a.FunctionLoad(ctx, "#!lua name=spin\nredis.register_function{function_name='spin', callback=function() while true do end end, flags={'no-writes'}}").Err())
	done := make(chan error, 1)
	go func() { done <- ts.a.Do(ctx, "FCALL", "spin", "0", "secret-argument").Err() }()
	waitFor(t, longTimeout, "the function to be busy", func() bool {
		err := ts.b.Ping(ctx).Err()
		return err != nil && strings.HasPrefix(err.Error(), "BUSY")
	})
	if stats := ts.b.Do(ctx, "FUNCTION", "STATS").String(); !strings.Contains(stats, "running_script <nil>") || strings.Contains(stats, "secret") {
		t.Errorf("b's FUNCTION STATS while a's function runs: %s", stats)
	}
	if stats := ts.admin.Do(ctx, "FUNCTION", "STATS").String(); !strings.Contains(stats, "running_script [name spin command [FCALL spin 0 secret-argument]") {
		t.Errorf("the admin's FUNCTION STATS while a's function runs: %s", stats)
	}
	must(t, ts.admin.Do(ctx, "FUNCTION", "KILL").Err())
	if err := <-done; err == nil || !strings.HasPrefix(err.Error(), "ERR Script killed by user") {
		t.Fatalf("the killed function replied %v", err)
	}
}
