package it

import (
	"bytes"
	"math/rand"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
)

// bitOpModel computes BITOP op over sources (zero-padded to the longest)
// as REDIS-NEW.md §4 defines it, bit by bit from its table: X is the
// first source, the Ys the others.
func bitOpModel(op string, srcs [][]byte) []byte {
	size := 0
	for _, s := range srcs {
		size = max(size, len(s))
	}
	bit := func(s []byte, i int) bool { return i/8 < len(s) && s[i/8]&(0x80>>(i%8)) != 0 }
	out := make([]byte, size)
	for i := 0; i < size*8; i++ {
		x, anyY, count := bit(srcs[0], i), false, 0
		for j, s := range srcs {
			if bit(s, i) {
				count++
				if j > 0 {
					anyY = true
				}
			}
		}
		var set bool
		switch op {
		case "DIFF":
			set = x && !anyY
		case "DIFF1":
			set = !x && anyY
		case "ANDOR":
			set = x && anyY
		case "ONE":
			set = count == 1
		case "AND":
			set = count == len(srcs)
		case "OR":
			set = count > 0
		case "XOR":
			set = count%2 == 1
		}
		if set {
			out[i/8] |= 0x80 >> (i % 8)
		}
	}
	return out
}

// TestBitOpNewModel: BITOP DIFF, DIFF1, ANDOR and ONE (and AND, OR, XOR
// beside them) over random sources, some Kvrocks bitmaps of several
// segments made by SETBIT with segments left out, some strings, some
// missing, against bitOpModel over what GET answers for the sources.
func TestBitOpNewModel(t *testing.T) {
	c := startBasalt(t).client(t, 2)
	rng := rand.New(rand.NewSource(42))
	keys := []string{"k0", "k1", "k2", "k3", "k4", "k5"}
	ops := []string{"DIFF", "DIFF1", "ANDOR", "ONE", "AND", "OR", "XOR"}
	checked := 0
	for round := 0; round < 12; round++ {
		must(t, c.FlushAll(ctx).Err())
		pipe := c.Pipeline()
		for _, k := range keys {
			switch rng.Intn(4) {
			case 0: // missing
			case 1:
				b := make([]byte, rng.Intn(3000))
				rng.Read(b)
				pipe.Set(ctx, k, b, 0)
			default:
				// Bits clustered in a few of 4 segments (1 KiB each), so
				// that segments are missing here and there.
				for i := 0; i < 60; i++ {
					seg := []int{0, 2, 3}[rng.Intn(3)]
					pipe.SetBit(ctx, k, int64(seg*8192+rng.Intn(8192)), 1)
				}
			}
		}
		_, err := pipe.Exec(ctx)
		must(t, err)
		for _, op := range ops {
			for try := 0; try < 4; try++ {
				n := 2 + rng.Intn(3)
				if op == "ONE" {
					n = 1 + rng.Intn(4)
				}
				srcs := make([]string, n)
				vals := make([][]byte, n)
				for i := range srcs {
					srcs[i] = keys[rng.Intn(len(keys))]
					v, err := c.Get(ctx, srcs[i]).Bytes()
					if err != nil && err != redis.Nil {
						t.Fatal(err)
					}
					vals[i] = v
				}
				want := bitOpModel(op, vals)
				dst := "dst" + strconv.Itoa(rng.Intn(2))
				if rng.Intn(4) == 0 {
					dst = srcs[rng.Intn(n)] // overwrite a source
				}
				args := []any{"BITOP", op, dst}
				for _, s := range srcs {
					args = append(args, s)
				}
				got, err := c.Do(ctx, args...).Int64()
				if err != nil || got != int64(len(want)) {
					t.Fatalf("BITOP %s %s %v: %d %v, want %d", op, dst, srcs, got, err, len(want))
				}
				res, err := c.Get(ctx, dst).Bytes()
				if len(want) == 0 {
					if err != redis.Nil {
						t.Fatalf("BITOP %s %s %v: empty result left %q (%v)", op, dst, srcs, res, err)
					}
				} else if !bytes.Equal(res, want) {
					t.Fatalf("BITOP %s %s %v: result differs from the model (%d bytes, want %d)", op, dst, srcs, len(res), len(want))
				}
				checked++
			}
		}
	}
	t.Logf("%d BITOPs checked against the model", checked)
}
