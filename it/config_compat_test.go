package it

import (
	"bufio"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Tests of issue 19's config points against the real binaries: a Kvrocks
// user's config file, command line and habits work unchanged.

// fullConf writes testdata/kvrocks_full.conf for a server in dir on port,
// and returns its path.
func fullConf(t *testing.T, dir string, port, masterPort int) string {
	t.Helper()
	raw, err := os.ReadFile("testdata/kvrocks_full.conf")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer("$DIR", dir, "$PORT", strconv.Itoa(port), "$MASTERPORT", strconv.Itoa(masterPort)).Replace(string(raw))
	path := filepath.Join(t.TempDir(), "kvrocks.conf")
	must(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// configPairs returns CONFIG GET <pattern> as the list of pairs it is (a
// key may repeat: rename-command).
func configPairs(t *testing.T, c *redis.Client, pattern string) [][2]string {
	t.Helper()
	v, err := c.Do(ctx, "CONFIG", "GET", pattern).Slice()
	if err != nil {
		t.Fatalf("CONFIG GET %s: %v", pattern, err)
	}
	var out [][2]string
	for i := 0; i+1 < len(v); i += 2 {
		out = append(out, [2]string{fmt.Sprint(v[i]), fmt.Sprint(v[i+1])})
	}
	return out
}

// fullConfExpected is what CONFIG GET must show for every key of
// kvrocks_full.conf: the file's value, but in bytes for sizes with units,
// with Redis's hz clamp, and for both names of a Redis key.
func fullConfExpected(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		key, value, _ := strings.Cut(line, " ")
		value = strings.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		}
		want[key] = append(want[key], value)
	}
	for key, value := range map[string]string{
		"proto-max-bulk-len": "268435456", "hash-max-ziplist-value": "1024", "hash-max-listpack-value": "1024",
		"stream-node-max-bytes": "8192", "maxmemory": "1073741824", "active-defrag-ignore-bytes": "209715200",
		"hz": "500", "list-max-ziplist-size": "-1", "hash-max-ziplist-entries": "100", "zset-max-listpack-entries": "64",
		"zset-max-ziplist-value": "32", "busy-reply-threshold": "4000", "compaction-checker-cron": "",
	} {
		want[key] = []string{value}
	}
	// Not reported: TLS keys (no TLS build), Redis's deprecated keys,
	// namespace lines and keys nobody knows.
	for key := range want {
		if strings.HasPrefix(key, "tls-") || strings.HasPrefix(key, "namespace.") || key == "no-such-key" ||
			key == "list-max-ziplist-entries" || key == "list-max-ziplist-value" || key == "lua-replicate-commands" {
			delete(want, key)
		}
	}
	return want
}

// TestConfigFullKvrocksFile: a Kvrocks-style file setting every key of
// KVROCKS-CONFIG.md starts Basalt, which reports every value, as the real
// Kvrocks started with the same file does for its keys; the settings with
// an effect at start (unix socket, pid file, log files, renames) have it.
func TestConfigFullKvrocksFile(t *testing.T) {
	bDir, masterPort := t.TempDir(), freePort(t)
	bPort := freePort(t)
	bConf := fullConf(t, bDir, bPort, masterPort)
	b := launch(t, basaltBin, []string{"-c", bConf}, bPort)
	bc := newClient(t, &redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: b.Addr(), Password: "admin pw", Protocol: 2, DisableIdentity: true, MaxRetries: -1})

	// Every key: the value of the file.
	want := fullConfExpected(t, bConf)
	got := map[string][]string{}
	for _, kv := range configPairs(t, bc, "*") {
		got[kv[0]] = append(got[kv[0]], kv[1])
	}
	for key, values := range want {
		if strings.Join(got[key], "|") != strings.Join(values, "|") {
			t.Errorf("CONFIG GET %s = %q, the file says %q", key, got[key], values)
		}
	}
	// The warnings of loading, on standard output, as Kvrocks prints them.
	for _, warning := range []string{
		"WARNING: 'no-such-key' at line ",
		"WARNING: config key 'tls-cert-file' is accepted for Kvrocks compatibility but has no effect yet",
	} {
		if !strings.Contains(b.Output.String(), warning) {
			t.Errorf("no %q in the output:\n%s", warning, b.Output)
		}
	}
	// The replication keys take effect: no warning names them.
	for _, key := range []string{"slaveof", "masterauth", "slave-read-only"} {
		if strings.Contains(b.Output.String(), "WARNING: config key '"+key+"'") {
			t.Errorf("a warning about %s:\n%s", key, b.Output)
		}
	}

	// The real Kvrocks with the same file reports the same values.
	kDir, kPort := t.TempDir(), freePort(t)
	k := launch(t, kvrocksBin(t), []string{"-c", fullConf(t, kDir, kPort, masterPort)}, kPort)
	t.Cleanup(k.Kill) // how it stops is not tested here (see TestConfigDefaultsAsKvrocks)
	kc := newClient(t, &redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: k.Addr(), Password: "admin pw", Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	norm := func(v, dir string, port int) string {
		return strings.ReplaceAll(strings.ReplaceAll(v, dir, "$DIR"), strconv.Itoa(port), "$PORT")
	}
	kvrocksKeys := 0
	for _, kv := range configPairs(t, kc, "*") {
		kvrocksKeys++
		if kv[0] == "rename-command" {
			continue // compared below, with its repetitions
		}
		if g := got[kv[0]]; len(g) != 1 || norm(g[0], bDir, bPort) != norm(kv[1], kDir, kPort) {
			t.Errorf("CONFIG GET %s: Kvrocks %q, Basalt %q", kv[0], kv[1], g)
		}
	}
	if kvrocksKeys < 100 {
		t.Fatalf("Kvrocks reported %d keys", kvrocksKeys)
	}
	if k, b := configPairs(t, kc, "rename-command"), configPairs(t, bc, "rename-command"); fmt.Sprint(k) != fmt.Sprint(b) {
		t.Errorf("CONFIG GET rename-command: Kvrocks %q, Basalt %q", k, b)
	}

	// rename-command: KEYS is gone, DBSIZE answers to its new name only.
	for _, c := range []*redis.Client{kc, bc} {
		wantErr(t, c.Do(ctx, "KEYS", "*").Err(), "ERR unknown command")
		wantErr(t, c.Do(ctx, "DBSIZE").Err(), "ERR unknown command")
		if n, err := c.Do(ctx, "MY-DBSIZE").Int(); err != nil || n != 0 {
			t.Errorf("MY-DBSIZE = %d, %v", n, err)
		}
	}

	// The unix socket, with unixsocketperm.
	sock := filepath.Join(bDir, "server.sock")
	st, err := os.Stat(sock)
	if err != nil || st.Mode()&fs.ModeSocket == 0 || st.Mode().Perm() != 0o770 {
		t.Fatalf("unix socket %s: %v %v", sock, st.Mode(), err)
	}
	uc := newClient(t, &redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Network: "unix", Addr: sock, Password: "admin pw", Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	if v, err := uc.Ping(ctx).Result(); err != nil || v != "PONG" {
		t.Fatalf("PING over the unix socket: %q %v", v, err)
	}
	if list := uc.ClientList(ctx).Val(); !strings.Contains(list, "addr="+sock+":0 ") {
		t.Errorf("CLIENT LIST over the unix socket:\n%s", list)
	}

	// The pid file, and the log files in log-dir, named as Kvrocks names
	// them (log-level warning: the warnings of loading are there).
	pid, err := os.ReadFile(filepath.Join(bDir, "server.pid"))
	if err != nil || strings.TrimSpace(string(pid)) != strconv.Itoa(b.cmd.Process.Pid) {
		t.Fatalf("pidfile: %q %v", pid, err)
	}
	for _, sev := range []string{"INFO", "WARNING"} {
		target, err := os.Readlink(filepath.Join(bDir, "logs", "kvrocks."+sev))
		if err != nil || !logFileName(sev).MatchString(target) {
			t.Fatalf("kvrocks.%s: %q %v", sev, target, err)
		}
		text, _ := os.ReadFile(filepath.Join(bDir, "logs", target))
		if !strings.Contains(string(text), "no-such-key") {
			t.Errorf("kvrocks.%s lacks the warnings of loading:\n%s", sev, text)
		}
	}
	stopClean(t, b)
	if _, err := os.Stat(filepath.Join(bDir, "server.pid")); !os.IsNotExist(err) {
		t.Errorf("pidfile left after a clean stop: %v", err)
	}
}

// logFileName matches a log file name of severity sev as glog (Kvrocks)
// makes them: kvrocks.<host>.<user>.log.<SEV>.<yyyymmdd-hhmmss>.<pid>.
func logFileName(sev string) *regexp.Regexp {
	return regexp.MustCompile(`^kvrocks\.[^.]+\.[^.]+\.log\.` + sev + `\.\d{8}-\d{6}\.\d+$`)
}

// TestConfigCommandLine: as Kvrocks, a --key nobody knows is a warning and
// the server starts; a bad value of a known key stops it naming the key;
// a flag without its value, or an argument that is no flag, is a usage
// error.
func TestConfigCommandLine(t *testing.T) {
	kvrocks := kvrocksBin(t)
	// Both start, and say so.
	for _, bin := range []string{basaltBin, kvrocks} {
		port := freePort(t)
		p := launch(t, bin, []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", t.TempDir(), "--log-dir", "stdout", "--bogus-key", "1", "--rocksdb.partition_filters", "yes"}, port)
		t.Cleanup(p.Kill)
		if !strings.Contains(p.Output.String(), "'bogus-key' ") && !strings.Contains(p.Output.String(), "'--bogus-key' ") {
			t.Errorf("%s: no warning naming bogus-key:\n%s", filepath.Base(bin), p.Output)
		}
		if v := p.client(t, 2).Ping(ctx).Val(); v != "PONG" {
			t.Errorf("%s: PING = %q", filepath.Base(bin), v)
		}
	}
	// Both refuse a bad value of a known key, naming it.
	for _, bin := range []string{basaltBin, kvrocks} {
		out, code := runCommand(t, bin, "--port", strconv.Itoa(freePort(t)), "--dir", t.TempDir(), "--log-dir", "stdout", "--maxclients", "many")
		if code != 1 || !strings.Contains(out, "maxclients") || !strings.Contains(out, "not started as an integer") {
			t.Errorf("%s --maxclients many: exit %d\n%s", filepath.Base(bin), code, out)
		}
	}
	// Usage errors.
	for _, args := range [][]string{{"--timeout"}, {"--port", "1", "stray"}} {
		for _, bin := range []string{basaltBin, kvrocks} {
			if out, code := runCommand(t, bin, args...); code != 1 || !strings.Contains(out, "-c, --config") {
				t.Errorf("%s %q: exit %d\n%s", filepath.Base(bin), args, code, out)
			}
		}
	}
	// Values that look like flags are values; --key=value works too.
	port := freePort(t)
	p := launch(t, basaltBin, []string{"--port=" + strconv.Itoa(port), "--dir", t.TempDir(), "--log-dir", "stdout", "--log-retention-days", "-1", "--slowlog-log-slower-than", "-1"}, port)
	if v := p.client(t, 2).ConfigGet(ctx, "slowlog-log-slower-than").Val(); v["slowlog-log-slower-than"] != "-1" {
		t.Errorf("--slowlog-log-slower-than -1: %v", v)
	}
	if out, code := runCommand(t, basaltBin, "--help"); code != 0 || !strings.Contains(out, `--dir (default "/tmp/kvrocks")`) || !strings.Contains(out, "--rename-command") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
}

// runCommand runs bin to completion (start-up failures, --help) with a
// deadline.
func runCommand(t *testing.T, bin string, args ...string) (string, int) {
	t.Helper()
	if bin == basaltBin {
		return runBasaltCommand(t, args...)
	}
	p := launchNoWait(t, bin, args)
	code := p.Wait(20 * time.Second)
	return p.Output.String(), code
}

// TestConfigDefaultsAsKvrocks: with only --dir, both servers put the pid
// file, the logs and the backups in it; Basalt removes the pid file at
// exit.
func TestConfigDefaultsAsKvrocks(t *testing.T) {
	for _, bin := range []string{basaltBin, kvrocksBin(t)} {
		name := filepath.Base(bin)
		dir, port := t.TempDir(), freePort(t)
		p := launch(t, bin, []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir}, port)
		c := p.client(t, 2)
		for key, want := range map[string]string{
			"log-dir": dir, "pidfile": dir + "/kvrocks.pid", "backup-dir": dir + "/backup", "rocksdb.compression": "no",
			"rocksdb.block_cache_size": "0", "workers": "8", "log-retention-days": "-1",
		} {
			if got := c.ConfigGet(ctx, key).Val()[key]; got != want {
				t.Errorf("%s: CONFIG GET %s = %q, want %q", name, key, got, want)
			}
		}
		// resp3-enabled is yes from Kvrocks 2.11 on; the 2.10 binary here says no.
		resp3 := map[bool]string{true: "yes", false: "no"}[bin == basaltBin]
		if got := c.ConfigGet(ctx, "resp3-enabled").Val()["resp3-enabled"]; got != resp3 {
			t.Errorf("%s: CONFIG GET resp3-enabled = %q, want %q", name, got, resp3)
		}
		if _, err := os.Stat(filepath.Join(dir, "kvrocks.pid")); err != nil {
			t.Errorf("%s: pid file: %v", name, err)
		}
		target, err := os.Readlink(filepath.Join(dir, "kvrocks.INFO"))
		if err != nil || !logFileName("INFO").MatchString(target) {
			t.Errorf("%s: %s/kvrocks.INFO -> %q, %v", name, dir, target, err)
		}
		if bin != basaltBin {
			// Kvrocks removes its pid file too; it is not what is tested
			// here, and under load its shutdown may outlast the harness's
			// patience.
			p.Kill()
			continue
		}
		stopClean(t, p)
		if _, err := os.Stat(filepath.Join(dir, "kvrocks.pid")); !os.IsNotExist(err) {
			t.Errorf("%s: pid file left after exit: %v", name, err)
		}
	}
}

// optionsFile returns the options RocksDB last wrote for the database in
// dir (its newest OPTIONS-* file), section -> name -> value, sections
// named as in the file (DBOptions, CFOptions "default", ...).
func optionsFile(t *testing.T, dir string) map[string]map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "db", "OPTIONS-*"))
	newest, n := "", -1
	for _, f := range files {
		if v, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(f), "OPTIONS-")); err == nil && v > n {
			newest, n = f, v
		}
	}
	raw, err := os.ReadFile(newest)
	if err != nil {
		t.Fatalf("RocksDB options file: %v", err)
	}
	out := map[string]map[string]string{}
	section := ""
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = strings.Trim(line, "[]")
			out[section] = map[string]string{}
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && section != "" {
			out[section][k] = v
		}
	}
	return out
}

