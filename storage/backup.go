package storage

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/linxGnu/grocksdb"
)

// Backups, as Kvrocks 2.10 makes them for BGSAVE: the one backup in
// backup-dir is a RocksDB checkpoint of the database (hard links to the
// SST files where backup-dir is on the data's file system, copies of the
// rest), built in <backup-dir>.tmp and then renamed, so that backup-dir
// always holds a complete backup or none. A backup is a database
// directory in the Kvrocks layout: restoring one puts a copy of it in
// place as <dir>/db (RestoreBackup), and Kvrocks opens it too.

// ErrNotBackup is a directory that holds no RocksDB database.
var ErrNotBackup = errors.New("storage: not a backup (no RocksDB CURRENT file)")

// Backup replaces the backup in dir by a checkpoint of the database. The
// backup holds every write acknowledged before Backup was called.
func (s *Storage) Backup(dir string) error {
	dir = filepath.Clean(dir)
	tmp := dir + ".tmp"
	// A backup a crash interrupted.
	if err := DestroyBackup(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("storage: backup: %w", err)
	}
	if _, err := s.Checkpoint(tmp); err != nil {
		return err
	}
	if err := DestroyBackup(dir); err != nil {
		DestroyBackup(tmp)
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		DestroyBackup(tmp)
		return fmt.Errorf("storage: backup: %w", err)
	}
	return syncDir(filepath.Dir(dir))
}

// DestroyBackup deletes the backup in dir, if there is one, as RocksDB's
// DestroyDB does: the files of a database and then the directory if it is
// left empty. Other files stay, so that a backup-dir set by mistake to a
// directory of other things loses none of them.
func DestroyBackup(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "CURRENT")); errors.Is(err, os.ErrNotExist) {
		if entries, err := os.ReadDir(dir); err == nil && len(entries) == 0 {
			os.Remove(dir)
		}
		return nil
	}
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	if err := grocksdb.DestroyDb(dir, opts); err != nil {
		return fmt.Errorf("storage: delete the backup in %s: %w", dir, err)
	}
	return nil
}

// BackupTime returns when the backup in dir was made, and false when
// there is none: a checkpoint writes its CURRENT file last.
func BackupTime(dir string) (time.Time, bool) {
	fi, err := os.Stat(filepath.Join(dir, "CURRENT"))
	if err != nil {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}

// RestoreBackup makes the backup in from the database of data directory
// dataDir, for a server not running there: it builds <dataDir>/db from
// the backup's files (hard links to the SST files where it can, which
// RocksDB never changes, copies of the others) beside it, then renames it
// into place. It refuses when <dataDir>/db exists, so that no data is
// overwritten by mistake.
func RestoreBackup(from, dataDir string) error {
	if _, err := os.Stat(filepath.Join(from, "CURRENT")); err != nil {
		return fmt.Errorf("%w: %s", ErrNotBackup, from)
	}
	opts := grocksdb.NewDefaultOptions()
	_, err := grocksdb.ListColumnFamilies(opts, from)
	opts.Destroy()
	if err != nil {
		return fmt.Errorf("storage: %s is not a readable backup: %w", from, err)
	}
	db := filepath.Join(dataDir, "db")
	if _, err := os.Stat(db); err == nil {
		return fmt.Errorf("storage: restore: %s exists; move it away first", db)
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return fmt.Errorf("storage: restore: %w", err)
	}
	staging := db + ".restoring"
	if err := os.RemoveAll(staging); err != nil {
		return fmt.Errorf("storage: restore: %w", err)
	}
	if err := copyDir(from, staging); err != nil {
		os.RemoveAll(staging)
		return fmt.Errorf("storage: restore: %w", err)
	}
	if err := os.Rename(staging, db); err != nil {
		os.RemoveAll(staging)
		return fmt.Errorf("storage: restore: %w", err)
	}
	return syncDir(dataDir)
}

// copyDir copies the files of directory from into a new directory to,
// hard-linking the SST and blob files when both are on one file system.
func copyDir(from, to string) error {
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	if err := os.Mkdir(to, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue // a checkpoint has no subdirectories
		}
		src, dst := filepath.Join(from, e.Name()), filepath.Join(to, e.Name())
		immutable := strings.HasSuffix(e.Name(), ".sst") || strings.HasSuffix(e.Name(), ".blob")
		if immutable && os.Link(src, dst) == nil {
			continue
		}
		if err := copyFile(src, dst); err != nil {
			return err
		}
	}
	return syncDir(to)
}

// copyFile copies a file and syncs the copy.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// syncDir makes the entries of a directory (files created, renamed into
// it) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("storage: sync %s: %w", dir, err)
	}
	return nil
}
