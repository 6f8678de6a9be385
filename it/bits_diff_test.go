package it

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The differential tests of the bit and HyperLogLog commands: the same
// commands go to redis-server 7.0 and to Basalt over raw connections, and
// the replies must be the same bytes, in RESP2 and in RESP3. The fixed
// cases are testdata/bits_diff.txt; seeded random streams follow (DIFF_SEED
// and DIFF_STEPS override the seeds and their length, as for diff_test.go).

// bitsPair is a raw connection to each server, in one protocol.
type bitsPair struct {
	t       *testing.T
	basalt  *rawConn
	redis   *rawConn
	history []string
}

func newBitsPair(t *testing.T, b, r *proc, proto int) *bitsPair {
	p := &bitsPair{t: t, basalt: dial(t, b), redis: dial(t, r)}
	if proto == 3 {
		p.basalt.do("HELLO", "3")
		p.redis.do("HELLO", "3")
	}
	p.basalt.do("FLUSHALL")
	p.redis.do("FLUSHALL")
	return p
}

// same runs args on both servers and fails the test unless the raw replies
// are equal.
func (p *bitsPair) same(args ...string) string {
	p.t.Helper()
	got, want := p.basalt.do(args...), p.redis.do(args...)
	p.history = append(p.history, strconv.Quote(strings.Join(args, " ")))
	if got != want {
		from := max(0, len(p.history)-12)
		p.t.Fatalf("%q\nbasalt:       %q\nredis-server: %q\nlast commands:\n%s", args, abbreviated(got), abbreviated(want), strings.Join(p.history[from:], "\n"))
	}
	return got
}

// TestBitsDiff runs the fixed cases, then the random streams.
func TestBitsDiff(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	cases := readCases(t, "testdata/bits_diff.txt")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("cases/RESP%d", proto), func(t *testing.T) {
			p := newBitsPair(t, b, r, proto)
			for _, args := range cases {
				p.same(args...)
			}
			t.Logf("%d commands, same replies", len(cases))
		})
	}
	seeds, steps := diffSeeds(1, 2, 3, 4), diffSteps(1500)
	for _, seed := range seeds {
		proto := 2 + int(seed%2)
		t.Run(fmt.Sprintf("random/seed=%d/RESP%d", seed, proto), func(t *testing.T) {
			p := newBitsPair(t, b, r, proto)
			g := &bitsGen{r: rand.New(rand.NewSource(seed))}
			kinds := map[byte]int{}
			for i := 0; i < steps; i++ {
				kinds[p.same(g.next()...)[0]]++
			}
			t.Logf("%d commands, same replies: %d errors, %d integers, %d strings, %d arrays, %d nulls",
				steps, kinds['-'], kinds[':'], kinds['$'], kinds['*'], kinds['_'])
			// The values built, read whole.
			for _, k := range bitKeys {
				p.same("GET", k)
			}
		})
	}
}

func diffSeeds(def ...int64) []int64 {
	if s := os.Getenv("DIFF_SEED"); s != "" {
		n, _ := strconv.ParseInt(s, 10, 64)
		return []int64{n}
	}
	return def
}

func diffSteps(def int) int {
	if s := os.Getenv("DIFF_STEPS"); s != "" {
		n, _ := strconv.Atoi(s)
		return n
	}
	return def
}

// bitKeys are the keys of the random streams: b* are made by SETBIT,
// BITOP and BITFIELD (bitmaps in Basalt), s* by SET too (strings); h is a
// hash, for the type errors.
var bitKeys = []string{"b0", "b1", "b2", "s0", "s1"}

type bitsGen struct{ r *rand.Rand }

func (g *bitsGen) pick(s ...string) string { return s[g.r.Intn(len(s))] }

func (g *bitsGen) key() string {
	if g.r.Intn(30) == 0 {
		return g.pick("h", "nokey")
	}
	return bitKeys[g.r.Intn(len(bitKeys))]
}

// offset draws a bit offset: mostly within the first segments, sometimes
// around segment boundaries further out, sometimes invalid.
func (g *bitsGen) offset() string {
	switch g.r.Intn(12) {
	case 0:
		return strconv.Itoa(8192*g.r.Intn(40) - 1 + g.r.Intn(3))
	case 1:
		return strconv.Itoa(g.r.Intn(1 << 20))
	case 2:
		return g.pick("-1", "x", "4294967296", "1.5")
	}
	return strconv.Itoa(g.r.Intn(20000))
}

