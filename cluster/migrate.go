package cluster

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
	"github.com/basaltdb/basalt/types/json"
	"github.com/basaltdb/basalt/types/sortedint"
)

// MigrateOptions are the migrate-* settings, read when a job starts.
type MigrateOptions struct {
	RawKeyValue bool   // migrate-type raw-key-value: APPLYBATCH, if the destination has it
	Password    string // requirepass; the destination shares it
	// KeysPerSecond (migrate-speed) and BatchBytesPerSecond
	// (migrate-batch-rate-limit-mb) limit the pace; 0: no limit.
	KeysPerSecond       int
	BatchBytesPerSecond int
	PipelineSize        int    // commands sent before reading replies
	SequenceGap         uint64 // WAL writes left below which writes are stopped
	BatchBytes          int    // size of one APPLYBATCH
	// RawKnobs, when set, reads the batch size and rate again before each
	// APPLYBATCH: a CONFIG SET of migrate-batch-size-kb or
	// migrate-batch-rate-limit-mb applies to the running job, as in Kvrocks.
	RawKnobs func() (batchBytes, bytesPerSecond int)
	Timeout  time.Duration // of each exchange with the destination
	// Stop ends the job (as failed) when closed: the server is stopping.
	Stop <-chan struct{}
}

// errStopped fails a job when the server stops; errCancelled when
// StopMigration ends it (Kvrocks's words).
var (
	errStopped   = errors.New("the server is shutting down")
	errCancelled = errors.New("key migration stopped due to a task cancellation")
)

// maxCatchUpRounds bounds the WAL rounds run while clients keep writing:
// past it, writes are stopped even if the gap is still large, so that a
// job always ends.
const maxCatchUpRounds = 50

// elementsPerCommand is how many elements one restore command carries.
const elementsPerCommand = 128

// Migrate runs job to its end: it copies the job's slots to the
// destination from a snapshot, then the writes since from the WAL, stops
// writes to the slots for the last few, and hands the slots over (CLUSTER
// IMPORT ... 1). On failure the destination is told to drop what it got
// (CLUSTER IMPORT ... 2), writes resume, and the data stays here.
func (c *Cluster) Migrate(s *storage.Storage, job Job, opts MigrateOptions) error {
	m := &migrator{c: c, s: s, job: job, opts: opts,
		slots: storage.SlotRange{From: uint16(job.Range.From), To: uint16(job.Range.To)}}
	start := time.Now()
	err := m.run()
	if err != nil {
		m.abort()
	}
	if m.link != nil {
		m.link.close()
	}
	c.FinishMigration(err == nil)
	if err != nil {
		slog.Error("slot migration failed", "slots", job.Range.String(), "dst", job.Dst.ID, "err", err)
		return err
	}
	slog.Info("slot migration done", "slots", job.Range.String(), "dst", job.Dst.ID,
		"keys", m.keys, "bytes", m.bytes, "mode", m.mode(), "seconds", time.Since(start).Seconds())
	return nil
}

// migrator is the state of one running job.
type migrator struct {
	c     *Cluster
	s     *storage.Storage
	job   Job
	opts  MigrateOptions
	slots storage.SlotRange
	link  *link
	raw   *storage.RawBatch // nil in redis-command mode

	keyPace, bytePace pacer
	keys, bytes       int64
}

func (m *migrator) mode() string {
	if m.raw != nil {
		return "raw-key-value"
	}
	return "redis-command"
}

func (m *migrator) rangeArg() []byte { return []byte(m.job.Range.String()) }

