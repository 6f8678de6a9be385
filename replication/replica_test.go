package replication

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/resp"
	"github.com/basaltdb/basalt/resp/resptest"
	"github.com/basaltdb/basalt/storage"
)

// TestReplicaHostileMaster has a replica talk to a master that answers
// one step of the protocol (the handshake, the stream after PSYNC,
// _fetch_meta, _fetch_file) with lengths past the bounds, garbage and
// negative lengths, endless lines or cut-short data, over a real socket:
// each attempt fails, as a refusal (errRestart) where the master broke
// the protocol, without a panic and without allocating what it
// announced.
func TestReplicaHostileMaster(t *testing.T) {
	r := hostileReplica(t)
	db := r.cfg().DBName.Get()
	staging := t.TempDir()
	for _, tc := range []struct {
		step    string // incremental, meta or file
		at      string // the command answered with answer; the others are answered as a master does
		answer  string
		endless bool   // then 64 MB of "a", without a line end
		want    string // restart, error (any other) or ok
	}{
		{"incremental", "psync", "+OK\r\n$1073741824\r\n0123456789", false, "restart"}, // past proto-max-bulk-len
		{"incremental", "psync", "+OK\r\n$104857600\r\n0123456789", false, "error"},    // 100 MB claimed, 10 bytes sent
		{"incremental", "psync", "+OK\r\n$9223372036854775807\r\n", false, "restart"},
		{"incremental", "psync", "+OK\r\n$-5\r\n", false, "restart"},
		{"incremental", "psync", "+OK\r\n$abc\r\n", false, "restart"},
		{"incremental", "psync", "+OK\r\n$0\r\n\r\n", false, "restart"},
		{"incremental", "psync", "+OK\r\n*1\r\n$4\r\nping\r\n", false, "restart"},
		{"incremental", "psync", "+OK\r\n$3\r\nabcXY", false, "restart"},
		{"incremental", "psync", "+OK\r\n$5\r\nhello\r\n", false, "restart"}, // not a batch
		{"incremental", "psync", "+OK\r\n$4\r\nping\r\n$10\r\nabc", false, "error"},
		{"incremental", "psync", "+OK\r\n$", true, "restart"},
		{"incremental", "_db_name", "", true, "error"},
		{"incremental", "_db_name", "other.db\r\n", false, "restart"},
		{"incremental", "psync", "-ERR sequence out of range, please use fullsync\r\n", false, "fullsync"},
		{"meta", "_fetch_meta", "", true, "error"},
		{"meta", "_fetch_meta", "-can't create db checkpoint\r\n", false, "restart"},
		{"meta", "_fetch_meta", "000001.sst,../x\r\n", false, "restart"},
		{"file", "_fetch_file", "-1\r\n", false, "restart"},
		{"file", "_fetch_file", "99999999999999999999\r\n", false, "restart"},
		{"file", "_fetch_file", "100\r\n0123456789", false, "error"},
		{"file", "_fetch_file", "", true, "error"},
		{"file", "_fetch_file", "10\r\n0123456789", false, "ok"},
	} {
		name := tc.at + " " + strconv.Quote(tc.answer)
		if tc.endless {
			name += " and endless bytes"
		}
		addr := resptest.Serve(t, func(conn net.Conn) { scriptedMaster(conn, db, tc.at, tc.answer, tc.endless) })
		host, port, _ := net.SplitHostPort(addr)
		r.host = host
		r.port, _ = strconv.Atoi(port)
		file := filepath.Join(staging, "000001.sst")
		os.Remove(file)

		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var err error
		switch tc.step {
		case "incremental":
			err = r.incremental()
		case "meta":
			_, err = r.fetchMeta()
		case "file":
			err = r.fetchSome(staging, []string{"000001.sst"})
		}
		runtime.ReadMemStats(&after)

		got := "error"
		switch {
		case err == nil:
			got = "ok"
		case errors.Is(err, errRestart):
			got = "restart"
		case errors.Is(err, errFullSync):
			got = "fullsync"
		}
		if got != tc.want {
			t.Errorf("%.80s: %v, want %s", name, err, tc.want)
		}
		// TotalAlloc only grows: what the replica and the peer allocated.
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
			t.Errorf("%.80s: %d bytes allocated", name, grew)
		}
		if data, err := os.ReadFile(file); tc.step == "file" && (tc.want == "ok") != (err == nil && string(data) == "0123456789") {
			t.Errorf("%.80s: the file holds %q (%v)", name, data, err)
		}
		if _, err := os.Stat(file + ".tmp"); err == nil {
			t.Errorf("%.80s: a partial file is left behind", name)
		}
	}
}

// hostileReplica returns a replica over a fresh storage, whose state
// machine does not run: the test drives its steps.
func hostileReplica(t *testing.T) *Replica {
	cfg, err := config.Load("", [][2]string{{"dir", t.TempDir()}, {"rocksdb.block_cache_size", "8"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	r := &Replica{node: NewNode(cfg, st), stop: make(chan struct{}), done: make(chan struct{})}
	r.mu.conns = map[net.Conn]struct{}{}
	return r
}

// scriptedMaster answers the requests on conn as a master does, but
// command at with answer (and, when endless, 64 MB without a line end),
// after which it closes the connection.
func scriptedMaster(conn net.Conn, dbName, at, answer string, endless bool) {
	rd := resp.NewReader(conn)
	for {
		args, err := rd.ReadRequest()
		if err != nil {
			return
		}
		cmd := strings.ToLower(string(args[0]))
		if cmd == at {
			conn.Write([]byte(answer))
			chunk := []byte(strings.Repeat("a", 64<<10))
			for i := 0; endless && i < 1024; i++ {
				if _, err := conn.Write(chunk); err != nil {
					return
				}
			}
			return
		}
		switch cmd {
		case "_db_name":
			conn.Write([]byte(dbName + "\r\n"))
		default: // replconf, psync
			conn.Write([]byte("+OK\r\n"))
		}
	}
}