// index draws a BITCOUNT/BITPOS range end, in bytes or bits.
func (g *bitsGen) index() string {
	switch g.r.Intn(6) {
	case 0:
		return strconv.Itoa(-g.r.Intn(3000) - 1)
	case 1:
		return g.pick("0", "-1", "9223372036854775807", "-9223372036854775808")
	case 2:
		return strconv.Itoa(g.r.Intn(150000))
	}
	return strconv.Itoa(g.r.Intn(3000))
}

func (g *bitsGen) unit() []string {
	switch g.r.Intn(8) {
	case 0, 1, 2:
		return []string{"BIT"}
	case 3:
		return []string{"BYTE"}
	case 4:
		return []string{g.pick("bit", "byte", "bits")}
	}
	return nil
}

func (g *bitsGen) fieldType() string {
	if g.r.Intn(40) == 0 {
		return g.pick("u64", "i65", "u0", "x8")
	}
	if g.r.Intn(2) == 0 {
		return "i" + strconv.Itoa(1+g.r.Intn(64))
	}
	return "u" + strconv.Itoa(1+g.r.Intn(63))
}

func (g *bitsGen) fieldOffset() string {
	if g.r.Intn(4) == 0 {
		return "#" + strconv.Itoa(g.r.Intn(300))
	}
	return strconv.Itoa(g.r.Intn(9000))
}

func (g *bitsGen) fieldValue() string {
	switch g.r.Intn(5) {
	case 0:
		return g.pick("9223372036854775807", "-9223372036854775808", "-1", "0", "1")
	case 1:
		return strconv.FormatInt(g.r.Int63()-g.r.Int63(), 10)
	}
	return strconv.Itoa(g.r.Intn(600) - 300)
}

func (g *bitsGen) bitfieldOps(readOnly bool) []string {
	var out []string
	for n := g.r.Intn(5); n >= 0; n-- {
		switch op := g.r.Intn(7); {
		case op <= 2 || readOnly && g.r.Intn(8) != 0:
			out = append(out, g.pick("GET", "get"), g.fieldType(), g.fieldOffset())
		case op == 3:
			out = append(out, "OVERFLOW", g.pick("WRAP", "SAT", "FAIL", "sat", "fail"))
		case op == 4:
			out = append(out, "SET", g.fieldType(), g.fieldOffset(), g.fieldValue())
		default:
			out = append(out, g.pick("INCRBY", "incrby"), g.fieldType(), g.fieldOffset(), g.fieldValue())
		}
	}
	return out
}

func (g *bitsGen) next() []string {
	k := g.key()
	switch g.r.Intn(30) {
	case 0, 1, 2, 3, 4, 5:
		return []string{"SETBIT", k, g.offset(), g.pick("1", "1", "0", "2")}
	case 6, 7:
		return []string{"GETBIT", k, g.offset()}
	case 8, 9, 10:
		cmd := []string{"BITCOUNT", k}
		if g.r.Intn(4) != 0 {
			cmd = append(append(cmd, g.index(), g.index()), g.unit()...)
		}
		return cmd
	case 11, 12, 13, 14:
		cmd := []string{"BITPOS", k, g.pick("0", "1", "1", "0", "2")}
		switch g.r.Intn(4) {
		case 1:
			cmd = append(cmd, g.index())
		case 2:
			cmd = append(cmd, g.index(), g.index())
		case 3:
			cmd = append(append(cmd, g.index(), g.index()), g.unit()...)
		}
		return cmd
	case 15, 16:
		op := g.pick("AND", "OR", "XOR", "NOT", "and")
		dst := bitKeys[g.r.Intn(3)] // the b keys
		cmd := []string{"BITOP", op, dst, g.key()}
		if op != "NOT" || g.r.Intn(10) == 0 {
			for n := g.r.Intn(3); n > 0; n-- {
				cmd = append(cmd, g.key())
			}
		}
		return cmd
	case 17, 18, 19:
		return append([]string{"BITFIELD", k}, g.bitfieldOps(false)...)
	case 20:
		return append([]string{"BITFIELD_RO", k}, g.bitfieldOps(true)...)
	case 21:
		return []string{"SET", g.pick("s0", "s1"), g.pick("", "a", "foobar", "\xff\x00\x0f", strings.Repeat("x\x81", 700))}
	case 22:
		return []string{"GETRANGE", k, g.index(), g.index()}
	case 23:
		return []string{"STRLEN", k}
	case 24:
		return []string{"DEL", k}
	case 25:
		return []string{g.pick("GET", "EXISTS", "PERSIST"), k}
	case 26:
		return []string{"EXPIRE", k, "1000"}
	case 27:
		return []string{"HSET", "h", "f", "v"}
	}
	return []string{"BITCOUNT", k, "0", "-1", "BIT"}
}

