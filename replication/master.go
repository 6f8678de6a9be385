package replication

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/resp"
	"github.com/basaltdb/basalt/storage"
)

// The master side of incremental sync (REPLICATION.md §2.3, §2.4): PSYNC
// is accepted when the replica's next sequence number is the one after
// the latest, or begins a batch the WAL still holds; the connection then
// becomes a feed that writes "+OK\r\n" and streams every committed batch
// from there, each as a RESP bulk string of RocksDB's WriteBatch bytes.

// PSYNC refusals, with Kvrocks's texts (the server renders them after
// "-").
var (
	ErrSeqOutOfRange = errors.New("ERR sequence out of range, please use fullsync")
	ErrWrongReplID   = errors.New("ERR wrong replication id of the last log")
)

// Stream framing constants (Kvrocks's replication.h): a group of batches
// is sent once it holds this many bytes or batches, and at once when it
// reaches the tail of the WAL.
const (
	flushBytes   = 16 << 10
	flushBatches = 16
	tailDistance = 16
	// pollEvery is how often an idle feed looks for new batches, and
	// pingAfter how long it stays silent before it sends the heartbeat.
	pollEvery = 2 * time.Millisecond
	pingAfter = 2 * time.Second
)

// ReplicaInfo describes one replica a master feeds, for INFO and ROLE.
type ReplicaInfo struct {
	IP string
	// Port is the replica's REPLCONF listening-port, else the peer's
	// source port; ListeningPort is 0 when REPLCONF did not set one.
	Port, ListeningPort int
	// Offset is the last sequence number sent (read from the WAL).
	Offset uint64
}

// Announced is what a replica said of itself with REPLCONF before PSYNC.
type Announced struct {
	ListeningPort int    // 0: not announced
	IP            string // "": not announced
	// Acks: the replica acknowledges what it made durable with REPLCONF
	// ACK <sequence> (Basalt replicas, after REPLCONF capa ack; Kvrocks
	// replicas send nothing).
	Acks bool
}

// feed is one replica's stream.
type feed struct {
	nc      net.Conn
	info    ReplicaInfo
	next    atomic.Uint64 // the next sequence number to send
	acked   atomic.Uint64 // the last sequence number the replica acknowledged
	stopped atomic.Bool
}

// Master is the master side of a node: its feeds and the counters INFO
// shows. It is safe for concurrent use.
type Master struct {
	st  *storage.Storage
	cfg *config.Config
	// SyncFull counts _fetch_meta requests; SyncPartialOK and
	// SyncPartialErr accepted and refused PSYNCs (INFO stats).
	SyncFull, SyncPartialOK, SyncPartialErr atomic.Int64

	mu struct {
		sync.Mutex
		feeds map[*feed]struct{}
		// stopping counts the StopFeeds calls in progress: a feed that
		// began while one waits would not be stopped, and the wait would
		// never end.
		stopping int
	}
	// running counts the feeds' goroutines, which StopFeeds waits for.
	running sync.WaitGroup
	// OnAck, when set before the first feed, is called after a replica
	// acknowledged more (WAIT waits for it).
	OnAck func()
	// cp is the checkpoint replicas fetch (checkpoint.go).
	cp struct {
		sync.Mutex
		created, accessed time.Time
		seq               uint64 // a sequence number the checkpoint holds
		fetchers          int    // _fetch_file connections sending from it
	}
}

// NewMaster returns the master side over st.
func NewMaster(cfg *config.Config, st *storage.Storage) *Master {
	m := &Master{st: st, cfg: cfg}
	m.mu.feeds = map[*feed]struct{}{}
	return m
}

