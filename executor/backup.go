package executor

import (
	"log/slog"
	"sync"
	"time"

	"github.com/basaltdb/basalt/storage"
)

// errBgsaveRunning is Kvrocks's refusal of a BGSAVE while one runs.
var errBgsaveRunning = ReplyError("ERR bgsave in-progress")

// backups is the state of BGSAVE as INFO persistence shows it. dirMu is
// held while the backup directory changes (a backup being made, or
// purged), so that FLUSHBACKUP and the purge wait for a running backup.
type backups struct {
	dirMu sync.Mutex
	mu    struct {
		sync.Mutex
		running bool
		// scheduled asks for another BGSAVE once the running one ends.
		scheduled bool
		// ended is set once a BGSAVE ended since the start: lastStart is
		// when it began, lastTook how long it took, lastErr how it ended.
		ended     bool
		lastStart time.Time
		lastTook  time.Duration
		lastErr   error
	}
}

// BGSave starts a backup into backup-dir unless one is running; by says
// who asked, for the log.
func (e *Env) BGSave(by string) error {
	b := &e.backups
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mu.running {
		return errBgsaveRunning
	}
	b.mu.running = true
	slog.Info("BGSave was triggered by " + by)
	e.Background.Add(1)
	go func() {
		defer e.Background.Done()
		start := time.Now()
		b.dirMu.Lock()
		dir := e.Config.BackupDir.Get()
		err := e.Storage.Backup(dir)
		b.dirMu.Unlock()
		b.mu.Lock()
		b.mu.running, b.mu.ended = false, true
		b.mu.lastStart, b.mu.lastTook, b.mu.lastErr = start, time.Since(start), err
		again := b.mu.scheduled
		b.mu.scheduled = false
		b.mu.Unlock()
		if err != nil {
			slog.Error("backup failed", "dir", dir, "err", err)
		} else {
			slog.Info("backup created", "dir", dir, "took", time.Since(start).Round(time.Millisecond))
		}
		if again {
			e.BGSave("BGSAVE SCHEDULE")
		}
	}()
	return nil
}

// ScheduleBGSave asks for a BGSAVE after the running one, and reports
// false when none runs.
func (e *Env) ScheduleBGSave() bool {
	b := &e.backups
	b.mu.Lock()
	defer b.mu.Unlock()
	b.mu.scheduled = b.mu.running
	return b.mu.running
}

// PurgeBackups deletes the backup when max-backup-to-keep is 0, when it
// is older than max-backup-keep-hours, or when purge-backup-on-fullsync
// is set and a full sync's checkpoint is on disk, as Kvrocks's purge task
// (which the server runs every 10 s).
func (e *Env) PurgeBackups() {
	if err := e.PurgeBackup(false); err != nil {
		slog.Warn("purging the backup", "err", err)
	}
}

// PurgeBackup deletes the backup when always, or when PurgeBackups's
// conditions say so.
func (e *Env) PurgeBackup(always bool) error {
	b := &e.backups
	b.dirMu.Lock()
	defer b.dirMu.Unlock()
	dir := e.Config.BackupDir.Get()
	made, ok := storage.BackupTime(dir)
	if !ok {
		return nil
	}
	hours := e.Config.MaxBackupKeepHours.Get()
	switch {
	case always, e.Config.MaxBackupToKeep.Get() == 0:
	case hours > 0 && time.Since(made) > time.Duration(hours)*time.Hour:
	case e.Config.PurgeBackupOnFullsync.Get() && e.Repl.HoldsCheckpoint():
	default:
		return nil
	}
	if err := storage.DestroyBackup(dir); err != nil {
		return err
	}
	slog.Info("backup deleted", "dir", dir, "made", made.Format(time.DateTime))
	return nil
}

// LastSave is when the last BGSAVE that ended began, or when the server
// started.
func (e *Env) LastSave() time.Time {
	b := &e.backups
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.mu.ended {
		return e.StartTime
	}
	return b.mu.lastStart
}

// infoPersistence writes INFO's persistence section as Kvrocks does:
// last_bgsave_time_sec is -1 until a BGSAVE ended.
func infoPersistence(e *Env, ns string, b *infoBuilder) {
	bk := &e.backups
	bk.mu.Lock()
	running, ended, took, err := bk.mu.running, bk.mu.ended, bk.mu.lastTook, bk.mu.lastErr
	bk.mu.Unlock()
	link, _ := e.Repl.Replica()
	b.field("loading", boolInt(link.Loading)) // a replica's database emptied for a full sync
	b.field("bgsave_in_progress", boolInt(running))
	b.field("last_bgsave_time", e.LastSave().Unix())
	status := "ok"
	if err != nil {
		status = "err"
	}
	b.field("last_bgsave_status", status)
	sec := int64(-1)
	if ended {
		sec = int64(took / time.Second)
	}
	b.field("last_bgsave_time_sec", sec)
}

// bgsaving reports whether a BGSAVE runs, for INFO rocksdb's is_bgsaving.
func (e *Env) bgsaving() bool {
	b := &e.backups
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.mu.running
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
