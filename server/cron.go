package server

import (
	"log/slog"
	"time"
)

// cronTick is how often the crons are checked; each runs at most once in a
// minute its schedule matches.
const cronTick = 10 * time.Second

// cronLoop runs compact-cron (a full COMPACT) and compaction-checker-cron
// (the compaction checker) until stop is closed. Both settings may change
// at any time.
func (s *Server) cronLoop(stop <-chan struct{}) {
	t := time.NewTicker(cronTick)
	defer t.Stop()
	var compacted, checked time.Time // the minutes they last ran in
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			minute := now.Truncate(time.Minute)
			if s.cfg.CompactCron.Matches(now) && minute != compacted {
				compacted = minute
				start := time.Now()
				if err := s.env.Storage.Compact(); err != nil {
					slog.Warn("compact-cron", "err", err)
				} else {
					slog.Info("compact-cron: database compacted", "took", time.Since(start).Round(time.Millisecond))
				}
			}
			if s.cfg.CompactionCheckerCron.Matches(now) && minute != checked {
				checked = minute
				maxAge := time.Duration(s.cfg.ForceCompactFileAge.Get()) * time.Second
				if n := s.env.Storage.CheckCompaction(s.cfg.ForceCompactFileMinDeletedPct.Get(), maxAge); n > 0 {
					slog.Info("compaction checker: compacted ranges", "ranges", n)
				}
			}
		}
	}
}