// TestConfigSetLive: the keys Kvrocks changes live change the running
// RocksDB (as the options file RocksDB rewrites after each change shows),
// workers changes GOMAXPROCS; the others are refused with Kvrocks's text.
func TestConfigSetLive(t *testing.T) {
	metricsPort := freePort(t)
	p := startBasalt(t, "--metrics-port", strconv.Itoa(metricsPort))
	c := p.client(t, 2)
	cases := []struct {
		key, value    string
		section, name string
		want          string
	}{
		{"rocksdb.write_buffer_size", "32", `CFOptions "default"`, "write_buffer_size", "33554432"},
		{"rocksdb.max_write_buffer_number", "6", `CFOptions "metadata"`, "max_write_buffer_number", "6"},
		{"rocksdb.target_file_size_base", "32", `CFOptions "zset_score"`, "target_file_size_base", "33554432"},
		{"rocksdb.level0_slowdown_writes_trigger", "25", `CFOptions "default"`, "level0_slowdown_writes_trigger", "25"},
		{"rocksdb.level0_stop_writes_trigger", "45", `CFOptions "default"`, "level0_stop_writes_trigger", "45"},
		{"rocksdb.level0_file_num_compaction_trigger", "6", `CFOptions "stream"`, "level0_file_num_compaction_trigger", "6"},
		{"rocksdb.disable_auto_compactions", "yes", `CFOptions "default"`, "disable_auto_compactions", "true"},
		{"rocksdb.compression", "zstd", `CFOptions "metadata"`, "compression_per_level", "kNoCompression:kNoCompression:kZSTD:kZSTD:kZSTD:kZSTD:kZSTD"},
		{"rocksdb.compression_start_level", "1", `CFOptions "default"`, "compression_per_level", "kNoCompression:kZSTD:kZSTD:kZSTD:kZSTD:kZSTD:kZSTD"},
		{"rocksdb.enable_blob_files", "yes", `CFOptions "default"`, "enable_blob_files", "true"},
		{"rocksdb.min_blob_size", "1024", `CFOptions "default"`, "min_blob_size", "1024"},
		{"rocksdb.blob_garbage_collection_age_cutoff", "50", `CFOptions "default"`, "blob_garbage_collection_age_cutoff", "0.500000"},
		{"rocksdb.max_open_files", "1000", "DBOptions", "max_open_files", "1000"},
		{"rocksdb.max_background_jobs", "3", "DBOptions", "max_background_jobs", "3"},
		{"rocksdb.max_total_wal_size", "100", "DBOptions", "max_total_wal_size", "104857600"},
		{"rocksdb.max_subcompactions", "1", "DBOptions", "max_subcompactions", "1"},
		{"rocksdb.delayed_write_rate", "2097152", "DBOptions", "delayed_write_rate", "2097152"},
		{"rocksdb.compaction_readahead_size", "1048576", "DBOptions", "compaction_readahead_size", "1048576"},
		{"rocksdb.stats_dump_period_sec", "60", "DBOptions", "stats_dump_period_sec", "60"},
	}
	for _, tc := range cases {
		must(t, c.ConfigSet(ctx, tc.key, tc.value).Err())
		if got := optionsFile(t, p.Dir)[tc.section][tc.name]; got != tc.want {
			t.Errorf("CONFIG SET %s %s: RocksDB's %s %s = %q, want %q", tc.key, tc.value, tc.section, tc.name, got, tc.want)
		}
	}
	// The data is still there and writable after all that.
	must(t, c.Set(ctx, "k", "v", 0).Err())

	// Kvrocks's refusals.
	wantErr(t, c.ConfigSet(ctx, "rocksdb.write_options.sync", "yes").Err(), "ERR CONFIG SET 'rocksdb.write_options.sync' error: Unsupported CONFIG parameter: rocksdb.write_options.sync")
	wantErr(t, c.ConfigSet(ctx, "rocksdb.write_options.disable_wal", "yes").Err(), "ERR CONFIG SET 'rocksdb.write_options.disable_wal' error: Unsupported CONFIG parameter: rocksdb.write_options.disable_wal")
	wantErr(t, c.ConfigSet(ctx, "rocksdb.block_size", "4096").Err(), "ERR CONFIG SET 'rocksdb.block_size' error: Unsupported CONFIG parameter: rocksdb.block_size")
	wantErr(t, c.ConfigSet(ctx, "rocksdb.level_compaction_dynamic_level_bytes", "yes").Err(), "ERR CONFIG SET 'rocksdb.level_compaction_dynamic_level_bytes' error: NotFound: Unrecognized option: level_compaction_dynamic_level_bytes")
	wantErr(t, c.ConfigSet(ctx, "rocksdb.max_bytes_for_level_base", "1000").Err(), "ERR CONFIG SET 'rocksdb.max_bytes_for_level_base' error: Must set rocksdb.level_compaction_dynamic_level_bytes yes first.")
	if v := c.ConfigGet(ctx, "rocksdb.level_compaction_dynamic_level_bytes").Val(); v["rocksdb.level_compaction_dynamic_level_bytes"] != "no" {
		t.Errorf("a refused change is rolled back: %v", v)
	}

	// workers: GOMAXPROCS follows (at most the CPUs).
	gomaxprocs := func() string {
		families := scrape(t, "http://127.0.0.1:"+strconv.Itoa(metricsPort)+"/metrics")
		return strconv.FormatFloat(metricValue(families, "go_sched_gomaxprocs_threads"), 'f', -1, 64)
	}
	must(t, c.ConfigSet(ctx, "workers", "1").Err())
	if got := gomaxprocs(); got != "1" {
		t.Errorf("workers 1: GOMAXPROCS %s", got)
	}
	must(t, c.ConfigSet(ctx, "workers", "8").Err())
	if got, cpus := gomaxprocs(), strconv.Itoa(min(8, runtime.NumCPU())); got != cpus {
		t.Errorf("workers 8: GOMAXPROCS %s, want %s", got, cpus)
	}
	wantErr(t, c.ConfigSet(ctx, "workers", "0").Err(), "ERR CONFIG SET 'workers' error: failed to set new value: out of numeric range")
}