// CheckPSync decides a PSYNC for next (the first sequence number the
// replica lacks): nil when the WAL can serve it from there, else
// ErrSeqOutOfRange, or ErrWrongReplID when use-rsid-psync is on and
// replid, the replica's replication id, is not the one marking this
// node's batch before next (the replica's history diverged: a demoted
// master). It counts the outcome.
func (m *Master) CheckPSync(replid string, next uint64) error {
	err := m.checkReplID(replid, next)
	if err == nil {
		err = m.checkPSync(next)
	}
	if err != nil {
		m.SyncPartialErr.Add(1)
		return err
	}
	m.SyncPartialOK.Add(1)
	return nil
}

// checkReplID compares the replica's replication id with this node's for
// sequence number next-1; either side without one passes.
func (m *Master) checkReplID(replid string, next uint64) error {
	if replid == "" || !m.cfg.UseRSIDPSync.Get() || next == 0 {
		return nil
	}
	if mine := m.st.ReplIDAt(next - 1); mine != "" && mine != replid {
		return ErrWrongReplID
	}
	return nil
}

func (m *Master) checkPSync(next uint64) error {
	latest := m.st.LatestSequence()
	switch {
	case next == latest+1:
		return nil
	case next > latest+1 || next == 0:
		return ErrSeqOutOfRange
	}
	found := false
	_, err := m.st.ReadWALBatches(next-1, func(b storage.WALBatch) error {
		found = b.Seq == next
		return storage.ErrStopWAL
	})
	if err != nil || !found {
		return ErrSeqOutOfRange
	}
	return nil
}

// Feed returns Serve for the connection a PSYNC from next came on, which
// the server calls with the socket once the replies before it are sent.
func (m *Master) Feed(next uint64, a Announced) func(nc net.Conn) {
	return func(nc net.Conn) { m.Serve(nc, next, a) }
}

// Serve feeds the replica on nc from sequence number next, after a PSYNC
// CheckPSync accepted: it writes "+OK\r\n" and then the batches, until the
// replica goes away, a write fails, the WAL cannot serve the next batch or
// the feed is stopped (StopFeeds). It closes nc.
func (m *Master) Serve(nc net.Conn, next uint64, a Announced) {
	f := &feed{nc: nc}
	f.next.Store(next)
	peerIP, peerPort := splitAddr(nc.RemoteAddr())
	f.info = ReplicaInfo{IP: a.IP, Port: a.ListeningPort, ListeningPort: a.ListeningPort}
	if f.info.IP == "" {
		f.info.IP = peerIP
	}
	if f.info.Port == 0 {
		f.info.Port = peerPort
	}
	m.mu.Lock()
	if m.mu.stopping > 0 {
		// The replica will ask again, once the feeds may run.
		m.mu.Unlock()
		nc.Close()
		return
	}
	m.mu.feeds[f] = struct{}{}
	m.running.Add(1)
	m.mu.Unlock()
	defer m.running.Done()
	defer func() {
		f.stopped.Store(true)
		nc.Close()
		m.mu.Lock()
		delete(m.mu.feeds, f)
		m.mu.Unlock()
	}()
	go m.readAcks(f, a.Acks)
	if err := m.stream(f); err != nil && !f.stopped.Load() {
		slog.Info("replica feed ended", "replica", nc.RemoteAddr().String(), "err", err)
	}
}

// readAcks reads what the replica sends after PSYNC until the connection
// ends, and closes it then, so that the next write fails. A replica that
// acknowledges sends REPLCONF ACK <sequence>; other requests are ignored,
// and a Kvrocks replica sends none.
func (m *Master) readAcks(f *feed, acks bool) {
	defer f.nc.Close()
	if !acks {
		io.Copy(io.Discard, f.nc)
		return
	}
	rd := resp.NewReader(f.nc)
	rd.MaxBulk = 64 // an ack is a few short words
	var held int64
	rd.Budget = func(delta int64) error {
		if held+delta > maxAckBytes {
			return errAckTooLong
		}
		held += delta
		return nil
	}
	defer rd.Close()
	for {
		args, err := rd.ReadRequest()
		if err != nil {
			return
		}
		if len(args) != 3 || !strings.EqualFold(string(args[0]), "replconf") || !strings.EqualFold(string(args[1]), "ack") {
			continue
		}
		seq, err := strconv.ParseUint(string(args[2]), 10, 64)
		if err != nil || seq <= f.acked.Load() {
			continue
		}
		f.acked.Store(seq)
		if m.OnAck != nil {
			m.OnAck()
		}
	}
}

