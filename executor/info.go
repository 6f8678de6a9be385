package executor

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/session"
	"github.com/basaltdb/basalt/storage"
)

// memoryPeak is the most total.allocated MEMORY STATS has seen.
var memoryPeak atomic.Int64

// memoryFigures are the server's memory as MEMORY STATS and DOCTOR read
// it: what the Go heap and RocksDB's memtables and block cache hold
// (allocated), what the Go runtime holds from the system (active), and
// the process's resident set.
type memoryFigures struct {
	Allocated, Active, RSS, Startup, Peak int64
}

// MemoryFigures returns the memory figures of INFO memory and MEMORY
// STATS.
func (e *Env) MemoryFigures() memoryFigures {
	f := memoryFigures{RSS: processRSS(), Startup: e.startupMemory}
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}}
	metrics.Read(samples)
	heap, total := int64(samples[0].Value.Uint64()), int64(samples[1].Value.Uint64())
	var rocks int64
	for _, st := range e.Storage.MemoryStats() {
		if st.Name == "used_memory_memtables" || st.Name == "used_memory_block_cache" {
			rocks += int64(st.Value)
		}
	}
	f.Allocated, f.Active = heap+rocks, total+rocks
	for {
		peak := memoryPeak.Load()
		if f.Allocated <= peak || memoryPeak.CompareAndSwap(peak, f.Allocated) {
			f.Peak = max(peak, f.Allocated)
			break
		}
	}
	return f
}

// infoSections lists INFO's sections in order. INFO without arguments
// shows the sections Kvrocks shows (kvrocks); Redis 7's "default" the
// byDefault ones; "all" and "everything" every one.
var infoSections = []struct {
	name               string
	kvrocks, byDefault bool
	write              func(e *Env, ns string, b *infoBuilder)
}{
	{"server", true, true, infoServer},
	{"clients", true, true, infoClients},
	{"memory", true, true, infoMemory},
	{"persistence", true, true, infoPersistence},
	{"stats", true, true, infoStats},
	{"replication", true, true, infoReplication},
	{"cpu", true, true, infoCPU},
	{"commandstats", true, false, infoCommandStats},
	{"errorstats", false, true, infoErrorStats},
	{"cluster", true, true, infoCluster},
	{"keyspace", true, true, infoKeyspace},
	{"rocksdb", true, true, infoRocksDB},
}

// Info renders the INFO sections asked for (none: Kvrocks's) as
// namespace ns sees them.
func (e *Env) Info(ns string, sections []string) *infoBuilder {
	want := map[string]bool{}
	kvrocks, all, everything := len(sections) == 0, false, false
	for _, a := range sections {
		s := strings.ToLower(a)
		switch s {
		case "default":
			all = true
		case "all", "everything":
			everything = true
		default:
			want[s] = true
		}
	}
	b := &infoBuilder{}
	for _, sec := range infoSections {
		if everything || (kvrocks && sec.kvrocks) || (all && sec.byDefault) || want[sec.name] {
			b.section(sec.name)
			sec.write(e, ns, b)
		}
	}
	return b
}

// InfoField is one key:value line of INFO.
type InfoField struct {
	Section, Key, Value string
	number              bool // a number in INFO's JSON
}

// InfoFields returns every field of INFO ALL as the default namespace
// sees it: what /metrics exports.
func (e *Env) InfoFields() []InfoField {
	e.gate.RLock()
	defer e.gate.RUnlock()
	return e.Info(metadata.DefaultNamespace, []string{"all"}).fields
}

// infoBuilder renders "# Section" headers and "key:value" lines, with a
// blank line between sections, and keeps the fields.
type infoBuilder struct {
	strings.Builder
	current  string
	sections []struct{ name, title string }
	fields   []InfoField
}

func (b *infoBuilder) section(name string) {
	if b.Len() > 0 {
		b.WriteString("\r\n")
	}
	title := strings.ToUpper(name[:1]) + name[1:]
	switch name { // as Kvrocks writes them
	case "rocksdb":
		title = "RocksDB"
	case "cpu":
		title = "CPU"
	}
	b.WriteString("# " + title + "\r\n")
	b.current = name
	b.sections = append(b.sections, struct{ name, title string }{name, title})
}

func (b *infoBuilder) field(key string, value any) {
	v := fmt.Sprint(value)
	b.WriteString(key + ":" + v + "\r\n")
	b.fields = append(b.fields, InfoField{b.current, key, v, isNumber(value)})
}