// TestConfigReplNamespaceLive: repl-namespace-enabled changes live as in
// Kvrocks: on, the tokens move into the database and out of the file; off
// is refused while the database holds tokens. Kvrocks gets the same
// commands and must answer the same.
func TestConfigReplNamespaceLive(t *testing.T) {
	type server struct {
		name string
		conf string
		p    *proc
	}
	var servers []*server
	for _, bin := range []string{basaltBin, kvrocksBin(t)} {
		dir, port := t.TempDir(), freePort(t)
		conf := filepath.Join(t.TempDir(), "server.conf")
		must(t, os.WriteFile(conf, []byte("requirepass adminpw\nnamespace.ns1 tok1\n"), 0o644))
		p := launch(t, bin, []string{"-c", conf, "--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir, "--log-dir", "stdout"}, port)
		p.Dir = dir
		if bin != basaltBin {
			t.Cleanup(p.Kill)
		}
		servers = append(servers, &server{filepath.Base(bin), conf, p})
	}
	steps := [][]string{
		{"CONFIG", "SET", "repl-namespace-enabled", "yes"},
		{"CONFIG", "GET", "repl-namespace-enabled"},
		{"NAMESPACE", "ADD", "ns2", "tok2"},
		{"CONFIG", "SET", "repl-namespace-enabled", "no"},
		{"CONFIG", "GET", "repl-namespace-enabled"},
		{"NAMESPACE", "GET", "ns1"},
		{"NAMESPACE", "GET", "ns2"},
	}
	for _, step := range steps {
		var replies []string
		for _, s := range servers {
			c := newClient(t, &redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: s.p.Addr(), Password: "adminpw", Protocol: 2, DisableIdentity: true, MaxRetries: -1})
			args := make([]any, len(step))
			for i, a := range step {
				args[i] = a
			}
			v, err := c.Do(ctx, args...).Result()
			replies = append(replies, fmt.Sprint(v, err))
		}
		if replies[0] != replies[1] {
			t.Errorf("%q: Basalt %s, Kvrocks %s", step, replies[0], replies[1])
		}
	}
	// The file lost its namespace line and says where the tokens are.
	for _, s := range servers {
		text, _ := os.ReadFile(s.conf)
		if strings.Contains(string(text), "namespace.ns1") || !strings.Contains(string(text), "repl-namespace-enabled yes") {
			t.Errorf("%s rewrote its file as:\n%s", s.name, text)
		}
	}
	// Basalt restarted on that file and directory finds both tokens.
	b := servers[0].p
	stopClean(t, b)
	again := launch(t, basaltBin, []string{"-c", servers[0].conf, "--bind", "127.0.0.1", "--port", strconv.Itoa(b.Port), "--dir", b.Dir, "--log-dir", "stdout"}, b.Port)
	for _, token := range []string{"tok1", "tok2"} {
		c := newClient(t, &redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Addr: again.Addr(), Password: token, Protocol: 2, DisableIdentity: true, MaxRetries: -1})
		must(t, c.Ping(ctx).Err())
	}
}