// TestHyperLogLogDiff: seeded random PFADD, PFCOUNT and PFMERGE streams,
// compared byte for byte as above.
func TestHyperLogLogDiff(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	for _, seed := range diffSeeds(1, 2) {
		proto := 2 + int(seed%2)
		t.Run(fmt.Sprintf("seed=%d/RESP%d", seed, proto), func(t *testing.T) {
			p := newBitsPair(t, b, r, proto)
			rnd := rand.New(rand.NewSource(seed))
			keys := []string{"p0", "p1", "p2", "nokey", "str", "h"}
			p.same("SET", "str", "x")
			p.same("HSET", "h", "f", "v")
			key := func() string { return keys[rnd.Intn(len(keys))] }
			for i := 0; i < diffSteps(1500); i++ {
				var cmd []string
				switch rnd.Intn(10) {
				case 0, 1, 2, 3, 4:
					cmd = []string{"PFADD", key()}
					// A few elements, or many: Redis turns dense past
					// 3000 bytes of sparse registers.
					n := rnd.Intn(6)
					if rnd.Intn(15) == 0 {
						n = rnd.Intn(3000)
					}
					for ; n > 0; n-- {
						cmd = append(cmd, strconv.Itoa(rnd.Intn(1<<uint(1+rnd.Intn(20)))))
					}
				case 5, 6, 7:
					cmd = []string{"PFCOUNT", key()}
					for n := rnd.Intn(3); n > 0; n-- {
						cmd = append(cmd, key())
					}
				case 8:
					cmd = []string{"PFMERGE", key()}
					for n := rnd.Intn(3); n > 0; n-- {
						cmd = append(cmd, key())
					}
				default:
					cmd = []string{[]string{"DEL", "EXISTS", "PERSIST"}[rnd.Intn(3)], key()}
				}
				p.same(cmd...)
			}
		})
	}
}

// TestHyperLogLogEstimates adds 1k, 100k and 1M distinct elements to a
// HyperLogLog on each server, pipelined, and compares PFCOUNT after each
// step: the registers are Redis's, so the estimate must be too, to the
// unit (Redis's sparse encoding holds the same registers as its dense
// one). Unions of several keys (PFCOUNT of many, PFMERGE) are compared
// as well.
func TestHyperLogLogEstimates(t *testing.T) {
	start := time.Now()
	b, r := startBasalt(t), startRedis(t)
	bc, rc := dial(t, b), dial(t, r)
	const perCommand = 1000
	added := 0
	addUpTo := func(key string, total int) {
		var cmds strings.Builder
		n := 0
		for added < total {
			cmds.WriteString("*" + strconv.Itoa(perCommand+2) + "\r\n$5\r\nPFADD\r\n$" + strconv.Itoa(len(key)) + "\r\n" + key + "\r\n")
			for i := 0; i < perCommand; i++ {
				e := "elem:" + strconv.Itoa(added)
				cmds.WriteString("$" + strconv.Itoa(len(e)) + "\r\n" + e + "\r\n")
				added++
			}
			n++
		}
		for _, c := range []*rawConn{bc, rc} {
			c.send(cmds.String())
		}
		for _, c := range []*rawConn{bc, rc} {
			for i := 0; i < n; i++ {
				if rep := c.reply(); rep != ":1\r\n" && rep != ":0\r\n" {
					t.Fatalf("PFADD: %q", rep)
				}
			}
		}
	}
	same := func(args ...string) string {
		got, want := bc.do(args...), rc.do(args...)
		if got != want {
			t.Fatalf("%q after %d elements: basalt %q, redis-server %q", args, added, got, want)
		}
		return got
	}
	for _, total := range []int{1000, 100000, 1000000} {
		addUpTo("hll", total)
		t.Logf("%d elements: PFCOUNT %s", total, strings.TrimSpace(same("PFCOUNT", "hll")))
	}
	// Sixteen keys of 5000 elements each, overlapping by half.
	for k := 0; k < 16; k++ {
		added = k * 2500
		addUpTo("part"+strconv.Itoa(k), added+5000)
	}
	parts := []string{"PFCOUNT"}
	for k := 0; k < 16; k++ {
		parts = append(parts, "part"+strconv.Itoa(k))
	}
	t.Logf("16 keys: PFCOUNT %s", strings.TrimSpace(same(parts...)))
	same(append([]string{"PFMERGE", "merged"}, parts[1:]...)...)
	same("PFCOUNT", "merged")
	same("PFCOUNT", "merged", "hll")
	same("PFMERGE", "hll", "merged")
	same("PFCOUNT", "hll")
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %s, over the 20 s budget", d)
	}
}
