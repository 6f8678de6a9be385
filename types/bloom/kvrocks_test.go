package bloom

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/reply"
)

// store is a tiny Bloom filter store over maps, for replaying a Kvrocks
// session on the package as a handler would: the metadata column family
// by user key, the default one by internal key.
type store struct {
	meta     map[string][]byte
	sub      map[string][]byte
	versions map[string]uint64 // the version Kvrocks gave each key
}

var layout = metadata.Layout{}

func nsKey(key string) string {
	return string(layout.AppendNSKey(nil, metadata.DefaultNamespace, []byte(key)))
}

func subKey(key string, version uint64, i uint16) string {
	return string(layout.AppendInternalKey(nil, metadata.DefaultNamespace, []byte(key), version, AppendSubkey(nil, i)))
}

// storeReader reads one key's sub-filters.
type storeReader struct {
	s       *store
	key     string
	version uint64
}

func (r storeReader) Filter(i uint16) ([]byte, error) {
	v, ok := r.s.sub[subKey(r.key, r.version, i)]
	if !ok {
		return nil, fmt.Errorf("sub-filter %d: not found", i)
	}
	return v, nil
}

// load returns a key's decoded metadata and chain; ok is false when the
// key does not exist.
func (s *store) load(key string) (m metadata.Metadata, c Chain, ok bool, err error) {
	v, found := s.meta[nsKey(key)]
	if !found {
		return m, c, false, nil
	}
	m, c, err = Decode(v)
	return m, c, err == nil, err
}

// create writes a new filter with options o, as BF.RESERVE does and the
// inserting commands do for a missing key.
func (s *store) create(key string, o Options) (metadata.Metadata, Chain) {
	m := metadata.New(metadata.TypeBloom, s.versions[key])
	c := New(o)
	s.meta[nsKey(key)] = Encode(nil, &m, &c)
	s.sub[subKey(key, m.Version, 0)] = make([]byte, c.FilterLen(0))
	return m, c
}

func (s *store) insert(key string, o Options, noCreate bool, items [][]byte) ([]Result, error) {
	m, c, ok, err := s.load(key)
	if err != nil {
		return nil, err
	}
	if !ok {
		if noCreate {
			return nil, ErrNotFound
		}
		m, c = s.create(key, o)
	}
	hashes := make([]uint64, len(items))
	for i, it := range items {
		hashes[i] = Hash(it)
	}
	r := storeReader{s, key, m.Version}
	in, err := Insert(c, m.Size, hashes, r)
	if err != nil {
		return nil, err
	}
	for _, w := range in.Writes {
		old := s.sub[subKey(key, m.Version, w.Index)]
		s.sub[subKey(key, m.Version, w.Index)] = w.NewValue(old)
	}
	m.Size = in.Size
	s.meta[nsKey(key)] = Encode(nil, &m, &in.Chain)
	return in.Results, nil
}

func (s *store) exists(key string, items [][]byte) ([]bool, error) {
	m, c, ok, err := s.load(key)
	if err != nil || !ok {
		return make([]bool, len(items)), err
	}
	hashes := make([]uint64, len(items))
	for i, it := range items {
		hashes[i] = Hash(it)
	}
	return Exists(c, hashes, storeReader{s, key, m.Version})
}

// do runs one BF command and writes its reply to w.
func (s *store) do(w reply.Sink, args [][]byte) error {
	key := string(args[1])
	switch strings.ToUpper(string(args[0])) {
	case "BF.RESERVE":
		o, err := ParseReserve(args[2:])
		if err != nil {
			return err
		}
		if _, _, ok, err := s.load(key); err != nil || ok {
			return errors.Join(err, ErrExists)
		}
		s.create(key, o)
		w.OK()
	case "BF.ADD":
		rs, err := s.insert(key, Defaults, false, args[2:])
		if err != nil {
			return err
		}
		WriteResult(w, rs[0])
	case "BF.MADD":
		rs, err := s.insert(key, Defaults, false, args[2:])
		if err != nil {
			return err
		}
		WriteResults(w, rs)
	case "BF.INSERT":
		a, err := ParseInsert(args[2:])
		if err != nil {
			return err
		}
		rs, err := s.insert(key, a.Options, a.NoCreate, a.Items)
		if err != nil {
			return err
		}
		WriteResults(w, rs)
	case "BF.EXISTS", "BF.MEXISTS":
		found, err := s.exists(key, args[2:])
		if err != nil {
			return err
		}
		if strings.EqualFold(string(args[0]), "BF.EXISTS") {
			w.Int(boolInt(found[0]))
		} else {
			WriteExists(w, found)
		}
	case "BF.CARD":
		m, _, _, err := s.load(key)
		if err != nil {
			return err
		}
		w.Int(int64(m.Size)) // 0 for a missing key
	case "BF.INFO":
		f, err := ParseInfo(args[2:])
		if err != nil {
			return err
		}
		m, c, ok, err := s.load(key)
		if err != nil || !ok {
			return errors.Join(err, ErrNotFound)
		}
		WriteInfo(w, c.Info(m.Size), f)
	default:
		return fmt.Errorf("unknown command %q", args[0])
	}
	return nil
}

