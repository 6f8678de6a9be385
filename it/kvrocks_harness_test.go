package it

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The real Apache Kvrocks (shared/kvrocks/README.md) is the oracle for what
// Kvrocks decides and the peer of the data-directory interop tests. Tests
// that need it are named TestKvrocks..., so `go test ./it -run Kvrocks`
// runs them all.

var kvrocks struct {
	once sync.Once
	bin  string
	err  error // why there is no usable binary
}

// kvrocksBin returns the Kvrocks binary: $KVROCKS_BIN, else
// ../shared/kvrocks/kvrocks from the project (module) root. Where it is
// absent the test is skipped, with a message naming KVROCKS_BIN.
func kvrocksBin(t testing.TB) string {
	t.Helper()
	kvrocks.once.Do(func() {
		kvrocks.bin = os.Getenv("KVROCKS_BIN")
		if kvrocks.bin == "" {
			root, err := moduleRoot()
			if err != nil {
				kvrocks.err = err
				return
			}
			kvrocks.bin = filepath.Join(root, "..", "shared", "kvrocks", "kvrocks")
		}
		abs, err := filepath.Abs(kvrocks.bin)
		if err != nil {
			kvrocks.err = err
			return
		}
		kvrocks.bin = abs
		st, err := os.Stat(abs)
		switch {
		case err != nil:
			kvrocks.err = err
		case st.IsDir() || st.Mode()&0o111 == 0:
			kvrocks.err = fmt.Errorf("%s is not an executable file", abs)
		}
	})
	if kvrocks.err != nil {
		t.Skipf("no Kvrocks binary (%v): set KVROCKS_BIN to a kvrocks executable to run this test", kvrocks.err)
	}
	return kvrocks.bin
}

// moduleRoot walks up from the working directory to the directory holding
// go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// startKvrocks starts Kvrocks on a free port with a fresh data dir; extra
// arguments (`--key value`, or `-c file`) are appended to the command line.
// It is stopped with SIGTERM, and waited for, when the test ends.
func startKvrocks(t testing.TB, extra ...string) *proc {
	t.Helper()
	return startKvrocksIn(t, t.TempDir(), extra...)
}

// startKvrocksIn is startKvrocks with a given data dir (RocksDB in
// <dir>/db, as Basalt keeps it).
func startKvrocksIn(t testing.TB, dir string, extra ...string) *proc {
	t.Helper()
	return startKvrocksAt(t, dir, freePort(t), extra...)
}

// startKvrocksAt is startKvrocksIn on a given port (a cluster node keeps
// its address across restarts, and across a swap to or from Basalt).
func startKvrocksAt(t testing.TB, dir string, port int, extra ...string) *proc {
	t.Helper()
	bin := kvrocksBin(t)
	args := append([]string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir,
		"--daemonize", "no", "--log-dir", "stdout"}, extra...)
	p := launch(t, bin, args, port)
	p.Dir = dir
	// Kvrocks answers PING before its start-up ends; a SIGTERM in between
	// hangs it (its task runner is not yet started), so wait for the end.
	waitFor(t, longTimeout, "Kvrocks to be ready", func() bool {
		return strings.Contains(p.Output.String(), "Ready to accept connections")
	})
	return p
}

// rocksdbComplaint matches the RocksDB LOG lines worth showing when a
// server could not use a data directory another server wrote: RocksDB's
// status strings for what it does not understand.
var rocksdbComplaint = regexp.MustCompile(`Corruption|Invalid argument|Not implemented|NotSupported|[Nn]ot supported|[Uu]nsupported|[Uu]nknown option|[Uu]nrecognized|IO error|\[ERROR\]|\bERROR\b`)

// describeDataDir lists the files of <dir>/db and the LOG lines that look
// like complaints, so a failure to open a directory names the file or
// option that was not understood (the server's own output, with its
// error, is in the failure that launch reports).
func describeDataDir(dir string) string {
	var b strings.Builder
	db := filepath.Join(dir, "db")
	entries, err := os.ReadDir(db)
	if err != nil {
		fmt.Fprintf(&b, "%s: %v\n", db, err)
		return b.String()
	}
	var names []string
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		names = append(names, fmt.Sprintf("%s (%d bytes)", e.Name(), info.Size()))
	}
	sort.Strings(names)
	fmt.Fprintf(&b, "files in %s: %s\n", db, strings.Join(names, ", "))
	logs, _ := filepath.Glob(filepath.Join(db, "LOG*"))
	for _, name := range logs {
		raw, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		n := 0
		for _, line := range strings.Split(string(raw), "\n") {
			// Kvrocks opens a database once without column families to
			// learn whether they exist; that failure is expected.
			if rocksdbComplaint.MatchString(line) && !strings.Contains(line, "Fast CRC32") && !strings.Contains(line, "Column families not opened") && n < 20 {
				fmt.Fprintf(&b, "%s: %s\n", filepath.Base(name), line)
				n++
			}
		}
	}
	return b.String()
}

// explainOnFailure logs describeDataDir(dir) if the test fails.
func explainOnFailure(t testing.TB, dir string) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("data directory %s:\n%s", dir, describeDataDir(dir))
		}
	})
}

// stopClean stops p with SIGTERM, waits, and fails the test unless it
// exited with status 0 (or is a Kvrocks that hung in its exit after its
// shutdown ended: Stop): a server that crashed on the way out may have
// left its data directory behind a step.
func stopClean(t testing.TB, p *proc) {
	t.Helper()
	p.Stop()
	if code := p.cmd.ProcessState.ExitCode(); code != 0 && !p.hungAfterBye {
		t.Errorf("%s exited with status %d on SIGTERM:\n%s", filepath.Base(p.cmd.Path), code, p.Output)
	}
}

// interopOwnDirs runs writes on a Kvrocks and a Basalt, each in a
// directory of its own, and returns the directories and what read
// answered on each, the server stopped cleanly after.
func interopOwnDirs(t *testing.T, writes [][]any, read func(*proc) []string) (dirs map[server]string, own map[server][]string) {
	t.Helper()
	dirs, own = map[server]string{}, map[server][]string{}
	for _, s := range []server{kvrocksServer, basaltServer} {
		dir := t.TempDir()
		explainOnFailure(t, dir)
		p := s.start(t, dir, freePort(t))
		runCommands(t, interopClient(t, p, "", 30*time.Second), s.String(), writes)
		own[s] = read(p)
		stopClean(t, p)
		dirs[s] = dir
	}
	return dirs, own
}

// interopCrossRead starts each server on the other's directory and checks
// that read answers there as it did on the server's own (interopOwnDirs).
func interopCrossRead(t *testing.T, dirs map[server]string, own map[server][]string, read func(*proc) []string) {
	servers := []server{kvrocksServer, basaltServer}
	for _, s := range servers {
		other := servers[1-int(s)]
		t.Run(fmt.Sprintf("%sReads%s", title(s), title(other)), func(t *testing.T) {
			p := s.start(t, dirs[other], freePort(t))
			got := read(p)
			stopClean(t, p)
			n := 0
			for i := range got {
				if got[i] != own[s][i] {
					if n++; n <= 10 {
						t.Errorf("%s on the directory %s wrote:\n  %s\non its own:\n  %s", s, other, got[i], own[s][i])
					}
				}
			}
			if n == 0 {
				t.Logf("%d reads answered as on its own directory", len(got))
			}
		})
	}
}