// TestConfigRedisKeys: the Redis 7.0 keys Redis clients' test suites set
// are taken by CONFIG SET and reported by CONFIG GET as redis-server 7.0
// does (values, old names, the texts of refusals, several patterns at
// once), and change nothing: data written around them reads back.
func TestConfigRedisKeys(t *testing.T) {
	p := startBasalt(t)
	r := startRedis(t)
	bc, rc := p.client(t, 2), r.client(t, 2)
	must(t, bc.HSet(ctx, "h", "f", "v").Err())
	sets := [][2]string{
		{"hash-max-ziplist-entries", "0"}, {"hash-max-listpack-value", "1kb"}, {"zset-max-ziplist-entries", "1"},
		{"zset-max-listpack-value", "8"}, {"list-max-ziplist-size", "4"}, {"list-compress-depth", "2"},
		{"set-max-intset-entries", "4"}, {"stream-node-max-entries", "2"}, {"stream-node-max-bytes", "1mb"},
		{"hll-sparse-max-bytes", "100"}, {"lua-time-limit", "100"}, {"hz", "1000"}, {"maxmemory-policy", "ALLKEYS-LFU"},
		{"lazyfree-lazy-user-flush", "yes"}, {"sanitize-dump-payload", "yes"}, {"active-defrag-cycle-max", "50"},
		// Persistence and server keys (issue 38): CONFIG SET save "" was refused.
		{"save", ""}, {"appendfsync", "ALWAYS"}, {"stop-writes-on-bgsave-error", "no"}, {"loglevel", "WARNING"},
		{"shutdown-on-sigint", "force NOW"}, {"auto-aof-rewrite-min-size", "1gb"}, {"repl-backlog-size", "10mb"},
		{"repl-diskless-load", "swapdb"}, {"active-expire-effort", "5"}, {"rdbcompression", "no"},
	}
	for _, kv := range sets {
		if b, r := fmt.Sprint(bc.ConfigSet(ctx, kv[0], kv[1]).Err()), fmt.Sprint(rc.ConfigSet(ctx, kv[0], kv[1]).Err()); b != r {
			t.Errorf("CONFIG SET %s %s: Basalt %s, Redis %s", kv[0], kv[1], b, r)
		}
	}
	for _, pattern := range [][]any{{"hash-max-*"}, {"zset-max-*"}, {"list-*"}, {"set-max-intset-entries", "stream-node-*", "hll-*"},
		{"busy-reply-threshold", "lua-time-limit", "hz", "maxmemory-policy", "maxmemory"}, {"lazyfree-lazy-user-flush", "sanitize-dump-payload", "active-defrag-cycle-max"},
		{"save", "append*", "stop-writes-on-bgsave-error", "loglevel", "shutdown-on-*", "auto-aof-*", "repl-backlog-*", "repl-diskless-*"},
		{"active-expire-effort", "rdb*", "dbfilename", "lfu-*", "protected-mode", "tcp-keepalive", "repl-timeout"}} {
		args := append([]any{"CONFIG", "GET"}, pattern...)
		b, errB := bc.Do(ctx, args...).StringSlice()
		r, errR := rc.Do(ctx, args...).StringSlice()
		if fmt.Sprint(pairsMap(b), errB) != fmt.Sprint(pairsMap(r), errR) {
			t.Errorf("CONFIG GET %v: Basalt %v %v, Redis %v %v", pattern, b, errB, r, errR)
		}
	}
	// Redis's texts for bad values, after Kvrocks's prefix.
	for _, kv := range [][3]string{
		{"hash-max-ziplist-entries", "-1", "argument must be between 0 and 9223372036854775807 inclusive"},
		{"hash-max-ziplist-entries", "x", "argument couldn't be parsed into an integer"},
		{"zset-max-listpack-value", "-1", "argument must be a memory value"},
		{"maxmemory-policy", "foo", "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction"},
		{"save", "10 1 20", "Invalid save parameters"},
		{"save", "0 1", "Invalid save parameters"},
		{"appendonly", "maybe", "argument must be 'yes' or 'no'"},
		{"appendfsync", "foo", "argument(s) must be one of the following: everysec, always, no"},
		{"shutdown-on-sigterm", "nosave save", "shutdown options SAVE and NOSAVE can't be used simultaneously"},
		{"repl-backlog-size", "0", "argument must be between 1 and 9223372036854775807 inclusive"},
	} {
		errB := bc.ConfigSet(ctx, kv[0], kv[1]).Err()
		errR := rc.ConfigSet(ctx, kv[0], kv[1]).Err()
		if errB == nil || errR == nil || !strings.HasSuffix(errB.Error(), kv[2]) || !strings.HasSuffix(errR.Error(), kv[2]) {
			t.Errorf("CONFIG SET %s %s: Basalt %v, Redis %v", kv[0], kv[1], errB, errR)
		}
	}
	// Several pairs: all or nothing, as in Redis 7.
	for _, c := range []*redis.Client{bc, rc} {
		if err := c.Do(ctx, "CONFIG", "SET", "timeout", "5", "hz", "20", "maxclients", "x").Err(); err == nil {
			t.Errorf("CONFIG SET with a bad pair: no error")
		}
		if v := c.ConfigGet(ctx, "timeout").Val()["timeout"]; v != "0" {
			t.Errorf("timeout = %q after a refused CONFIG SET of several pairs", v)
		}
		if v := c.ConfigGet(ctx, "hz").Val()["hz"]; v != "500" {
			t.Errorf("hz = %q after a refused CONFIG SET of several pairs", v)
		}
	}
	wantErr(t, bc.ConfigSet(ctx, "activedefrag", "yes").Err(), "ERR CONFIG SET 'activedefrag' error: failed to set new value: Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution")
	if v := bc.HGet(ctx, "h", "f").Val(); v != "v" {
		t.Errorf("HGET after the encoding keys changed: %q", v)
	}
	must(t, bc.HSet(ctx, "h", "g", strings.Repeat("x", 5000)).Err())
	if n := bc.HLen(ctx, "h").Val(); n != 2 {
		t.Errorf("HLEN = %d", n)
	}
}