// render writes captured replies as the session file shows them.
func render(vs []reply.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		switch v.Kind {
		case reply.KindSimple:
			parts[i] = "+" + v.Str
		case reply.KindError:
			parts[i] = "-" + v.Str
		case reply.KindInt:
			parts[i] = ":" + strconv.FormatInt(v.Int, 10)
		case reply.KindNull:
			parts[i] = "$-1"
		case reply.KindArray:
			parts[i] = fmt.Sprintf("*%d[%s]", len(v.Elems), render(v.Elems))
		default:
			parts[i] = fmt.Sprintf("?%v", v)
		}
	}
	return strings.Join(parts, " ")
}

// splitArgs splits a command line: words, and "double quoted" arguments
// with Go escapes.
func splitArgs(t *testing.T, line string) [][]byte {
	var args [][]byte
	for line = strings.TrimLeft(line, " "); line != ""; line = strings.TrimLeft(line, " ") {
		if line[0] == '"' {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			s, _ := strconv.Unquote(q)
			args = append(args, []byte(s))
			line = line[len(q):]
			continue
		}
		end := strings.IndexByte(line, ' ')
		if end < 0 {
			end = len(line)
		}
		args = append(args, []byte(line[:end]))
		line = line[end:]
	}
	return args
}

type record struct{ cf, key, value string }

type session struct {
	steps   []struct{ cmd, reply string }
	records []record
}

func readSession(t *testing.T, path string) session {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var s session
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "> "):
			s.steps = append(s.steps, struct{ cmd, reply string }{cmd: line[2:]})
		case strings.HasPrefix(line, "< "):
			s.steps[len(s.steps)-1].reply = line[2:]
		case strings.HasPrefix(line, "= "):
			fields := strings.Fields(line[2:])
			key, err1 := hex.DecodeString(fields[1])
			value, err2 := hex.DecodeString(fields[2])
			if len(fields) != 3 || err1 != nil || err2 != nil {
				t.Fatalf("bad record %q", line)
			}
			s.records = append(s.records, record{fields[0], string(key), string(value)})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

// differences are the session's commands that Basalt answers otherwise,
// by design, and the filter Kvrocks made with each.
var differences = map[string]struct {
	reply   string
	key     string
	kvrocks Options
}{
	// Kvrocks takes NaN for an error rate (strtod reads it, and NaN fails
	// no comparison) and sizes 32-byte sub-filters for it.
	"BF.RESERVE nan nan 10": {"-" + string(ErrErrorRateRange), "nan", Options{ErrorRate: math.Float64frombits(0x7ff8000000000000), Capacity: 10, Expansion: 2}},
}

// TestKvrocksSession replays commands sent to the real Kvrocks and
// requires its replies and, after them, exactly the records of its data
// directory: the metadata (chain extension and size), every sub-filter's
// bits, scaling past capacity with expansions 1, 2, 3 and 300, a full
// non-scaling filter, a NaN error rate, binary items, 2000 items with
// their false positives; then lookups in all of them, the false
// positives of 200 absent items included.
func TestKvrocksSession(t *testing.T) {
	sess := readSession(t, "testdata/kvrocks_session.txt")
	s := &store{meta: map[string][]byte{}, sub: map[string][]byte{}, versions: map[string]uint64{}}
	for _, r := range sess.records {
		if r.cf != "metadata" {
			continue
		}
		_, key, err := layout.ParseNSKey([]byte(r.key))
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := Decode([]byte(r.value))
		if err != nil {
			t.Fatalf("%q: %v", key, err)
		}
		s.versions[string(key)] = m.Version
	}
	for _, st := range sess.steps {
		w := reply.NewCapture(2)
		if d, ok := differences[st.cmd]; ok {
			// Basalt refuses; the filter Kvrocks made is made as it made it,
			// so that the rest of the session shows Basalt serving it.
			s.create(d.key, d.kvrocks)
			st.reply = d.reply
		}
		if err := s.do(w, splitArgs(t, st.cmd)); err != nil {
			var e Error
			if !errors.As(err, &e) {
				t.Fatalf("%s: %v", st.cmd, err)
			}
			w.Error(string(e))
		}
		if got := render(w.Values()); got != st.reply {
			t.Errorf("%s\n got %s\nwant %s", st.cmd, got, st.reply)
		}
	}
	want := map[string]map[string]string{"metadata": {}, "default": {}}
	for _, r := range sess.records {
		want[r.cf][r.key] = r.value
	}
	compareCF(t, "metadata", s.meta, want["metadata"])
	compareCF(t, "default", s.sub, want["default"])
}

func compareCF(t *testing.T, cf string, got map[string][]byte, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s %x: missing", cf, k)
		} else if string(g) != v {
			t.Errorf("%s %x:\n got %x\nwant %x", cf, k, g, v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s %x: not in Kvrocks's directory", cf, k)
		}
	}
}