func infoServer(e *Env, ns string, b *infoBuilder) {
	mode := "standalone"
	if e.Config.ClusterEnabled.Get() {
		mode = "cluster"
	}
	uptime := time.Since(e.StartTime)
	exe, _ := os.Executable()
	b.field("version", Version)
	b.field("kvrocks_version", Version)
	b.field("basalt_version", Version)
	b.field("redis_version", RedisVersion)
	b.field("git_sha1", gitSHA1())
	b.field("kvrocks_git_sha1", gitSHA1())
	b.field("redis_mode", mode)
	b.field("kvrocks_mode", mode)
	b.field("os", osName())
	// Kvrocks names its compiler here; Basalt's is Go's.
	b.field("gcc_version", strings.TrimPrefix(runtime.Version(), "go"))
	b.field("arch_bits", 32<<(^uint(0)>>63))
	b.field("go_version", runtime.Version())
	b.field("process_id", os.Getpid())
	b.field("run_id", e.RunID)
	b.field("tcp_port", e.Config.Port.Get())
	b.field("server_time_usec", time.Now().UnixMicro())
	b.field("uptime_in_seconds", int64(uptime.Seconds()))
	b.field("uptime_in_days", int64(uptime.Hours()/24))
	b.field("rocksdb_version", e.Storage.RocksDBVersion())
	b.field("executable", exe)
	b.field("config_file", e.Config.Path())
}

// gitSHA1 returns the commit the binary was built from (the first 7
// digits, as Kvrocks shows it), or "unknown".
func gitSHA1() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 7 {
				return s.Value[:7]
			}
		}
	}
	return "unknown"
}

func osName() string {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return runtime.GOOS
	}
	str := func(a [65]int8) string {
		var sb strings.Builder
		for _, ch := range a {
			if ch == 0 {
				break
			}
			sb.WriteByte(byte(ch))
		}
		return sb.String()
	}
	return str(u.Sysname) + " " + str(u.Release) + " " + str(u.Machine)
}

func infoClients(e *Env, ns string, b *infoBuilder) {
	b.field("maxclients", e.Config.MaxClients.Get())
	b.field("connected_clients", e.Sessions.Count())
	b.field("monitor_clients", e.Sessions.Monitors.Count())
	b.field("blocked_clients", e.Sessions.Blocking.Count())
	in, out := e.Sessions.BufferPeaks()
	b.field("client_recent_max_input_buffer", in)
	b.field("client_recent_max_output_buffer", out)
}

// processRSS reads the resident set size from /proc.
func processRSS() int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, resident int64
	fmt.Sscan(string(data), &size, &resident)
	return resident * int64(os.Getpagesize())
}

func goHeapBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// goRuntimeBytes is the memory the Go runtime holds from the system,
// less what it has released back.
func goRuntimeBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()) - int64(s[1].Value.Uint64())
}

// humanBytes renders a size the way Redis's *_human fields do.
func humanBytes(n int64) string {
	f := float64(n)
	for _, u := range []string{"B", "K", "M", "G", "T"} {
		if f < 1024 || u == "T" {
			if u == "B" {
				return fmt.Sprintf("%dB", n)
			}
			return fmt.Sprintf("%.2f%s", f, u)
		}
		f /= 1024
	}
	return ""
}

func infoMemory(e *Env, ns string, b *infoBuilder) {
	rss, heap := processRSS(), goHeapBytes()
	b.field("used_memory", heap)
	b.field("used_memory_human", humanBytes(heap))
	b.field("used_memory_rss", rss)
	b.field("used_memory_rss_human", humanBytes(rss))
	b.field("used_memory_lua", 0)
	b.field("used_memory_lua_human", humanBytes(0))
	b.field("used_memory_startup", e.startupMemory)
	// A deleted key costs one metadata write and compaction reclaims its
	// elements later: nothing waits to be freed in the background, which
	// tools that poll this field (Redis's UNLINK and FLUSHALL ASYNC
	// tests) wait for.
	b.field("lazyfree_pending_objects", 0)
	// What the Go runtime keeps resident: its heap with the free spans it
	// has not returned yet (the collector lets the heap grow to twice what
	// is live before it collects), stacks and its own structures. With the
	// RocksDB figures below it accounts for most of used_memory_rss.
	b.field("used_memory_go_runtime", goRuntimeBytes())
	for _, st := range e.Storage.MemoryStats() {
		b.field(st.Name, st.Value)
	}
}

func infoStats(e *Env, ns string, b *infoBuilder) {
	s := &e.Stats
	b.field("total_connections_received", s.ConnectionsReceived.Load())
	b.field("total_commands_processed", s.CommandsProcessed.Load())
	b.field("instantaneous_ops_per_sec", int64(s.opsRate.get()))
	b.field("total_net_input_bytes", s.NetInputBytes.Load())
	b.field("total_net_output_bytes", s.NetOutputBytes.Load())
	// Whole KB/s, as Kvrocks shows them.
	b.field("instantaneous_input_kbps", int64(s.inRate.get()/1024))
	b.field("instantaneous_output_kbps", int64(s.outRate.get()/1024))
	b.field("rejected_connections", s.RejectedConnections.Load())
	b.field("sync_full", e.Repl.Master.SyncFull.Load())
	b.field("sync_partial_ok", e.Repl.Master.SyncPartialOK.Load())
	b.field("sync_partial_err", e.Repl.Master.SyncPartialErr.Load())
	b.field("keyspace_hits", s.KeyspaceHits.Load())
	b.field("keyspace_misses", s.KeyspaceMisses.Load())
	b.field("evicted_clients", s.EvictedClients.Load())
	b.field("acl_access_denied_auth", s.AuthFailures.Load())
	b.field("total_error_replies", errStats.total.Load())
	b.field("pubsub_channels", e.Sessions.PubSub.Distinct(session.KindChannel))
	b.field("pubsub_patterns", e.Sessions.PubSub.Distinct(session.KindPattern))
}

