package executor

import (
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/storage"
)

// perflog keeps, newest first, the RocksDB perf and I/O contexts of
// sampled commands, as Kvrocks's PERFLOG: profiling-sample-ratio percent
// of the calls of the commands profiling-sample-commands names ("*":
// all) are profiled, and those slower than
// profiling-sample-record-threshold-ms that touched RocksDB are kept, up
// to profiling-sample-record-max-len.
type perflog struct {
	// commands is the set profiling-sample-commands names; nil with "*".
	commands atomic.Pointer[map[string]bool]
	mu       struct {
		sync.Mutex
		nextID  int64
		entries []perfEntry // oldest first
	}
}

type perfEntry struct {
	ID            int64
	At            time.Time
	Name          string
	Duration      time.Duration
	Perf, IOStats string
}

// watchConfig keeps the sampled commands and the length in step with
// the config.
func (p *perflog) watchConfig(cfg *config.Config) {
	names := func() {
		v := cfg.ProfilingSampleCommands.Get()
		if strings.Contains(v, "*") {
			p.commands.Store(nil)
			return
		}
		set := map[string]bool{}
		for _, n := range strings.Split(v, ",") {
			if n != "" {
				set[strings.ToLower(n)] = true
			}
		}
		p.commands.Store(&set)
	}
	names()
	cfg.Watch("profiling-sample-commands", names)
	cfg.Watch("profiling-sample-record-max-len", func() { p.trim(int(cfg.ProfilingSampleMaxLen.Get())) })
}

// begin starts profiling a call of cmd when it is sampled; end then
// records it.
func (p *perflog) begin(cfg *config.Config, cmd *Command) (storage.PerfSample, bool) {
	ratio := cfg.ProfilingSampleRatio.Get()
	if ratio == 0 {
		return storage.PerfSample{}, false
	}
	if set := p.commands.Load(); set != nil && !(*set)[cmd.Name] {
		return storage.PerfSample{}, false
	}
	// Kvrocks's test: rand() % 100 <= ratio.
	if ratio < 100 && int64(rand.IntN(100)) > ratio {
		return storage.PerfSample{}, false
	}
	return storage.BeginPerf(), true
}

// end keeps a profiled call that ran for at least the threshold and did
// something in RocksDB.
func (p *perflog) end(cfg *config.Config, sample storage.PerfSample, cmd *Command, elapsed time.Duration) {
	perf, iostats := sample.EndPerf()
	threshold := cfg.ProfilingSampleThreshold.Get()
	if (threshold > 0 && elapsed.Milliseconds() < threshold) || perf == "" {
		return
	}
	max := int(cfg.ProfilingSampleMaxLen.Get())
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mu.nextID++
	p.mu.entries = append(p.mu.entries, perfEntry{ID: p.mu.nextID, At: time.Now(), Name: cmd.Name, Duration: elapsed, Perf: perf, IOStats: iostats})
	p.trimLocked(max)
}

func (p *perflog) trim(max int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.trimLocked(max)
}

func (p *perflog) trimLocked(max int) {
	if n := len(p.mu.entries); n > max {
		p.mu.entries = append(p.mu.entries[:0:0], p.mu.entries[n-max:]...)
	}
}

// Latest returns up to n entries, newest first; n <= 0: all.
func (p *perflog) Latest(n int64) []perfEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	all := p.mu.entries
	if n <= 0 || n > int64(len(all)) {
		n = int64(len(all))
	}
	out := make([]perfEntry, n)
	for i := range out {
		out[i] = all[len(all)-1-i]
	}
	return out
}

// Len returns the number of entries kept.
func (p *perflog) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.mu.entries)
}

// Reset forgets every entry.
func (p *perflog) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mu.entries = nil
}