// maxAckBytes bounds what the reader of a replica's acknowledgements
// holds: a request that needs more ends the feed.
const maxAckBytes = 1 << 20

var errAckTooLong = errors.New("replication: a request from a replica is too long for an acknowledgement")

// Acked returns how many replicas acknowledged sequence number seq.
func (m *Master) Acked(seq uint64) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for f := range m.mu.feeds {
		if !f.stopped.Load() && f.acked.Load() >= seq {
			n++
		}
	}
	return n
}

// stream writes +OK and the batches; see Serve.
func (m *Master) stream(f *feed) error {
	w := resp.NewWriter()
	w.OK()
	if err := flushTo(f.nc, w); err != nil {
		return err
	}
	first := true
	lastWrite := time.Now()
	tail := m.st.TailWAL(f.next.Load())
	defer tail.Close()
	for !f.stopped.Load() {
		next := f.next.Load()
		latest := m.st.LatestSequence()
		if next > latest {
			if time.Since(lastWrite) >= pingAfter {
				w.BulkString("ping") // the heartbeat
				if err := flushTo(f.nc, w); err != nil {
					return err
				}
				lastWrite = time.Now()
			}
			time.Sleep(pollEvery)
			continue
		}
		pending, batches := 0, 0
		err := tail.Read(func(b storage.WALBatch) error {
			w.Bulk(b.Data)
			f.next.Store(b.Seq + b.Count)
			pending += len(b.Data)
			batches++
			if first || pending >= flushBytes || batches >= flushBatches || latest <= b.Seq+tailDistance {
				first, pending, batches = false, 0, 0
				if err := flushTo(f.nc, w); err != nil {
					return err
				}
				lastWrite = time.Now()
			}
			if f.stopped.Load() {
				return storage.ErrStopWAL
			}
			return nil
		})
		if ferr := flushTo(f.nc, w); err == nil {
			err = ferr
		}
		if err != nil {
			return err
		}
		lastWrite = time.Now()
	}
	return nil
}

// flushTo writes what w holds to nc and resets w.
func flushTo(nc net.Conn, w *resp.Writer) error {
	if w.Len() == 0 {
		return nil
	}
	_, err := nc.Write(w.Bytes())
	w.Reset()
	return err
}

// Replicas returns the replicas being fed, in no particular order;
// stopped feeds are left out.
func (m *Master) Replicas() []ReplicaInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]ReplicaInfo, 0, len(m.mu.feeds))
	for f := range m.mu.feeds {
		if f.stopped.Load() {
			continue
		}
		info := f.info
		if next := f.next.Load(); next > 0 {
			info.Offset = next - 1
		}
		out = append(out, info)
	}
	return out
}

// Connected returns the number of feeds, stopped ones not yet gone
// included (INFO connected_slaves).
func (m *Master) Connected() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.mu.feeds)
}

// StopFeeds stops every feed, closes its connection and waits until none
// reads the WAL any more (a full sync replaces the data they read).
func (m *Master) StopFeeds() {
	m.mu.Lock()
	m.mu.stopping++
	for f := range m.mu.feeds {
		f.stopped.Store(true)
		f.nc.Close()
	}
	m.mu.Unlock()
	m.running.Wait()
	m.mu.Lock()
	m.mu.stopping--
	m.mu.Unlock()
}

// splitAddr returns the IP and port of a TCP address ("" and 0
// otherwise).
func splitAddr(a net.Addr) (string, int) {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.String(), tcp.Port
	}
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String(), 0
	}
	p, _ := strconv.Atoi(port)
	return host, p
}
