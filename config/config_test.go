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
	} {
		_, err := Load(writeFile(t, content), nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load(%q) error = %v, want it to contain %q", content, err, want)
		}
	}
	if _, err := Load("", [][2]string{{"nope", "1"}}); err == nil || !strings.Contains(err.Error(), "--nope") {
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
}

func TestKnownKvrocksKeysWarn(t *testing.T) {
	c, err := Load(writeFile(t, "bgsave-cron 0 3 * * *\nrocksdb.row_cache_size 10\nrocksdb.block_cache_type lru\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 2 || !strings.Contains(c.Warnings[0], "bgsave-cron") {
		t.Fatalf("warnings = %v", c.Warnings)
	}
}

func TestGetSet(t *testing.T) {
	c := New()
	got := c.Get("maxc*")
	if len(got) != 1 || got[0] != [2]string{"maxclients", "10240"} {
		t.Fatalf("Get(maxc*) = %v", got)
	}
	if len(c.Get("*")) != len(c.options) {
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
		// The example turns the metrics endpoint on; the default is off.
		if got := c.byName[o.name].value.String(); got != o.value.String() && o.name != "metrics-port" {
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
}
