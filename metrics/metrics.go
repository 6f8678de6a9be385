// Package metrics serves /metrics for Prometheus. It exports what
// kvrocks_exporter derives from INFO, under the exporter's kvrocks_* names,
// so that dashboards built for Kvrocks work unchanged; and what an
// exporter cannot see: per-command latency histograms, RocksDB compaction
// and stall counters, and the Go runtime and process collectors. Values are
// read from the server when Prometheus scrapes.
package metrics

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdb/basalt/executor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server is the running /metrics endpoint.
type Server struct {
	http *http.Server
	ln   net.Listener
}

// Serve starts serving /metrics of env on addr, and Go's profiles under
// /debug/pprof/ while metrics-pprof-enabled is yes; every other path is
// 404.
func Serve(addr string, env *executor.Env) (*Server, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		&collector{env: env},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slogAdapter{}}))
	servePprof(mux, env.Config.MetricsPprofEnabled.Get)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", addr, err)
	}
	s := &Server{http: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, ln: ln}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("metrics endpoint stopped", "err", err)
		}
	}()
	return s, nil
}

// Addr returns the address the endpoint listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the endpoint.
func (s *Server) Close() error { return s.http.Close() }

// servePprof registers net/http/pprof's handlers, each answering 404 while
// enabled reports false: the key can be set at run time, so the check is
// made per request. The mux is this server's own, not http's default one,
// which other packages may fill.
func servePprof(mux *http.ServeMux, enabled func() bool) {
	only := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !enabled() {
				http.NotFound(w, r)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	// Index serves the named profiles (heap, goroutine, allocs, ...) below
	// /debug/pprof/; the others are handlers of their own.
	mux.Handle("/debug/pprof/", only(http.HandlerFunc(pprof.Index)))
	mux.Handle("/debug/pprof/cmdline", only(http.HandlerFunc(pprof.Cmdline)))
	mux.Handle("/debug/pprof/profile", only(http.HandlerFunc(pprof.Profile)))
	mux.Handle("/debug/pprof/symbol", only(http.HandlerFunc(pprof.Symbol)))
	mux.Handle("/debug/pprof/trace", only(http.HandlerFunc(pprof.Trace)))
}

type slogAdapter struct{}

func (slogAdapter) Println(v ...any) { slog.Error("metrics", "err", fmt.Sprint(v...)) }

// infoMetric is how one INFO field is exported: its metric name after
// "kvrocks_" (or the full name when it starts with "basalt_"), and whether
// it is a counter.
type infoMetric struct {
	name    string
	counter bool
}

// infoMetrics maps INFO fields to kvrocks_exporter's metrics (its
// exporter.go), and a few of Basalt's own.
var infoMetrics = map[string]infoMetric{
	"uptime_in_seconds": {"uptime_in_seconds", false}, "process_id": {"process_id", false},
	"connected_clients": {"connected_clients", false}, "blocked_clients": {"blocked_clients", false},
	"monitor_clients": {"monitor_clients", false}, "used_memory": {"memory_used_bytes", false},
	"used_memory_rss": {"memory_used_rss_bytes", false}, "used_memory_lua": {"memory_used_lua_bytes", false},
	"loading": {"loading", false}, "pubsub_channels": {"pubsub_channels", false},
	"pubsub_patterns": {"pubsub_patterns", false}, "keyspace_hits": {"keyspace_hits", false},
	"keyspace_misses": {"keyspace_misses", false}, "connected_slaves": {"connected_slaves", false},
	"master_repl_offset": {"master_repl_offset", false}, "sync_full": {"replica_resyncs_full", false},
	"sync_partial_ok": {"replica_partial_resync_accepted", false}, "sync_partial_err": {"replica_partial_resync_denied", false},
	"sequence": {"sequence", false}, "used_db_size": {"used_db_size", false}, "max_db_size": {"max_db_size", false},
	"disk_capacity": {"disk_capacity_bytes", false}, "used_disk_size": {"used_disk_size", false},
	"all_mem_tables": {"all_mem_tables", false}, "cur_mem_tables": {"cur_mem_tables", false},
	"snapshots": {"snapshots", false}, "num_immutable_tables": {"num_immutable_tables", false},
	"num_running_flushes": {"num_running_flushes", false}, "memtable_flush_pending": {"memtable_flush_pending", false},
	"compaction_pending": {"compaction_pending", false}, "num_running_compactions": {"num_running_compactions", false},
	"num_live_versions": {"num_live_versions", false}, "num_super_version": {"num_superversion", false},
	"num_background_errors": {"num_background_errors", false}, "flush_count": {"flush_count", false},
	"compaction_count": {"compaction_count", false}, "instantaneous_ops_per_sec": {"instantaneous_ops_per_sec", false},
	"is_bgsaving": {"is_bgsaving", false}, "is_compacting": {"is_compacting", false},
	"put_per_sec": {"put_per_sec", false}, "get_per_sec": {"get_per_sec", false}, "seek_per_sec": {"seek_per_sec", false},
	"next_per_sec": {"next_per_sec", false}, "prev_per_sec": {"prev_per_sec", false},
	"block_cache_usage": {"block_cache_usage", false},

	"total_connections_received": {"connections_received_total", true},
	"total_commands_processed":   {"commands_processed_total", true},
	"rejected_connections":       {"rejected_connections_total", true},
	"total_net_input_bytes":      {"net_input_bytes_total", true},
	"total_net_output_bytes":     {"net_output_bytes_total", true},
	"total_error_replies":        {"total_error_replies", true},
	"used_cpu_sys":               {"cpu_sys_seconds_total", true},
	"used_cpu_user":              {"cpu_user_seconds_total", true},
	"block_cache_hit":            {"block_cache_hit_total", true},
	"block_cache_miss":           {"block_cache_miss_total", true},
	"block_cache_data_hit":       {"block_cache_data_hit_total", true},
	"block_cache_data_miss":      {"block_cache_data_miss_total", true},
	"block_cache_index_hit":      {"block_cache_index_hit_total", true},
	"block_cache_index_miss":     {"block_cache_index_miss_total", true},
	"block_cache_filter_hit":     {"block_cache_filter_hit_total", true},
	"block_cache_filter_miss":    {"block_cache_filter_miss_total", true},

	"compaction_read_bytes":     {"basalt_rocksdb_compaction_read_bytes_total", true},
	"compaction_write_bytes":    {"basalt_rocksdb_compaction_write_bytes_total", true},
	"flush_write_bytes":         {"basalt_rocksdb_flush_write_bytes_total", true},
	"is_write_stopped":          {"basalt_rocksdb_write_stopped", false},
	"actual_delayed_write_rate": {"basalt_rocksdb_delayed_write_rate_bytes", false},
}

// collector turns INFO and the command counters into metrics at each
// scrape.
type collector struct{ env *executor.Env }

// Describe sends nothing: the set of metrics depends on what the server
// did (commands called, column families), which makes this an unchecked
// collector.
func (c *collector) Describe(chan<- *prometheus.Desc) {}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	emit := func(name, help string, t prometheus.ValueType, v float64, labels ...string) {
		var keys, values []string
		for i := 0; i+1 < len(labels); i += 2 {
			keys, values = append(keys, labels[i]), append(values, labels[i+1])
		}
		ch <- prometheus.MustNewConstMetric(prometheus.NewDesc(name, help, keys, nil), t, v, values...)
	}
	info := map[string]string{}
	for _, f := range c.env.InfoFields() {
		info[f.Key] = f.Value
		c.infoField(f, emit)
	}
	emit("kvrocks_up", "Whether the server answers.", prometheus.GaugeValue, 1)
	emit("kvrocks_instance_info", "Information about the server.", prometheus.GaugeValue, 1,
		"role", info["role"], "version", info["version"], "git_sha1", "", "os", info["os"],
		"tcp_port", info["tcp_port"], "gcc_version", info["go_version"], "process_id", info["process_id"])
	if up, err := strconv.ParseFloat(info["uptime_in_seconds"], 64); err == nil {
		emit("kvrocks_start_time_seconds", "Start time of the server, Unix seconds.", prometheus.GaugeValue,
			float64(time.Now().Unix())-up)
	}
	emit("kvrocks_config_maxclients", "maxclients setting.", prometheus.GaugeValue, parse(info["maxclients"]))
	replicationMetrics(info, emit)
	length, lastID, last := c.env.Sessions.Slowlog.Stats()
	emit("kvrocks_slowlog_length", "Entries in the slow log.", prometheus.GaugeValue, float64(length))
	emit("kvrocks_slowlog_last_id", "Id of the newest slow log entry.", prometheus.GaugeValue, float64(lastID))
	emit("kvrocks_last_slow_execution_duration_seconds", "Duration of the newest slow log entry.", prometheus.GaugeValue, last.Seconds())
	c.commandHistograms(ch)
}

