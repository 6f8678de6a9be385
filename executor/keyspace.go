package executor

import (
	"log/slog"
	"sync"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// keyspaceRefresh is how old INFO keyspace lets a namespace's figures get
// before it starts a background scan to refresh them.
const keyspaceRefresh = time.Minute

// keyspaceStats caches, per namespace, the figures of INFO keyspace, which
// take a walk over the namespace's keys to compute: a walk runs when
// DBSIZE SCAN asks for one, on a namespace's first INFO, and in the
// background when the figures are older than keyspaceRefresh.
type keyspaceStats struct {
	mu   sync.Mutex
	byNS map[string]*nsKeyspace
}

type nsKeyspace struct {
	stats    storage.KeyStats
	at       time.Time // when the last walk finished; zero before the first
	scanning bool
}

func (k *keyspaceStats) entry(ns string) *nsKeyspace {
	if k.byNS == nil {
		k.byNS = map[string]*nsKeyspace{}
	}
	e := k.byNS[ns]
	if e == nil {
		e = &nsKeyspace{}
		k.byNS[ns] = e
	}
	return e
}

// scan starts a background walk of namespace ns unless one is running.
func (e *Env) ScanKeyspace(ns string) {
	k := &e.keyspace
	k.mu.Lock()
	defer k.mu.Unlock()
	entry := k.entry(ns)
	if entry.scanning {
		return
	}
	entry.scanning = true
	e.Background.Add(1)
	go func() {
		defer e.Background.Done()
		st, err := e.Storage.DB(ns).Stats()
		k.mu.Lock()
		defer k.mu.Unlock()
		entry.scanning = false
		if err != nil {
			slog.Warn("keyspace scan", "namespace", ns, "err", err)
			return
		}
		entry.stats, entry.at = st, time.Now()
	}()
}

// ScanKeyspaces starts DBSIZE SCAN's walk of every namespace, as
// dbsize-scan-cron asks.
func (e *Env) ScanKeyspaces() {
	e.ScanKeyspace(metadata.DefaultNamespace)
	for _, ns := range e.Namespaces.List() {
		e.ScanKeyspace(ns[0])
	}
}

// KeyspaceOf returns the last figures of namespace ns and when they were
// computed: the first call walks the namespace, later ones refresh it in
// the background when the figures are old.
func (e *Env) KeyspaceOf(ns string) (storage.KeyStats, time.Time, error) {
	k := &e.keyspace
	k.mu.Lock()
	entry := k.entry(ns)
	st, at := entry.stats, entry.at
	k.mu.Unlock()
	if at.IsZero() {
		fresh, err := e.Storage.DB(ns).Stats()
		if err != nil {
			return fresh, at, err
		}
		now := time.Now()
		k.mu.Lock()
		if entry.at.IsZero() {
			entry.stats, entry.at = fresh, now
		}
		k.mu.Unlock()
		return fresh, now, nil
	}
	if time.Since(at) > keyspaceRefresh {
		e.ScanKeyspace(ns)
	}
	return st, at, nil
}
