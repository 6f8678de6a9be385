package it

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/redis/go-redis/v9"
)

// scrape fetches and parses /metrics.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	families, err := scrapeOnce(url)
	if err != nil {
		t.Fatal(err)
	}
	return families
}

func scrapeOnce(url string) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// metricValue returns the value of the sample of family name whose labels
// include the given pairs; -1 when there is none.
func metricValue(families map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f := families[name]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.Metric {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, l := range m.Label {
				if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		case m.Untyped != nil:
			return m.Untyped.GetValue()
		}
	}
	return -1
}

// infoMap returns INFO ALL as key → value.
func infoMap(t *testing.T, c *redis.Client) map[string]string {
	t.Helper()
	text, err := c.Info(ctx, "all").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(text, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			out[k] = v
		}
	}
	return out
}

// TestMetricsOnByDefault: a server started as `make run` starts it, with
// no config file and no metrics-port, serves /metrics on 9666, as
// basalt.conf says. Skipped while something else holds 9666.
func TestMetricsOnByDefault(t *testing.T) {
	if ln, err := net.Listen("tcp", "127.0.0.1:9666"); err != nil {
		t.Skipf("127.0.0.1:9666 is in use: %v", err)
	} else {
		ln.Close()
	}
	port := freePort(t)
	p := launchExact(t, basaltBin, []string{"--port", strconv.Itoa(port), "--dir", t.TempDir(), "--log-dir", "stdout"}, port)
	c := p.client(t, 2)
	for i := 0; i < 11; i++ {
		must(t, c.Set(ctx, "k", i, 0).Err())
	}
	families := scrape(t, "http://127.0.0.1:9666/metrics")
	if n := metricValue(families, "kvrocks_commands_total", "cmd", "set"); n != 11 {
		t.Errorf("kvrocks_commands_total{cmd=\"set\"} = %v on 9666, want 11", n)
	}
}