// infoField exports one INFO field, if it has a metric.
func (c *collector) infoField(f executor.InfoField, emit func(string, string, prometheus.ValueType, float64, ...string)) {
	if m, ok := infoMetrics[f.Key]; ok {
		name, t := "kvrocks_"+m.name, prometheus.GaugeValue
		if strings.HasPrefix(m.name, "basalt_") {
			name = m.name
		}
		if m.counter {
			t = prometheus.CounterValue
		}
		emit(name, "INFO "+f.Key, t, parse(f.Value))
		return
	}
	if base, cf, ok := strings.Cut(f.Key, "["); ok && strings.HasSuffix(cf, "]") {
		emit("kvrocks_"+base, "INFO "+base+" per column family", prometheus.GaugeValue, parse(f.Value),
			"column_family", strings.TrimSuffix(cf, "]"))
		return
	}
	if cmd, ok := strings.CutPrefix(f.Key, "cmdstat_"); ok {
		kv := fields(f.Value)
		emit("kvrocks_commands_total", "Calls per command.", prometheus.CounterValue, kv["calls"], "cmd", cmd)
		emit("kvrocks_commands_duration_seconds_total", "Time spent per command.", prometheus.CounterValue, kv["usec"]/1e6, "cmd", cmd)
		emit("kvrocks_commands_rejected_calls_total", "Calls refused before they ran, per command.", prometheus.CounterValue, kv["rejected_calls"], "cmd", cmd)
		emit("kvrocks_commands_failed_calls_total", "Calls that replied an error, per command.", prometheus.CounterValue, kv["failed_calls"], "cmd", cmd)
		return
	}
	if code, ok := strings.CutPrefix(f.Key, "errorstat_"); ok {
		emit("kvrocks_errors_total", "Error replies per error code.", prometheus.CounterValue, fields(f.Value)["count"], "err", code)
		return
	}
	if strings.HasPrefix(f.Key, "db") && f.Section == "keyspace" {
		kv := fields(f.Value)
		emit("kvrocks_db_keys", "Keys per database.", prometheus.GaugeValue, kv["keys"], "db", f.Key)
		emit("kvrocks_db_keys_expiring", "Keys with a TTL per database.", prometheus.GaugeValue, kv["expires"], "db", f.Key)
		emit("kvrocks_db_avg_ttl_seconds", "Average TTL per database.", prometheus.GaugeValue, kv["avg_ttl"], "db", f.Key) // seconds, as Kvrocks writes it
		emit("kvrocks_db_keys_expired", "Expired keys not yet reclaimed per database.", prometheus.GaugeValue, kv["expired"], "db", f.Key)
	}
}

