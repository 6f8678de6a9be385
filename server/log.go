package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/basaltdb/basalt/config"
)

var logLevels = map[string]slog.Level{
	"debug": slog.LevelDebug, "info": slog.LevelInfo, "warning": slog.LevelWarn,
	"error": slog.LevelError, "fatal": levelFatal,
}

// levelFatal is Kvrocks's FATAL severity.
const levelFatal = slog.LevelError + 4

// setupLogging sends logs at log-level (which CONFIG SET can change later)
// to stdout, stderr, or files in log-dir named as Kvrocks (glog) names
// them. It returns a function that closes the files, and whether logs go
// to files.
func setupLogging(cfg *config.Config) (closeFn func(), toFiles bool, err error) {
	level := new(slog.LevelVar)
	level.Set(logLevels[cfg.LogLevel.Get()])
	cfg.Watch("log-level", func() { level.Set(logLevels[cfg.LogLevel.Get()]) })
	opts := &slog.HandlerOptions{Level: level}
	dir := cfg.LogDir.Get()
	switch {
	case strings.EqualFold(dir, "stdout"):
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stdout, opts)))
		return func() {}, false, nil
	case strings.EqualFold(dir, "stderr"):
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, opts)))
		return func() {}, false, nil
	}
	files, err := openLogFiles(dir, time.Now, func() int64 { return cfg.LogRetentionDays.Get() })
	if err != nil {
		if dir == cfg.Dir.Get() {
			// log-dir was left empty: the logs go to the data directory.
			return nil, false, fmt.Errorf("data directory %s: %w", dir, err)
		}
		return nil, false, err
	}
	files.stderr = os.Stderr
	cfg.Watch("log-retention-days", files.clean)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Hour)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				files.clean()
			}
		}
	}()
	slog.SetDefault(slog.New(&fileHandler{Handler: slog.NewTextHandler(files, opts), files: files}))
	return func() {
		close(stop)
		<-done
		files.close()
	}, true, nil
}

// Log files, as Kvrocks writes them with glog: one file per severity,
// <log-dir>/kvrocks.<host>.<user>.log.<SEVERITY>.<yyyymmdd-hhmmss>.<pid>,
// created when the first record of that severity comes, holding the
// records of that severity and above, each reached through the symbolic
// link <log-dir>/kvrocks.<SEVERITY>. A new set starts every day (at the
// first record after midnight) and when a file passes maxLogSize, as
// Kvrocks's glog does past its 100 MB. With log-retention-days N, files
// untouched for more than N days are deleted: at start, at each new set,
// every hour, and when the setting changes.

// severities of the files, from the lowest.
var severities = []struct {
	name  string
	level slog.Level
}{{"INFO", slog.LevelInfo}, {"WARNING", slog.LevelWarn}, {"ERROR", slog.LevelError}, {"FATAL", levelFatal}}

// maxLogSize is the size past which a file is replaced by a new one.
const maxLogSize = 100 << 20

// logFileName matches the log files of any Kvrocks or Basalt process, the
// ones log-retention-days deletes.
var logFileName = regexp.MustCompile(`^kvrocks\..+\.log\.(INFO|WARNING|ERROR|FATAL)\.\d{8}-\d{6}\.\d+$`)

// logFiles is the io.Writer of the log handler: each Write is one record,
// of the level fileHandler set.
type logFiles struct {
	dir       string
	host      string
	prefix    string // kvrocks.<host>.<user>.log.
	now       func() time.Time
	retention func() int64 // days, -1: keep every file
	stderr    io.Writer    // also gets ERROR and FATAL records, as glog's default

	// mu is held by fileHandler across a record, so that level is the
	// record's when Write runs.
	mu    sync.Mutex
	level slog.Level
	day   string // yyyymmdd of the current set
	files [4]*os.File
	names [4]string // of files
	sizes [4]int64
}

func openLogFiles(dir string, now func() time.Time, retention func() int64) (*logFiles, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create log-dir: %w", err)
	}
	host, _ := os.Hostname()
	if i := strings.IndexByte(host, '.'); i > 0 {
		host = host[:i]
	}
	if host == "" {
		host = "unknownhost"
	}
	name := "invalid-user"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	f := &logFiles{dir: dir, host: host, prefix: "kvrocks." + host + "." + name + ".log.", now: now, retention: retention}
	// The INFO file exists from the start, so that a bad log-dir fails
	// now, with a message naming it.
	f.day = now().Format("20060102")
	if err := f.open(0); err != nil {
		return nil, err
	}
	f.clean()
	return f, nil
}

// Write writes one record to the files of its level and those below.
func (f *logFiles) Write(p []byte) (int, error) {
	now := f.now()
	if day := now.Format("20060102"); day != f.day {
		f.closeFiles()
		f.day = day
		go f.clean()
	}
	for i, sev := range severities {
		if f.level < sev.level {
			break
		}
		if f.files[i] != nil && f.sizes[i] > maxLogSize {
			f.files[i].Close()
			f.files[i], f.names[i] = nil, ""
		}
		if f.files[i] == nil {
			if err := f.open(i); err != nil {
				continue
			}
		}
		n, _ := f.files[i].Write(p)
		f.sizes[i] += int64(n)
	}
	if f.level >= slog.LevelError && f.stderr != nil {
		f.stderr.Write(p)
	}
	return len(p), nil
}

// open starts the file of severity i and points its link at it.
func (f *logFiles) open(i int) error {
	now := f.now()
	name := f.prefix + severities[i].name + "." + now.Format("20060102-150405") + "." + fmt.Sprint(os.Getpid())
	file, err := os.OpenFile(filepath.Join(f.dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("cannot open log file: %w", err)
	}
	header := fmt.Sprintf("Log file created at: %s\nRunning on machine: %s\nLog line format: time=... level=... msg=... key=value ...\n",
		now.Format("2006/01/02 15:04:05"), f.host)
	n, _ := file.WriteString(header)
	f.files[i], f.names[i], f.sizes[i] = file, name, int64(n)
	link := filepath.Join(f.dir, "kvrocks."+severities[i].name)
	os.Remove(link)
	os.Symlink(name, link)
	return nil
}

func (f *logFiles) closeFiles() {
	for i, file := range f.files {
		if file != nil {
			file.Close()
			f.files[i], f.names[i] = nil, ""
		}
	}
}

func (f *logFiles) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closeFiles()
}

// clean deletes the log files untouched for more than
// log-retention-days, except those being written.
func (f *logFiles) clean() {
	days := f.retention()
	if days < 0 {
		return
	}
	f.mu.Lock()
	open := map[string]bool{}
	for _, name := range f.names {
		open[name] = true
	}
	f.mu.Unlock()
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		return
	}
	cutoff := f.now().Add(-time.Duration(days) * 24 * time.Hour)
	for _, e := range entries {
		if !e.Type().IsRegular() || !logFileName.MatchString(e.Name()) || open[e.Name()] {
			continue
		}
		if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) {
			os.Remove(filepath.Join(f.dir, e.Name()))
		}
	}
}

// fileHandler passes each record's level to the files it is written to.
type fileHandler struct {
	slog.Handler
	files *logFiles
}

func (h *fileHandler) Handle(ctx context.Context, r slog.Record) error {
	h.files.mu.Lock()
	defer h.files.mu.Unlock()
	h.files.level = r.Level
	return h.Handler.Handle(ctx, r)
}

func (h *fileHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &fileHandler{Handler: h.Handler.WithAttrs(attrs), files: h.files}
}

func (h *fileHandler) WithGroup(name string) slog.Handler {
	return &fileHandler{Handler: h.Handler.WithGroup(name), files: h.files}
}
