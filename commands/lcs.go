package commands

import (
	"errors"
	"math"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/storage"
)

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN]
func cmdLCS(c *executor.Ctx) {
	a, b, ok := lcsInputs(c)
	if !ok {
		return
	}
	var getLen, getIdx, withMatchLen bool
	var minMatchLen int64
	for i := 3; i < len(c.Args); i++ {
		switch {
		case c.Is(i, "idx"):
			getIdx = true
		case c.Is(i, "len"):
			getLen = true
		case c.Is(i, "withmatchlen"):
			withMatchLen = true
		case c.Is(i, "minmatchlen") && i+1 < len(c.Args):
			n, ok := c.Int(i + 1)
			if !ok {
				return
			}
			minMatchLen = max(n, 0)
			i++
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	if getIdx && getLen {
		c.ErrorString("ERR If you want both the length and indexes, please just use IDX.")
		return
	}
	if int64(len(a)) >= math.MaxUint32-1 || int64(len(b)) >= math.MaxUint32-1 {
		c.ErrorString("ERR String too long for LCS") // the table holds uint32 lengths
		return
	}
	// The table has (len(a)+1)*(len(b)+1) four-byte cells; compared by
	// division, since with a large proto-max-bulk-len the product of two
	// string lengths can overflow.
	if rows, cols := int64(len(a)+1), int64(len(b)+1); rows > c.Env.Config.ProtoMaxBulkLen.Get()/4/cols {
		c.ErrorString("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
		return
	}
	l := newLCSTable(a, b)
	if getLen {
		c.W.Int(int64(l.at(len(a), len(b))))
		return
	}
	if !getIdx {
		str, _ := l.walk(0, false)
		c.W.Bulk(str)
		return
	}
	_, matches := l.walk(minMatchLen, true)
	c.W.Map(2)
	c.W.BulkString("matches")
	c.W.Array(len(matches))
	for _, m := range matches {
		if withMatchLen {
			c.W.Array(3)
		} else {
			c.W.Array(2)
		}
		c.W.Array(2)
		c.W.Int(m.aStart)
		c.W.Int(m.aEnd)
		c.W.Array(2)
		c.W.Int(m.bStart)
		c.W.Int(m.bEnd)
		if withMatchLen {
			c.W.Int(m.aEnd - m.aStart + 1)
		}
	}
	c.W.BulkString("len")
	c.W.Int(int64(l.at(len(a), len(b))))
}

// lcsInputs reads both keys; missing keys are empty strings.
func lcsInputs(c *executor.Ctx) (a, b []byte, ok bool) {
	a, _, errA := c.DB.Get(c.Args[1])
	b, _, errB := c.DB.Get(c.Args[2])
	for _, err := range []error{errA, errB} {
		if errors.Is(err, storage.ErrWrongType) {
			c.ErrorString("ERR The specified keys must contain string values")
			return nil, nil, false
		}
		if !c.OK(err) {
			return nil, nil, false
		}
	}
	return a, b, true
}

// lcsTable is the dynamic-programming table of LCS lengths of prefixes.
type lcsTable struct {
	a, b  []byte
	cells []uint32
}

func newLCSTable(a, b []byte) *lcsTable {
	t := &lcsTable{a: a, b: b, cells: make([]uint32, (len(a)+1)*(len(b)+1))}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				t.set(i, j, t.at(i-1, j-1)+1)
			} else {
				t.set(i, j, max(t.at(i-1, j), t.at(i, j-1)))
			}
		}
	}
	return t
}

func (t *lcsTable) at(i, j int) uint32     { return t.cells[j+i*(len(t.b)+1)] }
func (t *lcsTable) set(i, j int, v uint32) { t.cells[j+i*(len(t.b)+1)] = v }

type lcsMatch struct{ aStart, aEnd, bStart, bEnd int64 }

// walk goes back from the end of both strings as Redis does, building the
// common subsequence and, with ranges, the matched ranges in the same
// order and with the same boundaries as redis-server reports them.
func (t *lcsTable) walk(minMatchLen int64, ranges bool) ([]byte, []lcsMatch) {
	alen, blen := len(t.a), len(t.b)
	idx := int(t.at(alen, blen))
	result := make([]byte, idx)
	var matches []lcsMatch
	unset := int64(alen)
	aStart, aEnd, bStart, bEnd := unset, int64(0), int64(0), int64(0)
	i, j := alen, blen
	for i > 0 && j > 0 {
		emit := false
		if t.a[i-1] == t.b[j-1] {
			result[idx-1] = t.a[i-1]
			if aStart == unset {
				aStart, aEnd, bStart, bEnd = int64(i-1), int64(i-1), int64(j-1), int64(j-1)
			} else if aStart == int64(i) && bStart == int64(j) {
				aStart--
				bStart--
			} else {
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if t.at(i-1, j) > t.at(i, j-1) {
				i--
			} else {
				j--
			}
			if aStart != unset {
				emit = true
			}
		}
		if emit {
			if ranges && (minMatchLen == 0 || aEnd-aStart+1 >= minMatchLen) {
				matches = append(matches, lcsMatch{aStart, aEnd, bStart, bEnd})
			}
			aStart = unset
		}
	}
	return result, matches
}
