package executor

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/cluster"
	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/namespace"
	"github.com/basaltdb/basalt/replication"
	"github.com/basaltdb/basalt/scripting"
	"github.com/basaltdb/basalt/session"
	"github.com/basaltdb/basalt/storage"
)

// Version is Basalt's version. RedisCompat is the Redis version whose
// commands and replies it follows. RedisVersion is what INFO's
// redis_version and HELLO's version say: Kvrocks's fixed 4.0.0, which the
// tools and dashboards written for Kvrocks read.
const (
	Version      = "0.1.0"
	RedisCompat  = "7.0.15"
	RedisVersion = "4.0.0"
)

// Env is the server-wide state handlers share.
type Env struct {
	Storage    *storage.Storage
	Config     *config.Config
	Namespaces *namespace.Registry
	// Cluster is the topology in cluster mode, nil otherwise.
	Cluster *cluster.Cluster
	// Repl is the node's replication: the master side serving PSYNC,
	// and the replica side once it follows a master.
	Repl *replication.Node
	// Sessions are the connections and what they listen to, wait for
	// and watch.
	Sessions  *session.Registry
	Stats     Stats
	StartTime time.Time
	RunID     string
	// Shutdown stops the server; SHUTDOWN calls it after replying.
	Shutdown func()

	startupMemory int64 // Go heap in use when the server started
	// Access is when keys were last used (OBJECT IDLETIME, RESTORE's
	// IDLETIME).
	Access *accessClock

	Cursors  cursorTable // SCAN's cursors
	keyspace keyspaceStats
	AuthLog  authLog // the failed AUTH attempts ACL LOG reports
	backups  backups
	Notes    notices        // the storage's notices to keyspace subscribers (DEBUG SET-ACTIVE-EXPIRE)
	Perflog  perflog        // the sampled commands' perf contexts (PERFLOG)
	Latency  latencyMonitor // LATENCY's events
	// gate is held shared by every command and exclusively by EXEC.
	gate sync.RWMutex
	// Scripts runs the Lua scripts and functions (script.go);
	// scriptsPending counts the script commands waiting for the gate or
	// holding it (busy.go).
	Scripts        *scripting.Engine
	storedScripts  storedScripts
	scriptsPending atomic.Int64
	// scriptQueue holds the script commands waiting for the one that
	// leads (scriptqueue.go).
	scriptQueue scriptQueue
	// Background counts the goroutines reading storage on their own.
	Background sync.WaitGroup
	// loops counts the goroutines that run until stop: the sampler and
	// the expiry sweeps.
	loops sync.WaitGroup
	stop  chan struct{}
}

// NewEnv returns the state of a server using s, cfg, the namespace
// registry ns and the registry of sessions.
func NewEnv(s *storage.Storage, cfg *config.Config, ns *namespace.Registry, sessions *session.Registry) *Env {
	var id [20]byte
	rand.Read(id[:])
	e := &Env{
		Storage:    s,
		Config:     cfg,
		Namespaces: ns,
		Repl:       replication.NewNode(cfg, s),
		Sessions:   sessions,
		StartTime:  time.Now(),
		RunID:      hex.EncodeToString(id[:]),
		stop:       make(chan struct{}),
		Access:     newAccessClock(),
	}
	s.SetWatcher(e)
	e.startupMemory = goHeapBytes()
	e.Perflog.watchConfig(cfg)
	e.watchClusterPersist()
	e.Repl.Quiesce = e.quiesce
	e.Repl.OnRestored = e.replicaRestored
	e.Repl.OnApply = e.replicaApplying
	e.Repl.Master.OnAck = e.Sessions.Blocking.Acked
	e.startScripting()
	e.loops.Go(e.sampleLoop)
	e.loops.Go(e.expireLoop)
	e.loops.Go(e.fieldExpiryLoop)
	return e
}

// Disconnected forgets a session whose connection closed. An import still
// running over it failed: what it imported is dropped.
func (e *Env) Disconnected(s *session.Session) {
	e.Sessions.Disconnected(s)
	if !s.Importing || e.Cluster == nil {
		return
	}
	if r, drop := e.Cluster.ImportBroken(s.ID); drop {
		if err := e.DropImport(r); err != nil {
			slog.Error("drop the slots of a broken import", "slots", r.String(), "err", err)
		}
	}
}

// Close stops the background work of the Env and waits for it (the
// sampler, the expiry sweeps and the keyspace walks still running), which
// reads the storage the caller closes next.
func (e *Env) Close() {
	close(e.stop)
	e.loops.Wait()
	e.Background.Wait()
	e.Scripts.Close()
}

// Stats are the server counters INFO reports.
type Stats struct {
	ConnectionsReceived atomic.Int64
	RejectedConnections atomic.Int64
	CommandsProcessed   atomic.Int64
	NetInputBytes       atomic.Int64
	NetOutputBytes      atomic.Int64
	KeyspaceHits        atomic.Int64
	KeyspaceMisses      atomic.Int64
	// EvictedClients counts clients closed by maxmemory-clients;
	// AuthFailures failed AUTH and HELLO AUTH attempts
	// (acl_access_denied_auth).
	EvictedClients atomic.Int64
	AuthFailures   atomic.Int64

	// Instantaneous rates, sampled like Redis: the mean over the last
	// samples taken every 100 ms.
	opsRate, inRate, outRate rate
	// engineRates follow storage.RateTickers: keys written and read,
	// seeks, nexts, prevs per second, sampled every second.
	engineRates [5]rate
}

const rateSamples = 16

type rate struct {
	samples  [rateSamples]float64
	idx      int
	last     int64
	lastTime time.Time
	mean     atomic.Uint64 // float64 bits
}

func (r *rate) sample(now time.Time, value int64) {
	if !r.lastTime.IsZero() {
		dt := now.Sub(r.lastTime).Seconds()
		if dt > 0 {
			r.samples[r.idx] = float64(value-r.last) / dt
			r.idx = (r.idx + 1) % rateSamples
		}
		var sum float64
		for _, s := range r.samples {
			sum += s
		}
		r.mean.Store(floatBits(sum / rateSamples))
	}
	r.last, r.lastTime = value, now
}

func (r *rate) get() float64 { return floatFromBits(r.mean.Load()) }

func (e *Env) sampleLoop() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	tick := 0
	for {
		select {
		case <-e.stop:
			return
		case now := <-t.C:
			if tick++; tick%10 == 0 {
				tickers := e.Storage.Tickers()
				for i, rt := range storage.RateTickers {
					e.Stats.engineRates[i].sample(now, int64(tickers[rt[1]]))
				}
			}
			e.Stats.opsRate.sample(now, e.Stats.CommandsProcessed.Load())
			e.Stats.inRate.sample(now, e.Stats.NetInputBytes.Load())
			e.Stats.outRate.sample(now, e.Stats.NetOutputBytes.Load())
		}
	}
}

// Hit counts a keyspace hit or miss for INFO stats.
func (s *Stats) Hit(found bool) {
	if found {
		s.KeyspaceHits.Add(1)
	} else {
		s.KeyspaceMisses.Add(1)
	}
}