func (m *migrator) run() error {
	var err error
	if m.link, err = dialLink(m.job.Dst.Addr(), m.opts.Timeout, m.opts.PipelineSize); err != nil {
		return err
	}
	if m.opts.Password != "" {
		if _, err := m.link.do([]byte("AUTH"), []byte(m.opts.Password)); err != nil {
			return fmt.Errorf("AUTH: %w", err)
		}
	}
	if _, err := m.link.do([]byte("CLUSTER"), []byte("IMPORT"), m.rangeArg(), []byte("0")); err != nil {
		return fmt.Errorf("CLUSTER IMPORT: %w", err)
	}
	if m.opts.RawKeyValue {
		if err := m.probeApplyBatch(); err != nil {
			return err
		}
	}
	m.keyPace = newPacer(float64(m.opts.KeysPerSecond))
	m.bytePace = newPacer(float64(m.opts.BatchBytesPerSecond))

	snap := m.s.NewSnapshot()
	seq := snap.Seq
	err = snap.EachKey(m.slots, func(k *storage.SlotKey) error { return m.sendKey(k, false) })
	snap.Release()
	if err == nil {
		err = m.flush()
	}
	if err != nil {
		return fmt.Errorf("send snapshot: %w", err)
	}
	for round := 0; round < maxCatchUpRounds && m.s.LatestSequence()-seq > m.opts.SequenceGap; round++ {
		if seq, err = m.catchUp(seq); err != nil {
			return err
		}
	}
	m.c.ForbidWrites()
	if _, err = m.catchUp(seq); err != nil {
		return err
	}
	// A flush that stopped the job after its last key was sent still
	// fails it: the destination must not get slots the source emptied.
	if err := m.stopped(); err != nil {
		return err
	}
	if _, err := m.link.do([]byte("CLUSTER"), []byte("IMPORT"), m.rangeArg(), []byte("1")); err != nil {
		return fmt.Errorf("CLUSTER IMPORT success: %w", err)
	}
	return nil
}

// probeApplyBatch switches to raw batches when the destination has
// APPLYBATCH; otherwise restore commands are sent, as Kvrocks does.
func (m *migrator) probeApplyBatch() error {
	reply, err := m.link.do([]byte("COMMAND"), []byte("INFO"), []byte("APPLYBATCH"))
	if err != nil {
		return fmt.Errorf("COMMAND INFO APPLYBATCH: %w", err)
	}
	if reply.Kind == '*' && len(reply.Elems) == 1 && !reply.Elems[0].Null {
		m.raw = m.s.NewRawBatch()
	} else {
		slog.Warn("the destination has no APPLYBATCH: migrating with commands", "dst", m.job.Dst.ID)
	}
	return nil
}

// abort tells the destination to drop what it imported. Without a working
// link the destination drops it on its own when the connection closes.
func (m *migrator) abort() {
	if m.link == nil {
		return
	}
	m.link.timeout = min(m.link.timeout, 3*time.Second)
	if _, err := m.link.do([]byte("CLUSTER"), []byte("IMPORT"), m.rangeArg(), []byte("2")); err != nil {
		slog.Warn("could not tell the destination that the import failed", "err", err)
	}
}

// catchUp sends the writes to the slots committed after seq, and returns
// the last sequence number sent. Raw batches carry the writes themselves;
// commands resend the current state of every key written.
func (m *migrator) catchUp(seq uint64) (uint64, error) {
	var last uint64
	var err error
	if m.raw != nil {
		last, err = m.s.ReadWAL(seq, m.slots, func(changes []storage.Change) error {
			for _, ch := range changes {
				m.raw.AddChange(ch)
			}
			if m.raw.Size() >= m.opts.BatchBytes {
				return m.sendRaw()
			}
			return nil
		})
	} else {
		last, err = m.resendWritten(seq)
	}
	if err == nil {
		err = m.flush()
	}
	if err != nil {
		return seq, fmt.Errorf("send WAL after %d: %w", seq, err)
	}
	return last, nil
}