// TestMetricsDefaultPortTaken: a server left at the default metrics-port
// starts without /metrics when 9666 is taken (a second server on the
// host) or when it listens on a unix socket only, as a kvrocks.conf,
// which has no metrics-port, must start unchanged; a port given
// explicitly still stops it (TestStartupErrors).
func TestMetricsDefaultPortTaken(t *testing.T) {
	if ln, err := net.Listen("tcp", "127.0.0.1:9666"); err == nil {
		defer ln.Close()
	}
	port := freePort(t)
	p := launchExact(t, basaltBin, []string{"--port", strconv.Itoa(port), "--dir", t.TempDir(), "--log-dir", "stdout"}, port)
	if !strings.Contains(p.Output.String(), "metrics endpoint off") {
		t.Errorf("9666 taken: no warning that /metrics is off:\n%s", p.Output)
	}

	sock := filepath.Join(t.TempDir(), "s.sock")
	cmd := exec.Command(basaltBin, "--bind", "", "--unixsocket", sock, "--dir", t.TempDir(), "--log-dir", "stdout")
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	must(t, cmd.Start())
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	waitFor(t, longTimeout, "the unix socket to answer", func() bool {
		c, err := net.Dial("unix", sock)
		if err != nil {
			return false
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write([]byte("PING\r\n"))
		buf := make([]byte, 7)
		n, _ := c.Read(buf)
		return string(buf[:n]) == "+PONG\r\n"
	})
	if !strings.Contains(out.String(), "metrics endpoint off") {
		t.Errorf("unix socket only: no warning that /metrics is off:\n%s", out)
	}
}

func TestMetricsEndpoint(t *testing.T) {
	port := freePort(t)
	p := startBasalt(t, "--metrics-port", strconv.Itoa(port))
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	c := p.client(t, 2)
	must(t, c.Ping(ctx).Err())

	before := scrape(t, url)
	sent := map[string]int{"set": 37, "get": 23, "hset": 5}
	for i := 0; i < sent["set"]; i++ {
		must(t, c.Set(ctx, "k"+strconv.Itoa(i), i, 0).Err())
	}
	for i := 0; i < sent["get"]; i++ {
		must(t, c.Get(ctx, "k"+strconv.Itoa(i)).Err())
	}
	for i := 0; i < sent["hset"]; i++ {
		must(t, c.HSet(ctx, "h", "f"+strconv.Itoa(i), i).Err())
	}
	after := scrape(t, url)
	for cmd, n := range sent {
		delta := metricValue(after, "kvrocks_commands_total", "cmd", cmd) - max(0, metricValue(before, "kvrocks_commands_total", "cmd", cmd))
		if delta != float64(n) {
			t.Errorf("kvrocks_commands_total{cmd=%q} rose by %v, want %d", cmd, delta, n)
		}
		hist := metricValue(after, "basalt_command_duration_seconds", "cmd", cmd) - max(0, metricValue(before, "basalt_command_duration_seconds", "cmd", cmd))
		if hist != float64(n) {
			t.Errorf("basalt_command_duration_seconds{cmd=%q} counted %v more, want %d", cmd, hist, n)
		}
	}
	if d := metricValue(after, "kvrocks_commands_processed_total") - metricValue(before, "kvrocks_commands_processed_total"); d != 65 {
		t.Errorf("kvrocks_commands_processed_total rose by %v, want 65", d)
	}
	checkHistogram(t, after["basalt_command_duration_seconds"])

	// Gauges read what INFO says (nothing changes between the two reads).
	now := scrape(t, url)
	info := infoMap(t, c)
	for metric, field := range map[string]string{
		"kvrocks_connected_clients": "connected_clients", "kvrocks_config_maxclients": "maxclients",
		"kvrocks_sequence": "sequence", "kvrocks_process_id": "process_id", "kvrocks_used_db_size": "used_db_size",
		"kvrocks_num_running_compactions": "num_running_compactions", "kvrocks_monitor_clients": "monitor_clients",
	} {
		want, _ := strconv.ParseFloat(info[field], 64)
		if got := metricValue(now, metric); got != want {
			t.Errorf("%s = %v, INFO %s = %v", metric, got, field, want)
		}
	}
	if got, want := metricValue(now, "kvrocks_estimate_keys", "column_family", "metadata"), info["estimate_keys[metadata]"]; strconv.FormatFloat(got, 'f', -1, 64) != want {
		t.Errorf("kvrocks_estimate_keys{metadata} = %v, INFO %s", got, want)
	}
	// INFO keyspace and kvrocks_db_keys show the last walk; DBSIZE SCAN
	// starts a new one.
	must(t, c.Do(ctx, "DBSIZE", "SCAN").Err())
	deadline := time.Now().Add(5 * time.Second)
	for !strings.HasPrefix(infoMap(t, c)["db0"], "keys=38,") {
		if time.Now().After(deadline) {
			t.Fatalf("INFO db0 after DBSIZE SCAN: %s", infoMap(t, c)["db0"])
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := metricValue(scrape(t, url), "kvrocks_db_keys", "db", "db0"); got != 38 {
		t.Errorf("kvrocks_db_keys{db0} = %v, want 38", got)
	}
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes", "basalt_rocksdb_compaction_write_bytes_total",
		"basalt_rocksdb_write_stopped", "kvrocks_up", "kvrocks_instance_info", "kvrocks_block_cache_hit_total"} {
		if now[name] == nil {
			t.Errorf("no metric %s", name)
		}
	}

	// Other paths are 404; the endpoint survives 100 concurrent scrapes.
	for _, path := range []string{"/", "/metricsx", "/debug/pprof/"} {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %s, want 404", path, resp.Status)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := scrapeOnce(url); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent scrape: %v", err)
	}
	must(t, c.Ping(ctx).Err())

	if path, err := exec.LookPath(cmp.Or(os.Getenv("PROMTOOL"), "promtool")); err == nil {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(path, "check", "metrics")
		cmd.Stdin = resp.Body
		out, err := cmd.CombinedOutput()
		resp.Body.Close()
		// Exit status 3 is lint advice only. The kvrocks_* names are
		// kvrocks_exporter's, which dashboards depend on: advice on them
		// is accepted, on any other name it is not.
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 3) {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if err != nil && !strings.HasPrefix(line, "kvrocks_") {
				t.Errorf("promtool check metrics: %s", line)
			}
		}
	} else {
		t.Log("promtool not installed: scrape not checked with it")
	}

	// SLOWLOG records a slow command (every command, at threshold 0), and
	// the slow log metrics follow it.
	must(t, c.ConfigSet(ctx, "slowlog-log-slower-than", "0").Err())
	must(t, c.Set(ctx, "slowkey", "v", 0).Err())
	entries, err := c.SlowLogGet(ctx, 1).Result()
	if err != nil || len(entries) != 1 || strings.Join(entries[0].Args, " ") != "set slowkey v" {
		t.Fatalf("SLOWLOG GET 1 = %+v, %v", entries, err)
	}
	slow := scrape(t, url)
	length := c.Do(ctx, "SLOWLOG", "LEN").Val().(int64)
	if metricValue(slow, "kvrocks_slowlog_last_id") < float64(entries[0].ID) || metricValue(slow, "kvrocks_slowlog_length") > float64(length) ||
		metricValue(slow, "kvrocks_slowlog_length") < 1 {
		t.Errorf("slow log metrics: last id %v length %v; SLOWLOG id %d, LEN %d", metricValue(slow, "kvrocks_slowlog_last_id"),
			metricValue(slow, "kvrocks_slowlog_length"), entries[0].ID, length)
	}
	must(t, c.ConfigSet(ctx, "slowlog-log-slower-than", "200000").Err())

	// CONFIG RESETSTAT zeroes the command counters.
	must(t, c.ConfigResetStat(ctx).Err())
	if v := metricValue(scrape(t, url), "kvrocks_commands_total", "cmd", "set"); v > 0 {
		t.Errorf("kvrocks_commands_total{set} after CONFIG RESETSTAT = %v", v)
	}
}