// replicationMetrics exports INFO replication as kvrocks_exporter does:
// on a replica its link to the master, labelled with the master's
// address; on a master each replica's offset and lag (in sequence
// numbers, under the exporter's names).
func replicationMetrics(info map[string]string, emit func(string, string, prometheus.ValueType, float64, ...string)) {
	if info["role"] == "slave" {
		master := []string{"master_host", info["master_host"], "master_port", info["master_port"]}
		up := 0.0
		if info["master_link_status"] == "up" {
			up = 1
		}
		emit("kvrocks_master_link_up", "Whether the link to the master is up.", prometheus.GaugeValue, up, master...)
		emit("kvrocks_master_sync_in_progress", "Whether a full sync from the master runs.", prometheus.GaugeValue, parse(info["master_sync_in_progress"]), master...)
		emit("kvrocks_master_last_io_seconds_ago", "Seconds since the master last sent something.", prometheus.GaugeValue, parse(info["master_last_io_seconds_ago"]), master...)
		emit("kvrocks_slave_repl_offset", "The replica's sequence number.", prometheus.GaugeValue, parse(info["slave_repl_offset"]), master...)
	}
	for i := 0; ; i++ {
		line, ok := info["slave"+strconv.Itoa(i)]
		if !ok {
			return
		}
		kv := map[string]string{}
		for _, part := range strings.Split(line, ",") {
			if k, v, ok := strings.Cut(part, "="); ok {
				kv[k] = v
			}
		}
		labels := []string{"slave_ip", kv["ip"], "slave_port", kv["port"], "slave_state", "online"}
		emit("kvrocks_connected_slave_offset_bytes", "A replica's offset: the last sequence number sent to it.", prometheus.GaugeValue, parse(kv["offset"]), labels...)
		emit("kvrocks_connected_slave_lag_seconds", "A replica's lag, in sequence numbers as Kvrocks counts it.", prometheus.GaugeValue, parse(kv["lag"]), labels...)
	}
}

// commandHistograms exports each command's latency histogram.
func (c *collector) commandHistograms(ch chan<- prometheus.Metric) {
	desc := prometheus.NewDesc("basalt_command_duration_seconds", "Latency of commands, from parsed request to reply.", []string{"cmd"}, nil)
	for _, st := range c.env.CommandStats() {
		buckets := make(map[float64]uint64, len(executor.LatencyBuckets))
		var cumulative uint64
		for i, bound := range executor.LatencyBuckets {
			cumulative += st.Buckets[i]
			buckets[bound.Seconds()] = cumulative
		}
		count := cumulative + st.Buckets[len(executor.LatencyBuckets)]
		ch <- prometheus.MustNewConstHistogram(desc, count, float64(st.Usec)/1e6, buckets, st.Name)
	}
}

// parse reads a number from an INFO value ("12", "1.5", " 7%", and yes or
// no as 1 or 0).
func parse(s string) float64 {
	if s == "yes" {
		return 1
	}
	f, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
	return f
}

// fields splits "a=1,b=2" into numbers.
func fields(s string) map[string]float64 {
	out := map[string]float64{}
	for _, part := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(part, "="); ok {
			out[k] = parse(v)
		}
	}
	return out
}