// resendWritten sends, as commands, the current state of every key
// written after seq: DEL, then the restore commands if it still exists.
func (m *migrator) resendWritten(seq uint64) (uint64, error) {
	written := map[string]bool{}
	var order [][]byte
	last, err := m.s.ReadWAL(seq, m.slots, func(changes []storage.Change) error {
		for _, ch := range changes {
			nsKey, err := m.s.ChangedKey(ch)
			if err != nil {
				return err
			}
			if !written[string(nsKey)] {
				written[string(nsKey)] = true
				order = append(order, nsKey)
			}
		}
		return nil
	})
	if err != nil {
		return seq, err
	}
	// The snapshot is taken after the WAL was read: it holds each key's
	// state after its last write read.
	snap := m.s.NewSnapshot()
	defer snap.Release()
	for _, nsKey := range order {
		k, err := snap.Key(nsKey)
		if err != nil {
			return seq, err
		}
		if k == nil {
			_, key, err := m.s.ParseNSKey(nsKey)
			if err == nil {
				err = m.link.send([]byte("DEL"), key)
			}
			if err != nil {
				return seq, err
			}
			continue
		}
		if err := m.sendKey(k, true); err != nil {
			return seq, err
		}
	}
	return last, nil
}

// stopped returns why the job must end now, or nil.
func (m *migrator) stopped() error {
	select {
	case <-m.opts.Stop:
		return errStopped
	case <-m.job.Stopped:
		return errCancelled
	default:
		return nil
	}
}

// sendKey sends one key: its records in a raw batch, or restore commands
// (after a DEL when replace is set).
func (m *migrator) sendKey(k *storage.SlotKey, replace bool) error {
	if err := m.stopped(); err != nil {
		return err
	}
	m.keys++
	m.keyPace.wait(1)
	if m.raw != nil {
		m.raw.Put(storage.CFMetadata, k.NSKey, k.Raw)
		err := k.EachElement(func(cf storage.CF, ikey, _, value []byte) error {
			m.raw.Put(cf, ikey, value)
			if m.raw.Size() >= m.opts.BatchBytes {
				return m.sendRaw()
			}
			return nil
		})
		if err == nil && m.raw.Size() >= m.opts.BatchBytes {
			err = m.sendRaw()
		}
		return err
	}
	if string(k.Namespace) != metadata.DefaultNamespace {
		return fmt.Errorf("redis-command migration cannot carry keys of namespace %q: use migrate-type raw-key-value", k.Namespace)
	}
	if replace {
		if err := m.link.send([]byte("DEL"), k.Key); err != nil {
			return err
		}
	}
	if err := m.sendCommands(k); err != nil {
		return err
	}
	if k.Meta.Expire > 0 {
		return m.link.send([]byte("PEXPIREAT"), k.Key, strconv.AppendInt(nil, k.Meta.Expire, 10))
	}
	return nil
}

// restoreCommands names the command that rebuilds each type from its
// elements.
var restoreCommands = map[metadata.Type]string{
	metadata.TypeHash:      "HMSET",
	metadata.TypeSet:       "SADD",
	metadata.TypeZSet:      "ZADD",
	metadata.TypeList:      "RPUSH",
	metadata.TypeSortedint: "SIADD",
}

