package server

import (
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestLogFilesAsKvrocks: one file per severity holding that severity and
// above, created on the first record, reached through kvrocks.<SEVERITY>;
// a new set every day; old files deleted by log-retention-days.
func TestLogFilesAsKvrocks(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 24, 23, 59, 0, 0, time.Local)
	var retention atomic.Int64 // read by the cleaning a new day starts
	retention.Store(-1)
	files, err := openLogFiles(dir, func() time.Time { return now }, retention.Load)
	if err != nil {
		t.Fatal(err)
	}
	defer files.close()
	log := slog.New(&fileHandler{Handler: slog.NewTextHandler(files, nil), files: files})
	read := func(link string) string {
		t.Helper()
		target, err := os.Readlink(filepath.Join(dir, link))
		if err != nil {
			t.Fatalf("%s: %v", link, err)
		}
		if !logFileName.MatchString(target) || !strings.Contains(target, ".20261124-") && !strings.Contains(target, ".20261125-") {
			t.Fatalf("%s -> %s: not a Kvrocks log file name", link, target)
		}
		b, _ := os.ReadFile(filepath.Join(dir, target))
		return string(b)
	}

	log.Info("first info")
	if _, err := os.Lstat(filepath.Join(dir, "kvrocks.WARNING")); !os.IsNotExist(err) {
		t.Fatalf("a WARNING file before any warning: %v", err)
	}
	log.Warn("a warning")
	log.Error("an error")
	info, warning, errs := read("kvrocks.INFO"), read("kvrocks.WARNING"), read("kvrocks.ERROR")
	if !strings.Contains(info, "first info") || !strings.Contains(info, "a warning") || !strings.Contains(info, "an error") {
		t.Errorf("INFO file:\n%s", info)
	}
	if strings.Contains(warning, "first info") || !strings.Contains(warning, "a warning") || !strings.Contains(warning, "an error") {
		t.Errorf("WARNING file:\n%s", warning)
	}
	if strings.Contains(errs, "a warning") || !strings.Contains(errs, "an error") {
		t.Errorf("ERROR file:\n%s", errs)
	}
	if !strings.HasPrefix(info, "Log file created at: 2026/11/24 23:59:00\n") {
		t.Errorf("INFO file header:\n%s", info)
	}

	// Past midnight, a new set of files.
	before, _ := os.Readlink(filepath.Join(dir, "kvrocks.INFO"))
	now = now.Add(2 * time.Minute)
	log.Info("next day")
	after, _ := os.Readlink(filepath.Join(dir, "kvrocks.INFO"))
	if after == before || !strings.Contains(after, ".20261125-000100.") {
		t.Fatalf("after midnight kvrocks.INFO -> %s (was %s)", after, before)
	}
	if text := read("kvrocks.INFO"); strings.Contains(text, "first info") || !strings.Contains(text, "next day") {
		t.Errorf("new INFO file:\n%s", text)
	}
	if old, _ := os.ReadFile(filepath.Join(dir, before)); !strings.Contains(string(old), "first info") || strings.Contains(string(old), "next day") {
		t.Errorf("yesterday's file:\n%s", old)
	}
	log.With("k", "v").WithGroup("g").Warn("grouped", "x", 1)
	if text := read("kvrocks.WARNING"); !strings.Contains(text, "grouped k=v g.x=1") {
		t.Errorf("WithAttrs/WithGroup records:\n%s", text)
	}

	// log-retention-days: files untouched for longer go, the ones being
	// written stay, other files stay.
	names := func() []string {
		entries, _ := os.ReadDir(dir)
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		sort.Strings(out)
		return out
	}
	must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644))
	old := now.Add(-3 * 24 * time.Hour)
	for _, name := range append(names(), "notes.txt") {
		os.Chtimes(filepath.Join(dir, name), old, old)
	}
	files.clean()
	if len(names()) != 9 { // 3 files of yesterday, 2 of today, 3 links, notes.txt
		t.Fatalf("log-retention-days -1 deleted files: %v", names())
	}
	retention.Store(2)
	files.clean()
	got := names()
	for _, name := range got {
		if strings.Contains(name, ".20261124-") {
			t.Errorf("%s is older than 2 days and was kept", name)
		}
	}
	if len(got) != 6 {
		t.Errorf("after cleaning: %v", got)
	}
	// A record still goes to today's files.
	log.Error("still here")
	if !strings.Contains(read("kvrocks.ERROR"), "still here") {
		t.Error("no record after cleaning")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
