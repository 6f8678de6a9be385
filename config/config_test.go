package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseLine(t *testing.T) {
	tests := []struct {
		line, key, val string
		err            bool
	}{
		{"", "", "", false},
		{"# comment", "", "", false},
		{"port 6666", "port", "6666", false},
		{"  bind 127.0.0.1 ::1  ", "bind", "127.0.0.1 ::1", false},
		{"requirepass a#b", "requirepass", "a", false},
		{`requirepass "a b#c"  # trailing`, "requirepass", "a b#c", false},
		{`requirepass 'x\'y'`, "requirepass", "x'y", false},
		{`requirepass "tab\there"`, "requirepass", "tab\there", false},
		{`requirepass "a" b`, "", "", true},
		{`requirepass "unterminated`, "", "", true},
		{`requirepass ""`, "requirepass", "", false},
		{"compact-cron 0 3 * * *", "compact-cron", "0 3 * * *", false},
	}
	for _, tt := range tests {
		key, val, err := parseLine(tt.line)
		if (err != nil) != tt.err || key != tt.key || val != tt.val {
			t.Errorf("parseLine(%q) = %q, %q, %v; want %q, %q, err=%v", tt.line, key, val, err, tt.key, tt.val, tt.err)
		}
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "basalt.conf")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadFileAndOverrides(t *testing.T) {
	path := writeFile(t, "# test\nPORT 7000\ndir /tmp/x\nmaxclients 10\nrequirepass \"s p\"\nnamespace.Tenant tok1\nproto-max-bulk-len 2M\n")
	c, err := Load(path, [][2]string{{"port", "7001"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Port.Get() != 7001 || c.Dir.Get() != "/tmp/x" || c.MaxClients.Get() != 10 || c.RequirePass.Get() != "s p" {
		t.Fatalf("unexpected values: port %d dir %s maxclients %d pass %q", c.Port.Get(), c.Dir.Get(), c.MaxClients.Get(), c.RequirePass.Get())
	}
	if c.ProtoMaxBulkLen.Get() != 2<<20 {
		t.Fatalf("proto-max-bulk-len = %d", c.ProtoMaxBulkLen.Get())
	}
	if ns := c.Namespaces(); ns["Tenant"] != "tok1" {
		t.Fatalf("namespaces = %v", ns)
	}
}

func TestLoadErrorsNameKeyAndLine(t *testing.T) {
	for content, want := range map[string]string{
		"port abc\n":              "line 1: key 'port': not started as an integer",
		"port 70000\n":            "line 1: key 'port': out of numeric range",
		"cluster-enabled maybe\n": "line 1: key 'cluster-enabled'",
		"namespace.a tok\n":       "namespace tokens need requirepass",
		"log-level loud\n":        "key 'log-level'",
		"requirepass \"x\" y\n":   "line 1: more than 2 item in config line",
		// Whatever the order of the lines, as Kvrocks.
		"compaction-checker-range 0-7\ncompaction-checker-cron * 1 * * *\n": "compaction-checker-range cannot be set while compaction-checker-cron is set",
		"compaction-checker-cron * 1 * * *\ncompaction-checker-range 0-7\n": "compaction-checker-range cannot be set while compaction-checker-cron is set",
	} {
		_, err := Load(writeFile(t, content), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%q) error = %v, want it to contain %q", content, err, want)
		}
	}
	if _, err := Load("", [][2]string{{"port", "x"}}); err == nil || !strings.Contains(err.Error(), "--port: key 'port': not started as an integer") {
		t.Errorf("bad override error = %v", err)
	}
}

// TestUnknownKeyWarns: as Kvrocks, a key nobody knows is a warning naming
// it and its line, and loading goes on.
func TestUnknownKeyWarns(t *testing.T) {
	c, err := Load(writeFile(t, "port 7001\nFoo bar\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Port.Get() != 7001 || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "'foo' at line 2 of ") {
		t.Fatalf("port %d, warnings %q", c.Port.Get(), c.Warnings)
	}
	// On the command line too (Kvrocks: "at line -1").
	c, err = Load("", [][2]string{{"Bogus-Key", "1"}, {"port", "7002"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Port.Get() != 7002 || len(c.Warnings) != 1 || c.Warnings[0] != "'--bogus-key' on the command line is not a valid configuration key" {
		t.Fatalf("port %d, warnings %q", c.Port.Get(), c.Warnings)
	}
	// Redis's deprecated keys are read and ignored silently, as Redis does.
	c, err = Load(writeFile(t, "list-max-ziplist-entries 512\nlua-replicate-commands yes\n"), nil)
	if err != nil || len(c.Warnings) != 0 {
		t.Fatalf("Redis's deprecated keys: %v, warnings %q", err, c.Warnings)
	}
}

func TestKnownKvrocksKeysWarn(t *testing.T) {
	c, err := Load(writeFile(t, "bgsave-cron 0 3 * * *\nrocksdb.rate_limiter_auto_tuned no\nrocksdb.block_cache_type lru\nrocksdb.row_cache_size 10\nmax-io-mb 5\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 2 || !strings.Contains(c.Warnings[0], "rate_limiter_auto_tuned") || !strings.Contains(c.Warnings[1], "max-io-mb") {
		t.Fatalf("warnings = %v", c.Warnings)
	}
	// The replication keys take effect: no warning.
	c, err = Load(writeFile(t, "slaveof 10.0.0.1 6666\nmasterauth pw\nslave-read-only yes\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 0 || c.SlaveOf.Get() != "10.0.0.1 6666" || c.MasterAuth.Get() != "pw" {
		t.Fatalf("warnings = %v, slaveof %q", c.Warnings, c.SlaveOf.Get())
	}
	for _, bad := range []string{"slaveof 10.0.0.1", "slaveof 10.0.0.1 x", "slaveof 10.0.0.1 70000", "slaveof a b c"} {
		if _, err := Load(writeFile(t, bad+"\n"), nil); err == nil {
			t.Errorf("%q loaded", bad)
		}
	}
	for _, good := range []string{"slaveof no one", "slaveof NO ONE", "slaveof \"\""} {
		if _, err := Load(writeFile(t, good+"\n"), nil); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
}

func TestGetSet(t *testing.T) {
	c := New()
	got := c.Get("maxc*")
	if len(got) != 1 || got[0] != [2]string{"maxclients", "10240"} {
		t.Fatalf("Get(maxc*) = %v", got)
	}
	// Every option but rename-command, which has no line.
	if len(c.Get("*")) != len(c.options)-1 {
		t.Fatal("Get(*) must list every option")
	}
	called := 0
	c.Watch("maxclients", func() { called++ })
	if err := c.Set("MAXCLIENTS", "5"); err != nil || c.MaxClients.Get() != 5 || called != 1 {
		t.Fatalf("Set maxclients: err %v value %d watchers %d", err, c.MaxClients.Get(), called)
	}
	if err := c.Set("port", "1"); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Set port = %v, want ErrReadOnly", err)
	}
	if err := c.Set("nope", "1"); !errors.Is(err, ErrUnknownOption) {
		t.Fatalf("Set nope = %v, want ErrUnknownOption", err)
	}
	var setErr *SetError
	if err := c.Set("maxclients", "x"); !errors.As(err, &setErr) || setErr.Text != "failed to set new value: not started as an integer" || c.MaxClients.Get() != 5 {
		t.Fatalf("bad value accepted: %v", err)
	}
}

func TestRewriteKeepsComments(t *testing.T) {
	path := writeFile(t, "# my server\nport 7000 # inline\n\n# the password\nrequirepass old\nnamespace.t tok\n")
	c, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set("requirepass", "new pass"); err != nil {
		t.Fatal(err)
	}
	if err := c.Set("timeout", "30"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rewrite(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := "# my server\nport 7000\n\n# the password\nrequirepass \"new pass\"\nnamespace.t tok\ntimeout 30\n"
	if string(b) != want {
		t.Fatalf("rewritten file:\n%s\nwant:\n%s", b, want)
	}
	again, err := Load(path, nil)
	if err != nil || again.RequirePass.Get() != "new pass" || again.Timeout.Get() != 30 {
		t.Fatalf("reload after rewrite: %v", err)
	}
	if err := New().Rewrite(); !errors.Is(err, ErrNoFile) {
		t.Fatalf("Rewrite without file = %v", err)
	}
}

func TestQuoteRoundTrip(t *testing.T) {
	for _, v := range []string{"plain", "a b", `q"uote`, "x#y", "tab\t", `back\slash`, ""} {
		_, got, err := parseLine("k " + quote(v))
		if err != nil || got != v {
			t.Errorf("round trip of %q: got %q, %v", v, got, err)
		}
	}
}

// TestExampleConfigDocumentsEveryOption keeps basalt.conf, the documented
// example, complete and equal to the built-in defaults.
func TestExampleConfigDocumentsEveryOption(t *testing.T) {
	c, err := Load("../basalt.conf", nil)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile("../basalt.conf")
	defaults := New()
	for _, o := range defaults.options {
		if !strings.Contains(string(text), "\n"+o.name+" ") && !strings.Contains(string(text), "\n# "+o.name+" ") {
			t.Errorf("basalt.conf does not document %s", o.name)
		}
		if got := c.byName[o.name].value.String(); got != o.value.String() {
			t.Errorf("basalt.conf sets %s to %q, the built-in default is %q", o.name, got, o.value.String())
		}
	}
}

func TestCron(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse("2006-01-02 15:04", s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	tests := []struct {
		spec    string
		when    string // 2026-11-22 is a Sunday
		matches bool
	}{
		{"0 3 * * *", "2026-11-22 03:00", true},
		{"0 3 * * *", "2026-11-22 03:01", false},
		{"* 0-7 * * *", "2026-11-22 07:59", true},
		{"* 0-7 * * *", "2026-11-22 08:00", false},
		{"*/15 * * * *", "2026-11-22 10:45", true},
		{"*/15 * * * *", "2026-11-22 10:46", false},
		{"30 1,13 * * 0", "2026-11-22 13:30", true},
		{"30 1,13 * * 1", "2026-11-22 13:30", false},
		{"0 3 * * * 0 15 * * *", "2026-11-22 15:00", true},
		{"", "2026-11-22 15:00", false},
	}
	for _, tt := range tests {
		var c Cron
		if err := c.set(tt.spec); err != nil {
			t.Fatalf("%q: %v", tt.spec, err)
		}
		if got := c.Matches(at(tt.when)); got != tt.matches {
			t.Errorf("%q at %s: %v, want %v", tt.spec, tt.when, got, tt.matches)
		}
	}
	for _, bad := range []string{"0 3 * *", "60 * * * *", "* 24 * * *", "5-1 * * * *", "*/0 * * * *", "a * * * *"} {
		var c Cron
		if err := c.set(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	cfg := New()
	if err := cfg.Set("compaction-checker-range", "1-5"); err != nil {
		t.Fatal(err)
	}
	// As in Kvrocks, the range gives the checker its schedule, and
	// compaction-checker-cron still reads empty.
	if !cfg.CompactionCheckerCron.Matches(at("2026-11-22 05:30")) || cfg.CompactionCheckerCron.Matches(at("2026-11-22 06:00")) || cfg.CompactionCheckerCron.Get() != "" {
		t.Errorf("compaction-checker-range 1-5: checker cron %q", cfg.CompactionCheckerCron.Get())
	}
	if err := cfg.Set("compaction-checker-range", "7-3"); err == nil {
		t.Error("compaction-checker-range 7-3 accepted")
	}
}

// TestKvrocksValueErrors checks values and refusals against what Kvrocks
// 2.10 replies (after "failed to set new value: " or "invalid value: ").
func TestKvrocksValueErrors(t *testing.T) {
	tests := []struct{ key, value, want, get string }{
		{"slowlog-max-len", "-1", "failed to set new value: out of numeric range", ""},
		{"slowlog-max-len", "abc", "failed to set new value: not started as an integer", ""},
		{"slowlog-max-len", "-", "failed to set new value: not started as an integer", ""},
		{"slowlog-max-len", "1x", "failed to set new value: encounter non-integer characters", ""},
		{"slowlog-max-len", "08", "failed to set new value: encounter non-integer characters", ""},
		{"slowlog-max-len", "99999999999999999999", "failed to set new value: Numerical result out of range", ""},
		{"timeout", "4294967296", "failed to set new value: out of range of integer type", ""},
		{"timeout", "0x10", "", "16"},
		{"timeout", "010", "", "8"},
		{"timeout", " +7", "", "7"},
		{"replica-announce-port", "-1", "failed to set new value: out of range of integer type", ""},
		{"force-compact-file-age", "99999999999999999999", "failed to set new value: Numerical result out of range", ""},
		{"slave-read-only", "maybe", "failed to set new value: argument must be 'yes' or 'no'", ""},
		{"slave-read-only", "NO", "", "no"},
		{"log-level", "debug", "failed to set new value: invalid enum option, acceptable values are 'info', 'warning', 'error', 'fatal'", ""},
		{"log-level", "WARNING", "", "warning"},
		{"proto-max-bulk-len", "1KB", "failed to set new value: encounter unexpected unit: `KB`", ""},
		{"proto-max-bulk-len", "99999999P", "failed to set new value: arithmetic overflow", ""},
		{"proto-max-bulk-len", "512m", "", "536870912"},
		// Kvrocks stores the value before it checks the range.
		{"proto-max-bulk-len", "1024", "failed to set new value: this config value should be between 1048576 and 18446744073709551615", "1024"},
		{"compact-cron", "* * *", "invalid value: cron expression format error, should only contain 5x fields", ""},
		{"compact-cron", "61 * * * *", "invalid value: cron expression format error: an integer is expected in a cron expression: out of numeric range", ""},
		{"compact-cron", "*/0 * * * *", "invalid value: cron expression format error: interval value after `*/` cannot be zero", ""},
		{"compaction-checker-range", "7-3", "invalid value: cron expression format error: for pattern `l-r` in cron expression, r should be larger than l", ""},
		{"rocksdb.min_blob_size", "100", "Must set rocksdb.enable_blob_files to yes first.", "4096"},
	}
	for _, tt := range tests {
		c := New()
		err := c.Set(tt.key, tt.value)
		var setErr *SetError
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Set(%s, %q) = %v", tt.key, tt.value, err)
		case tt.want != "" && (!errors.As(err, &setErr) || setErr.Text != tt.want):
			t.Errorf("Set(%s, %q) = %v, want %q", tt.key, tt.value, err, tt.want)
		}
		if got := c.Get(tt.key); tt.get != "" && (len(got) != 1 || got[0][1] != tt.get) {
			t.Errorf("after Set(%s, %q): %v, want %q", tt.key, tt.value, got, tt.get)
		}
	}
}

// TestDerivedDefaults: pidfile and backup-dir follow dir unless set.
func TestDerivedDefaults(t *testing.T) {
	c, err := Load("", [][2]string{{"dir", "/srv/b"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Pidfile.Get() != "/srv/b/kvrocks.pid" || c.Get("backup-dir")[0][1] != "/srv/b/backup" {
		t.Fatalf("pidfile %q, backup-dir %v", c.Pidfile.Get(), c.Get("backup-dir"))
	}
	c, err = Load("", [][2]string{{"dir", "/srv/b"}, {"pidfile", "/run/x.pid"}})
	if err != nil || c.Pidfile.Get() != "/run/x.pid" {
		t.Fatalf("explicit pidfile: %v %q", err, c.Pidfile.Get())
	}
	// log-dir empty is dir, as Kvrocks shows it.
	if c.LogDir.Get() != "/srv/b" {
		t.Fatalf("log-dir = %q, want dir", c.LogDir.Get())
	}
	c, err = Load("", [][2]string{{"dir", "/srv/b"}, {"log-dir", "stdout"}})
	if err != nil || c.LogDir.Get() != "stdout" {
		t.Fatalf("log-dir stdout: %v %q", err, c.LogDir.Get())
	}
}

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestRenameCommand checks rename-command lines as Kvrocks does, in order,
// with its texts, and lists them as CONFIG GET does.
func TestRenameCommand(t *testing.T) {
	defer func(old func(string) bool) { CommandExists = old }(CommandExists)
	table := map[string]bool{"keys": true, "get": true, "set": true, "flushall": true}
	CommandExists = func(name string) bool { return table[name] }
	c, err := Load(writeFile(t, "rename-command KEYS \"\"\nrename-command FLUSHALL  myflush\nrename-command myflush flush2\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"keys", ""}, {"flushall", "myflush"}, {"myflush", "flush2"}}
	if got := c.Renames(); len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("Renames = %v", got)
	}
	if got := c.Get("rename-command"); len(got) != 3 || got[1] != [2]string{"rename-command", "FLUSHALL  myflush"} {
		t.Fatalf("CONFIG GET rename-command = %v", got)
	}
	if err := c.Set("rename-command", "GET x"); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("CONFIG SET rename-command = %v", err)
	}
	for lines, msg := range map[string]string{
		"rename-command KEYS\n":                             "Invalid rename-command format",
		"rename-command nosuch x\n":                         "No such command in rename-command",
		"rename-command KEYS GET\n":                         "Target command name already exists",
		"rename-command KEYS keys\n":                        "Target command name already exists",
		"rename-command KEYS \"\"\nrename-command keys x\n": "No such command in rename-command",
		"rename-command KEYS k2\nrename-command get k2\n":   "Target command name already exists",
	} {
		_, err := Load(writeFile(t, lines), nil)
		if err == nil || !strings.Contains(err.Error(), "rename-command is invalid: "+msg) {
			t.Errorf("%q: %v, want %q", lines, err, msg)
		}
	}
	// Given on the command line too.
	c, err = Load("", [][2]string{{"rename-command", "get g2"}, {"rename-command", "set \"\""}})
	if err != nil || len(c.Renames()) != 2 {
		t.Fatalf("command line renames: %v %v", err, c.Renames())
	}
}

// TestHook: a hook runs after the value is stored, and its failure
// restores the old value, reruns the hooks before it and is the error
// text; a removed hook no longer runs.
func TestHook(t *testing.T) {
	c := New()
	var seen []int64
	c.Hook("timeout", func() error {
		seen = append(seen, c.Timeout.Get())
		return nil
	})
	remove := c.Hook("timeout", func() error {
		if c.Timeout.Get() == 13 {
			return errors.New("Invalid argument: unlucky")
		}
		return nil
	})
	var setErr *SetError
	if err := c.Set("timeout", "13"); !errors.As(err, &setErr) || setErr.Text != "Invalid argument: unlucky" || c.Timeout.Get() != 0 {
		t.Fatalf("failing hook: %v, timeout %d", err, c.Timeout.Get())
	}
	if len(seen) != 2 || seen[0] != 13 || seen[1] != 0 {
		t.Fatalf("the first hook saw %v, want the new value then the old one", seen)
	}
	remove()
	if err := c.Set("timeout", "13"); err != nil || c.Timeout.Get() != 13 {
		t.Fatalf("after removing the hook: %v, timeout %d", err, c.Timeout.Get())
	}
}

// TestListenAddresses: bind empty means 127.0.0.1 unless there is a unix
// socket; cluster mode needs a TCP address.
func TestListenAddresses(t *testing.T) {
	c, err := Load("", [][2]string{{"bind", "10.0.0.1 ::1"}})
	if err != nil || len(c.BindAddrs()) != 2 {
		t.Fatalf("bind list: %v %v", err, c.BindAddrs())
	}
	c, err = Load("", [][2]string{{"unixsocket", "/tmp/b.sock"}, {"unixsocketperm", "700"}})
	if err != nil || len(c.BindAddrs()) != 0 || c.UnixSocketPerm.Get() != 0o700 || c.Get("unixsocketperm")[0][1] != "700" {
		t.Fatalf("unix socket only: %v %v %o", err, c.BindAddrs(), c.UnixSocketPerm.Get())
	}
	if _, err := Load("", [][2]string{{"unixsocket", "/tmp/b.sock"}, {"cluster-enabled", "yes"}}); err == nil || !strings.Contains(err.Error(), "TCP listen address wasn't specified") {
		t.Fatalf("cluster on a unix socket only: %v", err)
	}
	if c, err := Load("", [][2]string{{"cluster-enabled", "yes"}}); err != nil || c.BindAddrs()[0] != "127.0.0.1" {
		t.Fatalf("cluster with bind empty: %v", err)
	}
}

// TestRewriteKeepsOtherLines: unknown keys and rename-command lines stay
// as they are.
func TestRewriteKeepsOtherLines(t *testing.T) {
	defer func(old func(string) bool) { CommandExists = old }(CommandExists)
	CommandExists = func(name string) bool { return name == "keys" }
	path := writeFile(t, "no-such-key 1\nrename-command KEYS  \"\"\ntimeout 1\n")
	c, err := Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set("timeout", "2"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rewrite(); err != nil {
		t.Fatal(err)
	}
	if got := string(must(readFile(path))); got != "no-such-key 1\nrename-command KEYS  \"\"\ntimeout 2\n" {
		t.Fatalf("rewritten:\n%s", got)
	}
}