// sendCommands sends the commands that rebuild k: SET for a string, the
// stream commands of sendStream for a stream, JSON.SET for a JSON
// document, else chunks of elements for HMSET, SADD, ZADD, RPUSH or
// SIADD. A type no command rebuilds that way (a Bloom filter) fails the
// job: raw-key-value migration carries it. (Kvrocks 5fccd57 skips such
// keys and reports the migration a success: they are lost once the
// topology moves the slot.)
func (m *migrator) sendCommands(k *storage.SlotKey) error {
	t := k.Meta.Type
	if t == metadata.TypeString {
		m.bytes += int64(len(k.Key) + len(k.Value))
		return m.link.send([]byte("SET"), k.Key, k.Value)
	}
	if t == metadata.TypeStream {
		return m.sendStream(k)
	}
	if t == metadata.TypeJSON {
		return m.sendJSON(k)
	}
	name, ok := restoreCommands[t]
	if !ok {
		return fmt.Errorf("redis-command migration cannot carry %s key %q: use migrate-type raw-key-value", t, k.Key)
	}
	args := [][]byte{[]byte(name), k.Key}
	n := 0
	now := time.Now().UnixMilli()
	var ttls [][][]byte
	err := k.EachElement(func(cf storage.CF, _, sub, value []byte) error {
		switch {
		case t == metadata.TypeZSet && cf != storage.CFDefault:
			return nil // the score index repeats the members
		case t == metadata.TypeZSet:
			score, ok := metadata.DecodeScore(value)
			if !ok {
				return fmt.Errorf("corrupt score of %q in %q", sub, k.Key)
			}
			args = append(args, formatScore(score), append([]byte(nil), sub...))
		case t == metadata.TypeHash:
			v, expire := storage.FieldValue(&k.Meta, value)
			if expire != 0 && expire < now {
				return nil // expired: not carried
			}
			if expire != 0 {
				ttls = append(ttls, [][]byte{[]byte("HPEXPIREAT"), k.Key, strconv.AppendInt(nil, expire, 10),
					[]byte("FIELDS"), []byte("1"), append([]byte(nil), sub...)})
			}
			args = append(args, append([]byte(nil), sub...), append([]byte(nil), v...))
		case t == metadata.TypeSet:
			args = append(args, append([]byte(nil), sub...))
		case t == metadata.TypeSortedint:
			id, err := sortedint.ParseSubkey(sub)
			if err != nil {
				return fmt.Errorf("%q: %w", k.Key, err)
			}
			args = append(args, strconv.AppendUint(nil, id, 10))
		default: // list: the values in index order
			args = append(args, append([]byte(nil), value...))
		}
		m.bytes += int64(len(sub) + len(value))
		if n++; n%elementsPerCommand == 0 {
			err := m.link.send(args...)
			args = args[:2]
			return err
		}
		return nil
	})
	if err == nil && len(args) > 2 {
		err = m.link.send(args...)
	}
	// A hash's field TTLs follow its fields.
	for _, cmd := range ttls {
		if err != nil {
			break
		}
		err = m.link.send(cmd...)
	}
	return err
}

// sendJSON sends the document of a JSON key as one JSON.SET at the root,
// which a Kvrocks destination takes too; the destination stores it in
// its own json-storage-format. (Kvrocks 5fccd57 leaves JSON keys out of a
// redis-command migration: they are lost with the slot.)
func (m *migrator) sendJSON(k *storage.SlotKey) error {
	doc, _, err := json.Decode(k.Value)
	if err != nil {
		return fmt.Errorf("JSON key %q: %w", k.Key, err)
	}
	text := json.Text(doc)
	m.bytes += int64(len(k.Key) + len(text))
	return m.link.send([]byte("JSON.SET"), k.Key, []byte("$"), text)
}

// formatScore writes a score the way ZADD reads it back exactly.
func formatScore(f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return []byte("+inf")
	case math.IsInf(f, -1):
		return []byte("-inf")
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64)
}

// sendRaw sends the raw batch as one APPLYBATCH.
func (m *migrator) sendRaw() error {
	if m.raw.Len() == 0 {
		return nil
	}
	if m.opts.RawKnobs != nil {
		size, rate := m.opts.RawKnobs()
		m.opts.BatchBytes = size
		if rate != m.opts.BatchBytesPerSecond {
			m.opts.BatchBytesPerSecond, m.bytePace = rate, newPacer(float64(rate))
		}
	}
	data := m.raw.Bytes()
	m.bytes += int64(len(data))
	m.bytePace.wait(float64(len(data)))
	err := m.link.send([]byte("APPLYBATCH"), data)
	m.raw.Reset()
	return err
}

// flush sends everything queued and checks every reply.
func (m *migrator) flush() error {
	if m.raw != nil {
		if err := m.sendRaw(); err != nil {
			return err
		}
	}
	return m.link.drain()
}

// pacer spreads work over time at rate units per second (0: no limit).
type pacer struct {
	rate  float64
	start time.Time
	done  float64
}

func newPacer(rate float64) pacer { return pacer{rate: rate, start: time.Now()} }

// wait accounts n units and sleeps while ahead of the rate.
func (p *pacer) wait(n float64) {
	if p.rate <= 0 {
		return
	}
	p.done += n
	due := p.start.Add(time.Duration(p.done / p.rate * float64(time.Second)))
	if ahead := time.Until(due); ahead > time.Millisecond {
		time.Sleep(ahead)
	}
}
