package replication

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/storage"
)

// The replica side of full sync (REPLICATION.md §3.2, §3.3): _fetch_meta
// lists the files of the master's checkpoint; they are fetched into
// <dir>/sync_checkpoint (files already there are kept, so an interrupted
// sync resumes) over one connection, or four past 20 files; once all are
// there a marker file makes the directory complete, and the storage swaps
// it in while no command runs. A directory without the marker is never
// opened as data.

// manyFiles is the file count past which four connections fetch.
const manyFiles = 20

// stagingDir is where a replica fetches a checkpoint.
func (r *Replica) stagingDir() string { return stagingDir(r.cfg()) }

func stagingDir(cfg *config.Config) string { return filepath.Join(cfg.Dir.Get(), "sync_checkpoint") }

// fullSync fetches the master's checkpoint and swaps it in.
func (r *Replica) fullSync() error {
	names, err := r.fetchMeta()
	if err != nil {
		return err
	}
	staging := r.stagingDir()
	if err := prepareStaging(staging, names); err != nil {
		return fmt.Errorf("%w: %v", errRestart, err)
	}
	if r.cfg().SlaveEmptyDBBeforeFullsync.Get() && !r.node.loading.Load() {
		if err := r.node.emptyDB(r.stop); err != nil {
			return restoreFailed(err)
		}
	}
	r.setState(StateFetchSST)
	start := time.Now()
	if err := r.fetchFiles(staging, names); err != nil {
		return err
	}
	if err := syncFiles(staging, names); err != nil {
		return fmt.Errorf("%w: %v", errRestart, err)
	}
	if err := writeMarker(staging); err != nil {
		return fmt.Errorf("%w: %v", errRestart, err)
	}
	slog.Info("replication: checkpoint fetched, swapping it in", "files", len(names), "took", time.Since(start).Round(time.Millisecond))
	if err := r.node.restore(r.stop, staging); err != nil {
		if !errors.Is(err, ErrStopped) {
			os.RemoveAll(staging) // the next attempt fetches every file again
		}
		return restoreFailed(err)
	}
	r.node.loading.Store(false)
	return nil
}

// restoreFailed is the outcome of a database swap that failed: a retry,
// unless no database opens any more, when the server exits.
func restoreFailed(err error) error {
	if errors.Is(err, storage.ErrWritesStopped) {
		slog.Error("replication: the database cannot be reopened after a failed swap; exiting", "err", err)
		os.Exit(1)
	}
	return fmt.Errorf("%w: %v", errRestart, err)
}

// fetchMeta asks the master for its checkpoint's file names.
func (r *Replica) fetchMeta() ([]string, error) {
	c, err := r.dial()
	if err != nil {
		return nil, err
	}
	defer c.close()
	if err := c.auth(); err != nil {
		return nil, err
	}
	r.setState(StateFetchMeta)
	if err := c.send("_fetch_meta"); err != nil {
		return nil, err
	}
	reply, err := c.line(maxMetaLine)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(reply, "-") {
		return nil, fmt.Errorf("%w: _fetch_meta: %s", errRestart, reply)
	}
	var names []string
	for _, name := range strings.Split(reply, ",") {
		if name == "" {
			continue
		}
		if !validFileName(name) {
			return nil, fmt.Errorf("%w: _fetch_meta: bad file name %q", errRestart, name)
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: _fetch_meta: no files", errRestart)
	}
	return names, nil
}

// prepareStaging creates dir and removes what it holds but the SST files
// of names: an SST file never changes once written, but a MANIFEST, a WAL
// or CURRENT of an earlier checkpoint may differ from this one's under
// the same name. (Kvrocks keeps every file but CURRENT.)
func prepareStaging(dir string, names []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = strings.HasSuffix(n, ".sst")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !keep[e.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				os.RemoveAll(dir)
				return os.MkdirAll(dir, 0o755)
			}
		}
	}
	return nil
}

// fetchFiles fetches the files of names missing in dir, file i over
// connection i mod n.
func (r *Replica) fetchFiles(dir string, names []string) error {
	conns := 1
	if len(names) > manyFiles {
		conns = 4
	}
	errs := make([]error, conns)
	var wg sync.WaitGroup
	for i := 0; i < conns; i++ {
		var mine []string
		for j := i; j < len(names); j += conns {
			if _, err := os.Stat(filepath.Join(dir, names[j])); err == nil {
				continue // fetched by an earlier attempt
			}
			mine = append(mine, names[j])
		}
		if len(mine) == 0 {
			continue
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = r.fetchSome(dir, mine)
		}(i)
	}
	wg.Wait()
	return errors.Join(errs...)
}

// fetchSome fetches names over one connection with one _fetch_file.
func (r *Replica) fetchSome(dir string, names []string) error {
	c, err := r.dial()
	if err != nil {
		return err
	}
	defer c.close()
	if err := c.auth(); err != nil {
		return err
	}
	if err := c.send("_fetch_file", strings.Join(names, ",")); err != nil {
		return err
	}
	for _, name := range names {
		line, err := c.line(maxSizeLine)
		if err != nil {
			return err
		}
		if strings.HasPrefix(line, "-") {
			return fmt.Errorf("%w: _fetch_file %s: %s", errRestart, name, line)
		}
		size, err := strconv.ParseInt(line, 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("%w: _fetch_file %s: bad size %q", errRestart, name, line)
		}
		if err := c.receiveFile(filepath.Join(dir, name), size); err != nil {
			return err
		}
		if d := r.cfg().FullsyncRecvFileDelay.Get(); d > 0 {
			r.sleep(time.Duration(d) * time.Second)
		}
		if r.stopped() {
			return ErrStopped
		}
	}
	return nil
}

// receiveFile writes the next size bytes to path, through path.tmp; the
// kernel splices most of them from the socket into the file, 1 MB at a
// time, each within replyTimeout: a master at the lowest rate limit
// shared by four fetches (1 MB/s over 4) sends one in 4 s. The file is
// made durable later, with the others (syncFiles).
func (c *masterConn) receiveFile(path string, size int64) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("%w: %v", errRestart, err)
	}
	n, err := c.c.ReadRaw(time.Time{}, f, size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("receive %s (%d of %d bytes): %w", filepath.Base(path), n, size, err)
	}
	return os.Rename(tmp, path)
}

// syncFiles makes the fetched files durable, those an earlier attempt
// fetched included, before the marker says the directory is complete.
func syncFiles(dir string, names []string) error {
	for _, name := range names {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// writeMarker makes the staging directory complete, durably.
func writeMarker(dir string) error {
	f, err := os.Create(filepath.Join(dir, storage.CompleteMarker))
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	f.Close()
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
