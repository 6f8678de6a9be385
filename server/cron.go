package server

import (
	"log/slog"
	"sync"
	"time"
)

// cronTick is how often the crons are checked; each runs at most once in a
// minute its schedule matches. The backup purge runs every tick, as
// Kvrocks's every 10 s.
const cronTick = 10 * time.Second

// cronLoop runs Kvrocks's scheduled tasks until stop is closed:
// compact-cron (a full COMPACT, unless compaction-checker-cron is set, as
// in Kvrocks), compaction-checker-cron (the compaction checker),
// bgsave-cron (BGSAVE), dbsize-scan-cron (DBSIZE SCAN of every namespace)
// and the purge of old backups. The settings may change at any time.
func (s *Server) cronLoop(stop <-chan struct{}) {
	t := time.NewTicker(cronTick)
	defer t.Stop()
	// A full compaction runs beside the other tasks, one at a time.
	var compactions sync.WaitGroup
	var compacting sync.Mutex
	defer compactions.Wait()
	var compacted, checked, saved, scanned time.Time // the minutes they last ran in
	due := func(matches bool, now time.Time, last *time.Time) bool {
		minute := now.Truncate(time.Minute)
		if !matches || minute == *last {
			return false
		}
		*last = minute
		return true
	}
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			checker := s.cfg.CompactionCheckerCron.Matches(now)
			if s.cfg.CompactionCheckerCron.Get() == "" && due(s.cfg.CompactCron.Matches(now), now, &compacted) {
				if compacting.TryLock() {
					compactions.Add(1)
					go func() {
						defer compactions.Done()
						defer compacting.Unlock()
						s.compact()
					}()
				}
			}
			if due(checker, now, &checked) {
				maxAge := time.Duration(s.cfg.ForceCompactFileAge.Get()) * time.Second
				if n := s.env.Storage.CheckCompaction(s.cfg.ForceCompactFileMinDeletedPct.Get(), maxAge); n > 0 {
					slog.Info("compaction checker: compacted ranges", "ranges", n)
				}
			}
			if due(s.cfg.BgsaveCron.Matches(now), now, &saved) {
				if err := s.env.BGSave("bgsave-cron"); err != nil {
					slog.Warn("bgsave-cron", "err", err)
				}
			}
			if due(s.cfg.DBSizeScanCron.Matches(now), now, &scanned) {
				s.env.ScanKeyspaces()
				slog.Info("dbsize-scan-cron: counting the keys of every namespace")
			}
			s.env.PurgeBackups()
		}
	}
}

// compact runs compact-cron's full compaction.
func (s *Server) compact() {
	start := time.Now()
	if err := s.env.Storage.Compact(); err != nil {
		slog.Warn("compact-cron", "err", err)
		return
	}
	slog.Info("compact-cron: database compacted", "took", time.Since(start).Round(time.Millisecond))
}