func infoCPU(e *Env, ns string, b *infoBuilder) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	tv := func(t syscall.Timeval) infoNumber { return infoNumber(fmt.Sprintf("%d.%06d", t.Sec, t.Usec)) }
	b.field("used_cpu_sys", tv(ru.Stime))
	b.field("used_cpu_user", tv(ru.Utime))
	infoWorkerCPU(b)
}

// infoCommandStats shows Kvrocks's fields, then Redis 7's
// rejected_calls and failed_calls.
func infoCommandStats(e *Env, ns string, b *infoBuilder) {
	for _, st := range e.CommandStats() {
		perCall := int64(0)
		if st.Calls > 0 {
			// Whole microseconds, as Kvrocks shows them.
			perCall = st.Usec / st.Calls
		}
		b.field("cmdstat_"+st.Name, fmt.Sprintf("calls=%d,usec=%d,usec_per_call=%d,rejected_calls=%d,failed_calls=%d",
			st.Calls, st.Usec, perCall, st.Rejected, st.Failed))
	}
}

// infoErrorStats is Redis 7's count of error replies per error code.
func infoErrorStats(e *Env, ns string, b *infoBuilder) {
	stats, _ := e.ErrorStats()
	for _, st := range stats {
		b.field("errorstat_"+st.Code, "count="+strconv.FormatInt(st.Count, 10))
	}
}

func infoCluster(e *Env, ns string, b *infoBuilder) {
	enabled := 0
	if e.Config.ClusterEnabled.Get() {
		enabled = 1
	}
	b.field("cluster_enabled", enabled)
}

// infoKeyspace shows the figures of the client's namespace as of its last
// walk (see keyspaceStats), with the walk's time as Kvrocks does.
func infoKeyspace(e *Env, ns string, b *infoBuilder) {
	st, at, err := e.KeyspaceOf(ns)
	if err == nil {
		fmt.Fprintf(b, "# Last DBSIZE SCAN time: %s\r\n", at.Format("Mon Jan _2 15:04:05 2006"))
		// avg_ttl in seconds, as Kvrocks shows it (Redis: milliseconds).
		b.field(keyspaceLabel(e, ns), fmt.Sprintf("keys=%d,expires=%d,avg_ttl=%d,expired=%d", st.Keys, st.Expires, st.AvgTTL/1000, st.Expired))
	}
	b.field("sequence", e.Storage.LatestSequence())
	used := e.Storage.SSTBytes()
	b.field("used_db_size", used)
	maxSize := e.Config.MaxDBSize.Get() << 30
	b.field("max_db_size", maxSize)
	// Kvrocks writes these two with a blank after the colon, and the
	// share as a float (117.188%).
	b.field("used_percent", " "+percent(used, maxSize))
	total, free := diskSpace(e.Config.Dir.Get())
	b.field("disk_capacity", total)
	b.field("used_disk_size", total-free)
	b.field("used_disk_percent", " "+percent(total-free, total))
}

// keyspaceLabel names the keyspace line: db0 as Kvrocks, or with
// redis-databases the database namespace ns holds.
func keyspaceLabel(e *Env, ns string) string {
	if n, ok := metadata.DatabaseOf(ns); ok && e.Config.RedisDatabases.Get() > 0 {
		return "db" + strconv.FormatInt(n, 10)
	}
	return "db0"
}

// diskSpace returns the size and free bytes of the file system holding
// dir.
func diskSpace(dir string) (total, free int64) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0
	}
	return int64(st.Blocks) * st.Bsize, int64(st.Bavail) * st.Bsize
}

// percent renders part/whole as Kvrocks does: a C++ stream's double (six
// significant digits) and "%".
func percent(part, whole int64) string {
	if whole <= 0 {
		return "0%"
	}
	return strconv.FormatFloat(float64(part)/float64(whole)*100, 'g', 6, 64) + "%"
}

// infoRocksDB shows what RocksDB's memtables, compactions and column
// families are doing.
func infoRocksDB(e *Env, ns string, b *infoBuilder) {
	compacting := "no"
	for _, st := range e.Storage.RocksDBStats() {
		if st.Name == "is_compacting" {
			if st.Value != 0 {
				compacting = "yes"
			}
			continue
		}
		b.field(st.Name, st.Value)
	}
	for i, t := range storage.RateTickers {
		b.field(t[0]+"_per_sec", int64(e.Stats.engineRates[i].get()))
	}
	// Last, and as yes or no, as Kvrocks shows them.
	b.field("is_bgsaving", map[bool]string{true: "yes", false: "no"}[e.bgsaving()])
	b.field("is_compacting", compacting)
}
