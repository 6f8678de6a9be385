package it

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The seeded workload of the data-directory interop tests: every type that
// both Basalt and Kvrocks have (Kvrocks's sortedints included), written the ways that leave different
// records on disk (TTLs, removals in the middle of lists, deletions and
// re-creations under one name, expiry, renames, big collections).

// workload generates commands; they are run in phases, so that keys can
// expire between them.
type workload struct {
	rnd   *rand.Rand
	cmds  [][]any
	lists map[string][]string // the lists' contents, to pick middle pivots
	// shortLived are keys written with a TTL of at most 300 ms: the dump
	// is taken after they expired.
	shortLived []string
}

func newWorkload(seed int64) *workload {
	return &workload{rnd: rand.New(rand.NewSource(seed)), lists: map[string][]string{}}
}

func (w *workload) do(args ...any) { w.cmds = append(w.cmds, args) }

// take returns the commands generated so far and starts a new phase.
func (w *workload) take() [][]any {
	c := w.cmds
	w.cmds = nil
	return c
}

// bytes returns a value of random bytes, binary included: mostly short,
// sometimes empty, now and then several KB.
func (w *workload) bytes() string {
	n := w.rnd.Intn(48)
	switch w.rnd.Intn(20) {
	case 0:
		n = 0
	case 1:
		n = 2000 + w.rnd.Intn(18000)
	}
	b := make([]byte, n)
	w.rnd.Read(b)
	return string(b)
}

// name returns a short printable or binary field/member name.
func (w *workload) name(prefix string, i int) string {
	if w.rnd.Intn(8) == 0 {
		b := make([]byte, 1+w.rnd.Intn(12))
		w.rnd.Read(b)
		return prefix + string(b)
	}
	return prefix + strconv.Itoa(i)
}

// longTTL returns a TTL in ms that outlives the test by far.
func (w *workload) longTTL() int64 {
	return int64(2*time.Hour/time.Millisecond) + w.rnd.Int63n(int64(time.Hour/time.Millisecond))
}

// specialScores are written as the client would type them.
// (Kvrocks refuses subnormal scores such as 5e-324, which Redis takes.)
var specialScores = []string{"-0", "0", "+inf", "-inf", "inf", "1e308", "-1e308", "2.2250738585072014e-308", "-2.2250738585072014e-308", "9007199254740993", "-1.5", "3.141592653589793", "1e-7"}

func (w *workload) score() string {
	switch w.rnd.Intn(4) {
	case 0:
		return specialScores[w.rnd.Intn(len(specialScores))]
	case 1:
		return strconv.Itoa(w.rnd.Intn(20) - 10) // ties
	default:
		return strconv.FormatFloat(w.rnd.NormFloat64()*1e6, 'g', -1, 64)
	}
}

// kinds is how many kinds create writes.
const kinds = 6

// create writes key as a collection or string of kind (0 string, 1 hash,
// 2 set, 3 zset, 4 list, 5 sortedint) with a few elements.
func (w *workload) create(key string, kind int) {
	n := 1 + w.rnd.Intn(30)
	switch kind {
	case 0:
		w.do("SET", key, w.bytes())
	case 1:
		args := []any{"HSET", key}
		for i := 0; i < n; i++ {
			args = append(args, w.name("f", i), w.bytes())
		}
		w.do(args...)
	case 2:
		args := []any{"SADD", key}
		for i := 0; i < n; i++ {
			args = append(args, w.name("m", i))
		}
		w.do(args...)
	case 3:
		args := []any{"ZADD", key}
		for i := 0; i < n; i++ {
			args = append(args, w.score(), w.name("m", i))
		}
		w.do(args...)
	case 4:
		w.push(key, n)
	case 5:
		args := []any{"SIADD", key}
		for _, id := range w.ids(n) {
			args = append(args, id)
		}
		w.do(args...)
	}
}

// specialIDs are the ends of a sortedint's range and its middle.
var specialIDs = []string{"0", "1", "9223372036854775807", "9223372036854775808", "18446744073709551615"}