// checkHistogram checks that each histogram's buckets are cumulative and
// end at its count.
func checkHistogram(t *testing.T, f *dto.MetricFamily) {
	t.Helper()
	if f == nil {
		t.Fatal("no histogram")
	}
	for _, m := range f.Metric {
		h := m.Histogram
		prev := uint64(0)
		for _, b := range h.Bucket {
			if b.GetCumulativeCount() < prev {
				t.Errorf("%v: buckets not cumulative", m.Label)
			}
			prev = b.GetCumulativeCount()
		}
		if prev > h.GetSampleCount() {
			t.Errorf("%v: buckets hold %d, count %d", m.Label, prev, h.GetSampleCount())
		}
		n := len(h.Bucket)
		if n < 2 || h.Bucket[0].GetUpperBound() != 1e-5 || h.Bucket[n-2].GetUpperBound() != 10 {
			t.Errorf("%v: buckets do not span 10 µs to 10 s", m.Label)
		}
	}
}

// TestInfoFields checks that every field operators and kvrocks_exporter
// read is in INFO and parses.
func TestInfoFields(t *testing.T) {
	p := startBasalt(t)
	c := p.client(t, 2)
	must(t, c.Set(ctx, "a", "1", time.Hour).Err())
	info := infoMap(t, c)
	numbers := []string{
		"arch_bits", "process_id", "tcp_port", "uptime_in_seconds", "uptime_in_days",
		"maxclients", "connected_clients", "monitor_clients", "blocked_clients",
		"used_memory_rss", "used_memory_lua", "used_memory_startup", "lazyfree_pending_objects",
		"total_connections_received", "total_commands_processed", "instantaneous_ops_per_sec",
		"total_net_input_bytes", "total_net_output_bytes", "instantaneous_input_kbps", "instantaneous_output_kbps",
		"keyspace_hits", "keyspace_misses", "pubsub_channels", "pubsub_patterns", "sync_full", "sync_partial_ok", "sync_partial_err",
		"connected_slaves", "master_repl_offset", "used_cpu_sys", "used_cpu_user", "cluster_enabled",
		"sequence", "used_db_size", "max_db_size", "disk_capacity", "used_disk_size",
		"block_cache_usage", "estimate_keys[metadata]", "index_and_filter_cache_usage[default]", "block_cache_pinned_usage[default]",
		"all_mem_tables", "cur_mem_tables", "num_running_compactions", "num_running_flushes", "compaction_pending",
		"memtable_flush_pending", "num_immutable_tables", "snapshots", "num_live_versions", "num_super_version",
		"num_background_errors", "flush_count", "compaction_count", "block_cache_hit", "block_cache_miss",
		"put_per_sec", "get_per_sec",
	}
	for _, k := range numbers {
		v, ok := info[k]
		if !ok {
			t.Errorf("INFO lacks %s", k)
			continue
		}
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			t.Errorf("INFO %s = %q is not a number", k, v)
		}
	}
	for _, k := range []string{"version", "redis_version", "redis_mode", "kvrocks_mode", "os", "rocksdb_version", "config_file",
		"used_memory_rss_human", "used_memory_lua_human", "role"} {
		if _, ok := info[k]; !ok {
			t.Errorf("INFO lacks %s", k)
		}
	}
	// As Kvrocks writes them (TestKvrocksDiff compares the rest).
	for _, k := range []string{"is_compacting", "is_bgsaving"} {
		if info[k] != "yes" && info[k] != "no" {
			t.Errorf("INFO %s = %q", k, info[k])
		}
	}
	for _, k := range []string{"used_percent", "used_disk_percent"} {
		if !regexp.MustCompile(`^ \d+(\.\d+)?%$`).MatchString(info[k]) {
			t.Errorf("INFO %s = %q", k, info[k])
		}
	}
	if !regexp.MustCompile(`^keys=1,expires=1,avg_ttl=\d+,expired=0$`).MatchString(info["db0"]) {
		t.Errorf("INFO db0 = %q", info["db0"])
	}
	if !regexp.MustCompile(`^calls=1,usec=\d+,usec_per_call=\d+,rejected_calls=0,failed_calls=0$`).MatchString(info["cmdstat_set"]) {
		t.Errorf("INFO cmdstat_set = %q", info["cmdstat_set"])
	}
}