// pairsMap turns a CONFIG GET reply into key -> value.
func pairsMap(pairs []string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return m
}

// TestConfigMaxDBSize: once the SST files pass max-db-size, writes that
// add data fail with Kvrocks's error and deletions still run, in and out
// of transactions; lifting the limit lets writes in again at once.
func TestConfigMaxDBSize(t *testing.T) {
	t.Parallel()
	p := startBasalt(t)
	c := p.longClient(t, 2)
	// A gigabyte of SST files at little cost: two strings of 512 MB of
	// zeros each (uncompressed: rocksdb.compression is no), each past the
	// memtable size, so the next write flushes it.
	for _, key := range []string{"big1", "big2"} {
		must(t, c.SetRange(ctx, key, 512<<20-1, "x").Err())
	}
	waitFor(t, 2*time.Minute, "used_db_size past 1 GB", func() bool {
		c.Set(ctx, "small", "v", 0)
		m := regexp.MustCompile(`used_db_size:(\d+)`).FindStringSubmatch(c.Info(ctx, "keyspace").Val())
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return n >= 1<<30
	})
	must(t, c.Set(ctx, "small", "v", 0).Err())
	must(t, c.ConfigSet(ctx, "max-db-size", "1").Err())
	const refused = "ERR write command not allowed when reached max-db-size."
	wantErr(t, c.Set(ctx, "k", "v", 0).Err(), refused)
	wantErr(t, c.HSet(ctx, "h", "f", "v").Err(), refused)
	wantErr(t, c.Expire(ctx, "small", time.Hour).Err(), refused)
	if v := c.Get(ctx, "small").Val(); v != "v" {
		t.Errorf("reads go on: GET = %q", v)
	}
	// In a transaction each queued write is refused on its own.
	cmds, err := c.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.Set(ctx, "k", "v", 0)
		pipe.Del(ctx, "small")
		return nil
	})
	if err == nil || cmds[0].Err() == nil || cmds[0].Err().Error() != refused || cmds[1].Err() != nil {
		t.Errorf("MULTI SET DEL EXEC: %v, %v", err, cmds)
	}
	if n := c.Del(ctx, "big1").Val(); n != 1 {
		t.Errorf("DEL past max-db-size = %d", n)
	}
	must(t, c.ConfigSet(ctx, "max-db-size", "0").Err())
	must(t, c.Set(ctx, "k", "v", 0).Err())
}

