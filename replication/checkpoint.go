package replication

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdb/basalt/resp"
)

// The master side of full sync (REPLICATION.md §3.1): _fetch_meta makes
// (or reuses, while it is young and its sequence still in the WAL) a
// RocksDB checkpoint in <dir>/checkpoint and answers the names of its
// files; _fetch_file sends files of it, each as "<size>\r\n" and the raw
// bytes. A checkpoint nobody fetched from for 30 s, or older than a day,
// is removed.

const (
	checkpointIdle   = 30 * time.Second
	checkpointMaxAge = 24 * time.Hour
	janitorEvery     = 10 * time.Second
)

// checkpointDir is where a master keeps the checkpoint replicas fetch.
func (m *Master) checkpointDir() string { return filepath.Join(m.cfg.Dir.Get(), "checkpoint") }

// HoldsCheckpoint reports whether a full sync's checkpoint is on disk:
// the one this node serves as a master, or one it fetches as a replica
// (purge-backup-on-fullsync then drops the backup to save disk space).
func (n *Node) HoldsCheckpoint() bool {
	for _, dir := range []string{n.Master.checkpointDir(), stagingDir(n.cfg)} {
		if _, err := os.Stat(dir); err == nil {
			return true
		}
	}
	return false
}

// reuseWindow is how long a checkpoint is reused: half the WAL's TTL,
// between 10 minutes and an hour, as Kvrocks.
func (m *Master) reuseWindow() time.Duration {
	s := min(max(m.cfg.RocksDB.WALTTLSeconds.Get()/2, 600), 3600)
	return time.Duration(s) * time.Second
}

// FetchMeta returns the files of the checkpoint, making it when there is
// none usable. It counts a full sync.
func (m *Master) FetchMeta() ([]string, error) {
	m.SyncFull.Add(1)
	cp := &m.cp
	cp.Lock()
	defer cp.Unlock()
	dir := m.checkpointDir()
	if _, err := os.Stat(dir); err == nil {
		young := !cp.created.IsZero() && time.Since(cp.created) <= m.reuseWindow()
		if !young || m.checkPSync(cp.seq+1) != nil {
			if cp.fetchers > 0 {
				return nil, errors.New("replication: the checkpoint is too old but still being fetched")
			}
			if err := os.RemoveAll(dir); err != nil {
				return nil, err
			}
		}
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		seq, err := m.st.Checkpoint(dir)
		if err != nil {
			slog.Error("replication: cannot create a checkpoint", "err", err)
			return nil, err
		}
		cp.created, cp.seq = time.Now(), seq
		slog.Info("replication: checkpoint created for a full sync", "dir", dir, "sequence", seq)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	cp.accessed = time.Now()
	return names, nil
}

// validFileName reports whether name can only name a file directly in a
// checkpoint directory.
func validFileName(name string) bool {
	return name != "" && name != "." && name != ".." && len(name) <= 255 && !strings.ContainsAny(name, "/\\\x00")
}

// FilesTo returns ServeFiles for the connection a _fetch_file came on,
// which the server calls with the socket once the replies before it are
// sent.
func (m *Master) FilesTo(names []string) func(nc net.Conn) {
	return func(nc net.Conn) { m.ServeFiles(nc, names) }
}

// ServeFiles sends the files names of the checkpoint on nc, after a
// _fetch_file, and closes nc. It stops at the first name that is not a
// file of the checkpoint: the replica then sees the connection end.
func (m *Master) ServeFiles(nc net.Conn, names []string) {
	defer nc.Close()
	cp := &m.cp
	cp.Lock()
	cp.fetchers++
	cp.Unlock()
	defer func() {
		cp.Lock()
		cp.fetchers--
		cp.accessed = time.Now()
		cp.Unlock()
	}()
	dir := m.checkpointDir()
	for _, name := range names {
		if !validFileName(name) {
			slog.Warn("replication: _fetch_file of a bad name", "name", name, "replica", nc.RemoteAddr().String())
			return
		}
		if err := m.sendFile(nc, filepath.Join(dir, name)); err != nil {
			slog.Info("replication: sending a checkpoint file failed", "file", name, "err", err)
			return
		}
	}
}

// sendFile writes "<size>\r\n" and the file's bytes, at most
// max-replication-mb per second shared by the fetches running.
func (m *Master) sendFile(nc net.Conn, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("replication: %s is not a file", path)
	}
	size := st.Size()
	nc.SetWriteDeadline(time.Now().Add(sendTimeout))
	w := resp.NewWriter()
	w.RawLine(strconv.FormatInt(size, 10))
	if err := flushTo(nc, w); err != nil {
		return err
	}
	// From a file to a TCP connection, io.CopyN uses sendfile. With a
	// rate limit the file goes a chunk at a time, each when it is due:
	// Kvrocks sends a file whole and then waits, which leaves a replica
	// without a byte for as long as the file took (Basalt's give up
	// after 30 s of silence).
	start, sent := time.Now(), int64(0)
	for sent < size {
		chunk := size - sent
		budget := m.sendBudget()
		if budget > 0 {
			chunk = min(chunk, paceChunk)
		}
		nc.SetWriteDeadline(time.Now().Add(sendTimeout))
		n, err := io.CopyN(nc, f, chunk)
		sent += n
		if err != nil {
			return fmt.Errorf("replication: sent %d of %d bytes of %s: %w", sent, size, path, err)
		}
		if budget > 0 {
			due := time.Duration(float64(sent) / budget * float64(time.Second))
			if wait := due - time.Since(start); wait > 0 {
				time.Sleep(wait)
			}
		}
	}
	return nil
}

const (
	// paceChunk is what a rate-limited master sends at a time.
	paceChunk = 256 << 10
	// sendTimeout bounds a write to a replica that stopped reading.
	sendTimeout = 10 * time.Minute
)

// sendBudget is the bytes per second each fetch may send: max-replication-mb
// shared by the fetches running; 0 when there is no limit.
func (m *Master) sendBudget() float64 {
	mb := m.cfg.MaxReplicationMB.Get()
	if mb <= 0 {
		return 0
	}
	m.cp.Lock()
	fetchers := max(m.cp.fetchers, 1)
	m.cp.Unlock()
	return float64(mb<<20) / float64(fetchers)
}

// janitor removes the checkpoint once it is idle or old, until stop is
// closed. A checkpoint left by an earlier run goes at once.
func (m *Master) janitor(stop <-chan struct{}) {
	t := time.NewTicker(janitorEvery)
	defer t.Stop()
	for {
		m.cp.Lock()
		dir := m.checkpointDir()
		if _, err := os.Stat(dir); err == nil && m.cp.fetchers == 0 &&
			(m.cp.created.IsZero() || time.Since(m.cp.accessed) > checkpointIdle || time.Since(m.cp.created) > checkpointMaxAge) {
			if err := os.RemoveAll(dir); err != nil {
				slog.Warn("replication: cannot remove the checkpoint", "dir", dir, "err", err)
			}
			m.cp.created = time.Time{}
		}
		m.cp.Unlock()
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}