// TestMonitor checks MONITOR's lines and its clients' restrictions.
func TestMonitor(t *testing.T) {
	p := startBasalt(t)
	c := p.client(t, 2)
	must(t, c.Ping(ctx).Err())
	conn, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	readLine := func() string {
		conn.SetReadDeadline(time.Now().Add(longTimeout))
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(line, "\r\n")
	}
	fmt.Fprint(conn, "MONITOR\r\n")
	if l := readLine(); l != "+OK" {
		t.Fatalf("MONITOR: %q", l)
	}
	must(t, c.Set(ctx, "foo", "a \"b\"\n\x01", 0).Err())
	must(t, c.Do(ctx, "CONFIG", "GET", "maxclients").Err())
	must(t, c.Get(ctx, "foo").Err())
	if l := readLine(); !regexp.MustCompile(`^\+\d+\.\d{6} \[0 127\.0\.0\.1:\d+\] "set" "foo" "a \\"b\\"\\n\\x01"$`).MatchString(l) {
		t.Errorf("monitor line: %q", l)
	}
	if l := readLine(); !strings.HasSuffix(l, `] "get" "foo"`) {
		t.Errorf("monitor line after an admin command: %q", l)
	}
	if v := infoMap(t, c)["monitor_clients"]; v != "1" {
		t.Errorf("monitor_clients = %s", v)
	}
	fmt.Fprint(conn, "GET foo\r\nPING\r\n")
	monitorLine := regexp.MustCompile(`^\+\d+\.\d{6} `)
	reply := func() string {
		for {
			if l := readLine(); !monitorLine.MatchString(l) {
				return l
			}
		}
	}
	if l := reply(); l != "-ERR Replica can't interact with the keyspace" {
		t.Errorf("GET from a monitor: %q", l)
	}
	if l := reply(); l != "+PONG" {
		t.Errorf("PING from a monitor: %q", l)
	}
	conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	for infoMap(t, c)["monitor_clients"] != "0" {
		if time.Now().After(deadline) {
			t.Fatal("monitor_clients stays above 0 after the monitor left")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMetricsPprof: Go's profiles are off by default (404), and with
// metrics-pprof-enabled, which CONFIG GET shows and CONFIG SET changes
// live, /debug/pprof/heap is a gzipped pprof profile of the heap.
func TestMetricsPprof(t *testing.T) {
	port := freePort(t)
	p := startBasalt(t, "--metrics-port", strconv.Itoa(port))
	c := p.client(t, 2)
	heap := fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/heap", port)
	if got := c.ConfigGet(ctx, "metrics-pprof-enabled").Val(); got["metrics-pprof-enabled"] != "no" {
		t.Fatalf("CONFIG GET metrics-pprof-enabled = %v, want no", got)
	}
	for _, path := range []string{"heap", "", "profile?seconds=1", "cmdline"} {
		if code := httpStatus(t, fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/%s", port, path)); code != http.StatusNotFound {
			t.Errorf("/debug/pprof/%s while off: %d, want 404", path, code)
		}
	}

	must(t, c.ConfigSet(ctx, "metrics-pprof-enabled", "yes").Err())
	if got := c.ConfigGet(ctx, "metrics-pprof-enabled").Val(); got["metrics-pprof-enabled"] != "yes" {
		t.Fatalf("CONFIG GET metrics-pprof-enabled = %v after CONFIG SET yes", got)
	}
	resp, err := http.Get(heap)
	must(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /debug/pprof/heap: %s", resp.Status)
	}
	strs, err := profileStrings(resp.Body)
	if err != nil {
		t.Fatalf("/debug/pprof/heap is not a pprof profile: %v", err)
	}
	for _, want := range []string{"inuse_space", "alloc_objects", "bytes"} {
		if !slices.Contains(strs, want) {
			t.Errorf("heap profile's string table lacks %q", want)
		}
	}

	must(t, c.ConfigSet(ctx, "metrics-pprof-enabled", "no").Err())
	if code := httpStatus(t, heap); code != http.StatusNotFound {
		t.Errorf("/debug/pprof/heap after CONFIG SET no: %d, want 404", code)
	}
}

func httpStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	must(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// profileStrings reads a gzipped pprof profile (a protocol buffer, see
// github.com/google/pprof's profile.proto), checks that every field is
// well formed, and returns its string table (field 6).
func profileStrings(r io.Reader) ([]string, error) {
	z, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(z)
	if err != nil {
		return nil, err
	}
	var strs []string
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errors.New("bad field key")
		}
		b = b[n:]
		switch key & 7 {
		case 0: // varint
			if _, n = binary.Uvarint(b); n <= 0 {
				return nil, errors.New("bad varint")
			}
			b = b[n:]
		case 2: // length-delimited
			size, n := binary.Uvarint(b)
			if n <= 0 || size > uint64(len(b)-n) {
				return nil, errors.New("bad length")
			}
			if key>>3 == 6 {
				strs = append(strs, string(b[n:n+int(size)]))
			}
			b = b[n+int(size):]
		default:
			return nil, fmt.Errorf("wire type %d where profile.proto has none", key&7)
		}
	}
	if len(strs) == 0 || strs[0] != "" {
		return nil, errors.New("no string table starting with the empty string")
	}
	return strs, nil
}