// TestConfigUnixSocketOnly: with bind empty and a unix socket, as in
// Kvrocks, the server listens on the socket only.
func TestConfigUnixSocketOnly(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "s.sock")
	// A stale socket file of a server that did not stop cleanly.
	stale, err := net.Listen("unix", sock)
	must(t, err)
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	port := freePort(t)
	p := launchNoWait(t, basaltBin, []string{"--bind", "", "--port", strconv.Itoa(port), "--unixsocket", sock, "--unixsocketperm", "700", "--dir", dir, "--log-dir", "stdout"})
	c := newClient(t, &redis.Options{ReadTimeout: longTimeout, WriteTimeout: longTimeout, Network: "unix", Addr: sock, Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	waitFor(t, 20*time.Second, "PING over the unix socket", func() bool { return c.Ping(ctx).Err() == nil })
	if st, err := os.Stat(sock); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("socket: %v %v", st.Mode(), err)
	}
	if v := c.ConfigGet(ctx, "bind").Val()["bind"]; v != "" {
		t.Errorf("CONFIG GET bind = %q", v)
	}
	if conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second); err == nil {
		conn.Close()
		t.Errorf("the server listens on TCP port %d too", port)
	}
	p.Stop()
}

// TestConfigLogRetention: log-retention-days deletes the log files
// untouched for longer, at start and when changed live, and nothing else.
func TestConfigLogRetention(t *testing.T) {
	dir, logs := t.TempDir(), t.TempDir()
	old := []string{"kvrocks.otherhost.root.log.INFO.20200101-000000.1", "kvrocks.otherhost.root.log.WARNING.20200101-000000.1"}
	recent := "kvrocks.otherhost.root.log.INFO.20200102-000000.2"
	other := "notes.txt"
	for _, name := range append(old, recent, other) {
		must(t, os.WriteFile(filepath.Join(logs, name), []byte("x\n"), 0o644))
	}
	tenDaysAgo := time.Now().Add(-10 * 24 * time.Hour)
	for _, name := range append(old, other) {
		must(t, os.Chtimes(filepath.Join(logs, name), tenDaysAgo, tenDaysAgo))
	}
	fiveDaysAgo := time.Now().Add(-5 * 24 * time.Hour)
	must(t, os.Chtimes(filepath.Join(logs, recent), fiveDaysAgo, fiveDaysAgo))
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(logs, name))
		return err == nil
	}

	port := freePort(t)
	p := launch(t, basaltBin, []string{"--port", strconv.Itoa(port), "--dir", dir, "--log-dir", logs, "--log-retention-days", "7"}, port)
	waitFor(t, 10*time.Second, "files older than 7 days deleted at start", func() bool { return !exists(old[0]) && !exists(old[1]) })
	if !exists(recent) || !exists(other) {
		t.Fatalf("deleted too much: %s %v, %s %v", recent, exists(recent), other, exists(other))
	}
	c := p.client(t, 2)
	must(t, c.ConfigSet(ctx, "log-retention-days", "3").Err())
	waitFor(t, 10*time.Second, "files older than 3 days deleted when changed", func() bool { return !exists(recent) })
	if !exists(other) {
		t.Fatal("deleted a file that is no log")
	}
	// The server's own files stay.
	target, err := os.Readlink(filepath.Join(logs, "kvrocks.INFO"))
	if err != nil || !exists(target) {
		t.Fatalf("own log file: %q %v", target, err)
	}
}