// ids returns n distinct sortedint ids, some of them special (Kvrocks
// counts an id named twice in one SIADD twice: its size would drift from
// its ids).
func (w *workload) ids(n int) []string {
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		id := strconv.FormatUint(w.rnd.Uint64()>>w.rnd.Intn(64), 10)
		if w.rnd.Intn(10) == 0 {
			id = specialIDs[w.rnd.Intn(len(specialIDs))]
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// push adds n elements to list key from both ends, from a small pool of
// values (so LREM finds repeats) and unique ones.
func (w *workload) push(key string, n int) {
	l := w.lists[key]
	for i := 0; i < n; i++ {
		v := "v" + strconv.Itoa(w.rnd.Intn(6))
		if w.rnd.Intn(2) == 0 {
			v = fmt.Sprintf("u%d-%d", len(l), w.rnd.Intn(1000))
		}
		if w.rnd.Intn(3) == 0 {
			w.do("LPUSH", key, v)
			l = append([]string{v}, l...)
		} else {
			w.do("RPUSH", key, v)
			l = append(l, v)
		}
	}
	w.lists[key] = l
}

// listEdits changes list key in its middle: LINSERT before and after a
// middle pivot, LREM from either end, LSET, then pops and a trim.
func (w *workload) listEdits(key string) {
	l := w.lists[key]
	for round := 0; round < 4 && len(l) > 2; round++ {
		mid := len(l)/4 + w.rnd.Intn(len(l)/2+1)
		if mid >= len(l) {
			mid = len(l) - 1
		}
		pivot := l[mid]
		first := 0
		for first < len(l) && l[first] != pivot {
			first++
		}
		v := fmt.Sprintf("ins%d", w.rnd.Intn(1000))
		if w.rnd.Intn(2) == 0 {
			w.do("LINSERT", key, "BEFORE", pivot, v)
			l = append(l[:first], append([]string{v}, l[first:]...)...)
		} else {
			w.do("LINSERT", key, "AFTER", pivot, v)
			l = append(l[:first+1], append([]string{v}, l[first+1:]...)...)
		}
		target := l[len(l)/4+w.rnd.Intn(len(l)/2+1)]
		count := []int{1, 2, -1, -2, 0}[w.rnd.Intn(5)]
		w.do("LREM", key, count, target)
		l = lrem(l, count, target)
		if len(l) > 0 {
			i := w.rnd.Intn(len(l))
			v := w.bytes()
			w.do("LSET", key, i, v)
			l[i] = v
		}
	}
	if len(l) > 3 && w.rnd.Intn(2) == 0 {
		w.do("LPOP", key)
		w.do("RPOP", key)
		l = l[1 : len(l)-1]
	}
	if len(l) > 4 && w.rnd.Intn(3) == 0 {
		w.do("LTRIM", key, 1, -2)
		l = l[1 : len(l)-1]
	}
	w.lists[key] = l
}

// lrem is LREM on the model.
func lrem(l []string, count int, v string) []string {
	remove := map[int]bool{}
	switch {
	case count >= 0:
		for i := 0; i < len(l) && (count == 0 || len(remove) < count); i++ {
			if l[i] == v {
				remove[i] = true
			}
		}
	default:
		for i := len(l) - 1; i >= 0 && len(remove) < -count; i-- {
			if l[i] == v {
				remove[i] = true
			}
		}
	}
	out := l[:0:0]
	for i, e := range l {
		if !remove[i] {
			out = append(out, e)
		}
	}
	return out
}

// phaseShortLived writes keys of every type that expire within 300 ms.
func (w *workload) phaseShortLived(n int) {
	for i := 0; i < n; i++ {
		key := "exp:" + strconv.Itoa(i)
		w.create(key, i%kinds)
		w.do("PEXPIRE", key, 20+w.rnd.Intn(280))
		w.shortLived = append(w.shortLived, key)
	}
}

// phaseMain writes the bulk: n keys of each type, edited, some with TTLs,
// some deleted and re-created under the same name as another type.
func (w *workload) phaseMain(n int) {
	for i := 0; i < 3*n; i++ {
		key := "str:" + strconv.Itoa(i)
		switch w.rnd.Intn(10) {
		case 0:
			w.do("SET", key, w.bytes(), "EX", 7200+w.rnd.Intn(3600))
		case 1:
			w.do("SET", key, w.bytes(), "PX", w.longTTL())
		case 2:
			w.do("SET", key, w.bytes())
			w.do("PEXPIREAT", key, time.Now().Add(3*time.Hour).UnixMilli()+w.rnd.Int63n(1000))
		case 3:
			w.do("SET", key, w.bytes(), "EX", 7200)
			w.do("PERSIST", key)
		case 4:
			w.do("SET", key, w.bytes())
			w.do("APPEND", key, w.bytes())
		case 5:
			w.do("SET", key, w.bytes())
			w.do("SETRANGE", key, w.rnd.Intn(100), w.bytes())
		case 6:
			w.do("SET", key, w.rnd.Intn(1000)-500)
			w.do("INCRBY", key, w.rnd.Intn(1000000))
		case 7:
			w.do("INCRBYFLOAT", key, strconv.FormatFloat(w.rnd.Float64()*100, 'f', 3, 64))
		default:
			w.do("SET", key, w.bytes())
		}
	}
	for i := 0; i < n; i++ {
		h := "hash:" + strconv.Itoa(i)
		w.create(h, 1)
		w.do("HSET", h, "counter", w.rnd.Intn(100))
		w.do("HINCRBY", h, "counter", w.rnd.Intn(100)-50)
		w.do("HINCRBYFLOAT", h, "float", "1.25")
		w.do("HDEL", h, "f0", "f1", "f2")
		s := "set:" + strconv.Itoa(i)
		w.create(s, 2)
		w.do("SREM", s, "m0", "m3")
		z := "zset:" + strconv.Itoa(i)
		w.create(z, 3)
		w.do("ZINCRBY", z, strconv.Itoa(w.rnd.Intn(10)), "m1")
		w.do("ZREM", z, "m2")
		l := "list:" + strconv.Itoa(i)
		w.push(l, 5+w.rnd.Intn(40))
		w.listEdits(l)
		si := "sortedint:" + strconv.Itoa(i)
		ids := w.ids(4 + w.rnd.Intn(30))
		add := []any{"SIADD", si}
		for _, id := range ids[:len(ids)-2] {
			add = append(add, id)
		}
		w.do(add...)
		w.do("SIADD", si, ids[1], ids[len(ids)-2])
		w.do("SIREM", si, ids[0], ids[len(ids)-1])
		for _, key := range []string{h, s, z, l, si} {
			if w.rnd.Intn(4) == 0 {
				w.do("PEXPIRE", key, w.longTTL())
			}
		}
	}
	// Every special score in one zset, -0 and +0 side by side.
	special := []any{"ZADD", "zset:special"}
	for i, sc := range specialScores {
		special = append(special, sc, "s"+strconv.Itoa(i))
	}
	w.do(special...)
	// Deleted and re-created under the same name: as another type, or as
	// the same type with other elements (old subkeys must stay invisible).
	for i := 0; i < n; i++ {
		key := "re:" + strconv.Itoa(i)
		from, to := w.rnd.Intn(kinds), w.rnd.Intn(kinds)
		w.create(key, from)
		if from == 4 {
			w.listEdits(key)
		}
		switch {
		case to == 0 && w.rnd.Intn(2) == 0:
			// SET replaces any type without a DEL.
		case w.rnd.Intn(2) == 0:
			w.do("UNLINK", key)
		default:
			w.do("DEL", key)
		}
		delete(w.lists, key)
		w.create(key, to)
		if w.rnd.Intn(3) == 0 {
			w.do("EXPIRE", key, 7200+w.rnd.Intn(3600))
		}
	}
	// A key expired on the spot, and renames and copies (same version,
	// new name).
	w.do("SET", "gone:now", "x")
	w.do("PEXPIREAT", "gone:now", 1)
	for i := 0; i < n/4; i++ {
		tag := "{ren" + strconv.Itoa(i) + "}" // one slot in cluster mode
		src, dst, cp := tag+"src", tag+"dst", tag+"copy"
		w.create(src, 1+i%(kinds-1))
		w.do("RENAME", src, dst)
		w.do("COPY", dst, cp)
		delete(w.lists, src)
	}
}

// phaseEmptied empties collections element by element: Kvrocks leaves a
// dead record of size 0 for hashes, sorted sets and sortedints and deletes
// the others';
// every other one is then written again (a fresh version).
func (w *workload) phaseEmptied() {
	for i := 0; i < 10; i++ {
		key := "emptied:" + strconv.Itoa(i)
		switch i % 5 {
		case 0:
			w.do("HSET", key, "a", "1", "b", "2")
			w.do("HDEL", key, "a", "b")
		case 1:
			w.do("ZADD", key, "1", "a", "-0", "b")
			w.do("ZREM", key, "a", "b")
		case 2:
			w.do("SADD", key, "a", "b")
			w.do("SREM", key, "a", "b")
		case 3:
			w.do("RPUSH", key, "a", "b")
			w.do("LPOP", key, 2)
		case 4:
			w.do("SIADD", key, 1, 2)
			w.do("SIREM", key, 1, 2)
		}
		if i%2 == 0 {
			w.do("HSET", key, "c", "3")
		}
	}
}

// phaseRecreate re-creates half of the expired keys, as other types.
func (w *workload) phaseRecreate() {
	for i, key := range w.shortLived {
		if i%2 == 0 {
			delete(w.lists, key)
			w.create(key, (i/2+1)%kinds)
		}
	}
}

// phaseBig writes a hash, a set, a sorted set, a list and a sortedint of n
// members each, edits the list in its middle, and leaves the subkeys of a
// deleted big hash behind a re-created small one of the same field names.
func (w *workload) phaseBig(n int) {
	const per = 1000
	for i := 0; i < n; i += per {
		h, s, z, l := []any{"HSET", "big:hash"}, []any{"SADD", "big:set"}, []any{"ZADD", "big:zset"}, []any{"RPUSH", "big:list"}
		si := []any{"SIADD", "big:sortedint"}
		for j := i; j < i+per && j < n; j++ {
			id := strconv.Itoa(j)
			h = append(h, "field:"+id, "value:"+id+":"+strconv.Itoa(w.rnd.Intn(1e6)))
			s = append(s, "member:"+id)
			sc := strconv.Itoa(j % 997)
			if j%3 == 0 {
				sc = strconv.FormatFloat(w.rnd.NormFloat64()*1e9, 'g', -1, 64)
			}
			z = append(z, sc, "member:"+id)
			l = append(l, "item:"+id)
			si = append(si, uint64(j)*0x9E3779B97F4A7C15)
		}
		w.do(h...)
		w.do(s...)
		w.do(z...)
		w.do(l...)
		w.do(si...)
	}
	w.do("ZADD", "big:zset", "-0", "negzero", "0", "poszero", "+inf", "top", "-inf", "bottom")
	w.do("LINSERT", "big:list", "BEFORE", "item:"+strconv.Itoa(n/2), "inserted-middle")
	w.do("LREM", "big:list", 1, "item:"+strconv.Itoa(n/3))
	w.do("LREM", "big:list", -1, "item:"+strconv.Itoa(2*n/3))
	w.do("LSET", "big:list", n/4, "set-quarter")
	w.do("HDEL", "big:hash", "field:0", "field:"+strconv.Itoa(n/2))
	w.do("SREM", "big:set", "member:1", "member:"+strconv.Itoa(n-1))
	w.do("SIREM", "big:sortedint", 0, uint64(n/2)*0x9E3779B97F4A7C15)
	orphans := n / 5
	for i := 0; i < orphans; i += per {
		args := []any{"HSET", "big:orphaned"}
		for j := i; j < i+per && j < orphans; j++ {
			args = append(args, "field:"+strconv.Itoa(j), "old")
		}
		w.do(args...)
	}
	w.do("DEL", "big:orphaned")
	w.do("HSET", "big:orphaned", "field:1", "new", "field:7", "new")
}

// run sends cmds through c in pipelines and fails the test on any error
// reply.
func runCommands(t *testing.T, c *redis.Client, who string, cmds [][]any) {
	t.Helper()
	for len(cmds) > 0 {
		n, args := 0, 0
		for n < len(cmds) && args < 50000 {
			args += len(cmds[n])
			n++
		}
		pipe := c.Pipeline()
		for _, cmd := range cmds[:n] {
			pipe.Do(ctx, cmd...)
		}
		replies, _ := pipe.Exec(ctx)
		for i, r := range replies {
			if err := r.Err(); err != nil && err != redis.Nil {
				t.Fatalf("%s: %.200q: %v", who, fmt.Sprint(cmds[i]...), err)
			}
		}
		cmds = cmds[n:]
	}
}

// phaseEdits changes about a third of the keys of a dump in place, the
// way a server changes records the other one wrote: elements added and
// removed in the middle of lists, fields and members added, incremented
// and removed, TTLs set and cleared, keys replaced by another type. It
// also creates names that the main phases left expired or emptied (their
// dead records are still on disk, and their elements too); shortLived is
// the n phaseShortLived was given.
func (w *workload) phaseEdits(keys map[string]keyDump, shortLived int) {
	var gone []string
	for i := 0; i < shortLived; i++ {
		gone = append(gone, "exp:"+strconv.Itoa(i))
	}
	for i := 0; i < 10; i++ {
		gone = append(gone, "emptied:"+strconv.Itoa(i))
	}
	for _, name := range gone {
		if _, ok := keys[name]; !ok && w.rnd.Intn(3) != 0 {
			w.create(name, w.rnd.Intn(kinds))
		}
	}
	for _, name := range sortedKeys(keys) {
		k := keys[name]
		if w.rnd.Intn(3) != 0 && name != "big:list" && name != "big:zset" {
			continue
		}
		// middle returns the field or member in the middle of the key.
		middle := func() string {
			if len(k.value) == 0 {
				return ""
			}
			e := k.value[len(k.value)/2]
			if k.typ == "set" || k.typ == "sortedint" {
				return e
			}
			return pairFirst(e)
		}
		switch k.typ {
		case "string":
			w.do("APPEND", name, w.bytes())
		case "hash":
			w.do("HSET", name, "edited", w.bytes())
			w.do("HDEL", name, middle())
			w.do("HINCRBY", name, "edit-counter", 7)
		case "set":
			w.do("SADD", name, "edited")
			w.do("SREM", name, middle())
		case "zset":
			w.do("ZADD", name, w.score(), "edited")
			w.do("ZINCRBY", name, "2.5", middle())
			if len(k.value) > 2 {
				w.do("ZREM", name, pairFirst(k.value[1]))
			}
		case "list":
			w.do("LPUSH", name, "edited-left")
			w.do("RPUSH", name, "edited-right")
			if len(k.value) > 0 {
				mid := k.value[len(k.value)/2]
				w.do("LINSERT", name, "BEFORE", mid, "edited-middle")
				w.do("LREM", name, -1, mid)
				w.do("LSET", name, len(k.value)/3, "edited-set")
			}
			w.do("RPOP", name)
		case "sortedint":
			w.do("SIADD", name, w.ids(1)[0])
			w.do("SIREM", name, middle())
		}
		switch w.rnd.Intn(6) {
		case 0:
			w.do("PEXPIRE", name, w.longTTL())
		case 1:
			w.do("PERSIST", name)
		case 2:
			if !strings.HasPrefix(name, "big:") {
				w.do("DEL", name)
				w.create(name, w.rnd.Intn(kinds))
			}
		}
	}
}
