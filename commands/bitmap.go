package commands

import (
	"strings"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/types/bitmap"
)

// The bit commands, on strings and on Kvrocks's bitmaps (types/bitmap).
// Arguments are checked, and keys looked up, in the order redis-server 7.0
// does, so that every error is the one it gives.

func init() {
	executor.Register(
		&executor.Command{Name: "setbit", Arity: 4, Flags: executor.Write, FirstKey: 1, LastKey: 1, Handler: cmdSetBit,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "setbit", Shape: executor.OnEach}},
		&executor.Command{Name: "getbit", Arity: 3, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdGetBit},
		&executor.Command{Name: "bitcount", Arity: -2, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdBitCount},
		&executor.Command{Name: "bitpos", Arity: -3, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdBitPos},
		&executor.Command{Name: "bitop", Arity: -4, Flags: executor.Write, FirstKey: 2, LastKey: -1, Handler: cmdBitOp,
			Events:  &executor.KeyEvents{Class: config.NotifyString, Event: "set", Shape: executor.OnStore, Dest: executor.DestFirstKey},
			DocArgs: bitopDocArgs},
		&executor.Command{Name: "bitfield", Arity: -2, Flags: executor.Write, FirstKey: 1, LastKey: 1, Handler: cmdBitField, KeyFlags: bitfieldKeyFlags,
			Events: &executor.KeyEvents{Class: config.NotifyString, Event: "setbit", Shape: executor.OnEach}},
		&executor.Command{Name: "bitfield_ro", Arity: -2, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdBitFieldRO},
	)
	executor.AddErrorReply(bitmap.ErrTooLarge, "ERR Operation aborted: The size of the bitmap string exceeds the configuration item max-bitmap-to-string-mb")
}

// bitopDocArgs documents BITOP's arguments as Redis 8.2 does: the
// operation one of its words, DIFF, DIFF1, ANDOR and ONE among them.
func bitopDocArgs(args []any) []any {
	ops := []any{docToken("and", "AND"), docToken("or", "OR"), docToken("xor", "XOR"), docToken("not", "NOT")}
	for _, op := range []string{"DIFF", "DIFF1", "ANDOR", "ONE"} {
		ops = append(ops, since(docToken(strings.ToLower(op), op), "8.2.0"))
	}
	args[docArgAt(args, "operation")] = append(doc("name", "operation", "type", "oneof"), "$arguments", docArgs(ops...))
	return args
}

// bitfieldKeyFlags are BITFIELD's key flags: SET and INCRBY write.
func bitfieldKeyFlags(args [][]byte) []string {
	for _, a := range args[2:] {
		if strings.EqualFold(string(a), "set") || strings.EqualFold(string(a), "incrby") {
			return []string{"RW", "access", "update"}
		}
	}
	return []string{"RO", "access"}
}

const (
	errBitOffset = "ERR bit offset is not an integer or out of range"
	errBitValue  = "ERR bit is not an integer or out of range"
	errBitfield  = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
)

// bitOffset parses argument i as a bit offset (Redis's
// getBitOffsetFromArgument): with hash, "#n" means n fields of width bits.
// Offsets whose byte lies past proto-max-bulk-len are refused.
func bitOffset(c *executor.Ctx, i int, hash bool, bits uint) (uint64, bool) {
	p := c.Args[i]
	useHash := hash && bits > 0 && len(p) > 0 && p[0] == '#'
	if useHash {
		p = p[1:]
	}
	n, ok := num.ParseInt(p)
	if ok && useHash {
		n *= int64(bits) // wraps as Redis's does
	}
	if !ok || n < 0 || n>>3 >= c.Env.Config.ProtoMaxBulkLen.Get() {
		c.ErrorString(errBitOffset)
		return 0, false
	}
	return uint64(n), true
}

// SETBIT key offset value
func cmdSetBit(c *executor.Ctx) {
	offset, ok := bitOffset(c, 2, false, 0)
	if !ok {
		return
	}
	on, ok := num.ParseInt(c.Args[3])
	if !ok || on&^1 != 0 {
		c.ErrorString(errBitValue)
		return
	}
	old, err := bitmap.SetBit(c.DB, c.Args[1], offset, on == 1)
	if c.OK(err) {
		c.W.Int(int64(old))
	}
}

// GETBIT key offset
func cmdGetBit(c *executor.Ctx) {
	offset, ok := bitOffset(c, 2, false, 0)
	if !ok {
		return
	}
	r, err := bitmap.Read(c.DB, c.Args[1])
	if !c.OK(err) {
		return
	}
	if r == nil {
		c.W.Int(0)
		return
	}
	defer r.Close()
	bit, err := r.Bit(offset)
	if c.OK(err) {
		c.W.Int(int64(bit))
	}
}

// bitRange is a BITCOUNT or BITPOS range resolved to bytes, with the bits
// of the first and last byte outside it (BIT ranges).
type bitRange struct {
	start, end        int64
	firstNeg, lastNeg byte
}

// resolveBitRange turns start and end, indexes of bytes or (isBit) of
// bits where negative ones count from the end, into a byte range of a
// value of length n, as Redis does.
func resolveBitRange(start, end, n int64, isBit bool) bitRange {
	total := n
	if isBit {
		total <<= 3
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start, end = max(start, 0), max(end, 0)
	if end >= total {
		end = total - 1
	}
	r := bitRange{start: start, end: end}
	if isBit && start <= end {
		r.firstNeg = ^byte(1<<(8-start&7) - 1)
		r.lastNeg = byte(1<<(7-end&7) - 1)
		r.start, r.end = start>>3, end>>3
	}
	return r
}

// unit parses BYTE or BIT at argument i; false after replying a syntax
// error.
func unit(c *executor.Ctx, i int) (isBit, ok bool) {
	switch {
	case c.Is(i, "bit"):
		return true, true
	case c.Is(i, "byte"):
		return false, true
	}
	c.ErrorString(executor.ErrSyntax)
	return false, false
}

// BITCOUNT key [start end [BYTE | BIT]]
func cmdBitCount(c *executor.Ctx) {
	// Redis 7.0 looks the key up before it reads the range.
	r, err := bitmap.Read(c.DB, c.Args[1])
	if !c.OK(err) {
		return
	}
	if r == nil {
		c.W.Int(0)
		return
	}
	defer r.Close()
	var rg bitRange
	switch len(c.Args) {
	case 4, 5:
		start, ok := c.Int(2)
		if !ok {
			return
		}
		end, ok := c.Int(3)
		if !ok {
			return
		}
		// An empty range of negative indexes answers before the unit is
		// read, as in Redis 7.0.
		if start < 0 && end < 0 && start > end {
			c.W.Int(0)
			return
		}
		isBit := false
		if len(c.Args) == 5 {
			if isBit, ok = unit(c, 4); !ok {
				return
			}
		}
		rg = resolveBitRange(start, end, r.Len(), isBit)
	case 2:
		rg = bitRange{start: 0, end: r.Len() - 1}
	default:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	n, err := r.Count(rg.start, rg.end, rg.firstNeg, rg.lastNeg)
	if c.OK(err) {
		c.W.Int(n)
	}
}

// BITPOS key bit [start [end [BYTE | BIT]]]
func cmdBitPos(c *executor.Ctx) {
	bit, ok := c.Int(2)
	if !ok {
		return
	}
	if bit != 0 && bit != 1 {
		c.ErrorString("ERR The bit argument must be 1 or 0.")
		return
	}
	r, err := bitmap.Read(c.DB, c.Args[1])
	if !c.OK(err) {
		return
	}
	if r == nil {
		// An absent key is an endless run of zeros.
		c.W.Int(-bit)
		return
	}
	defer r.Close()
	var rg bitRange
	endGiven := false
	switch n := len(c.Args); n {
	case 4, 5, 6:
		start, ok := c.Int(3)
		if !ok {
			return
		}
		isBit := false
		if n == 6 {
			if isBit, ok = unit(c, 5); !ok {
				return
			}
		}
		end := r.Len() - 1
		if n >= 5 {
			if end, ok = c.Int(4); !ok {
				return
			}
			endGiven = true
		}
		rg = resolveBitRange(start, end, r.Len(), isBit)
	case 3:
		rg = bitRange{start: 0, end: r.Len() - 1}
	default:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	if rg.start > rg.end {
		c.W.Int(-1)
		return
	}
	pos, err := r.Pos(int(bit), rg.start, rg.end, rg.firstNeg, rg.lastNeg)
	if !c.OK(err) {
		return
	}
	if pos < 0 && bit == 0 && !endGiven {
		// Without an end the value counts as padded with zeros: the first
		// clear bit is the one after it.
		pos = (rg.end + 1) * 8
	}
	c.W.Int(pos)
}

// BITOP <AND | OR | XOR | NOT | DIFF | DIFF1 | ANDOR | ONE> destkey key [key ...]
func cmdBitOp(c *executor.Ctx) {
	op, ok := bitOps[strings.ToLower(string(c.Args[1]))]
	switch {
	case !ok:
		c.ErrorString(executor.ErrSyntax)
		return
	case op == bitmap.Not && len(c.Args) != 4:
		c.ErrorString("ERR BITOP NOT must be called with a single source key.")
		return
	case (op == bitmap.Diff || op == bitmap.Diff1 || op == bitmap.AndOr) && len(c.Args) < 5:
		c.ErrorString("ERR BITOP " + strings.ToUpper(string(c.Args[1])) + " must be called with at least two source keys.")
		return
	}
	n, err := bitmap.Op(c.DB, op, c.Args[1], c.Args[2], c.Args[3:])
	if c.OK(err) {
		c.W.Int(n)
	}
}

// bitOps are BITOP's operations by name.
var bitOps = map[string]bitmap.OpKind{
	"and": bitmap.And, "or": bitmap.Or, "xor": bitmap.Xor, "not": bitmap.Not,
	"diff": bitmap.Diff, "diff1": bitmap.Diff1, "andor": bitmap.AndOr, "one": bitmap.One,
}

// BITFIELD key [GET encoding offset | [OVERFLOW <WRAP | SAT | FAIL>] <SET encoding offset value | INCRBY encoding offset increment> ...]
func cmdBitField(c *executor.Ctx) { bitField(c, false) }

// BITFIELD_RO key [GET encoding offset ...]
func cmdBitFieldRO(c *executor.Ctx) { bitField(c, true) }

func bitField(c *executor.Ctx, readOnly bool) {
	ops, ok := bitFieldOps(c)
	if !ok {
		return
	}
	if readOnly {
		for _, op := range ops {
			if op.Kind != bitmap.FieldGet {
				c.ErrorString("ERR BITFIELD_RO only supports the GET subcommand")
				return
			}
		}
	}
	res, err := bitmap.Field(c.DB, c.Args[1], ops)
	if !c.OK(err) {
		return
	}
	c.W.Array(len(res))
	for _, r := range res {
		if r.Nil {
			c.W.Null()
		} else {
			c.W.Int(r.Value)
		}
	}
}

// bitFieldOps parses BITFIELD's operations as Redis's bitfieldGeneric
// does, replying the first error.
func bitFieldOps(c *executor.Ctx) ([]bitmap.FieldOp, bool) {
	var ops []bitmap.FieldOp
	overflow := bitmap.OverflowWrap
	for j := 2; j < len(c.Args); j++ {
		rem := len(c.Args) - j - 1
		var kind bitmap.FieldKind
		switch {
		case c.Is(j, "get") && rem >= 2:
			kind = bitmap.FieldGet
		case c.Is(j, "set") && rem >= 3:
			kind = bitmap.FieldSet
		case c.Is(j, "incrby") && rem >= 3:
			kind = bitmap.FieldIncrBy
		case c.Is(j, "overflow") && rem >= 1:
			j++
			switch {
			case c.Is(j, "wrap"):
				overflow = bitmap.OverflowWrap
			case c.Is(j, "sat"):
				overflow = bitmap.OverflowSat
			case c.Is(j, "fail"):
				overflow = bitmap.OverflowFail
			default:
				c.ErrorString("ERR Invalid OVERFLOW type specified")
				return nil, false
			}
			continue
		default:
			c.ErrorString(executor.ErrSyntax)
			return nil, false
		}
		op := bitmap.FieldOp{Kind: kind, Overflow: overflow}
		t := c.Args[j+1]
		var ok bool
		if len(t) > 0 && (t[0] == 'i' || t[0] == 'u') {
			op.Signed = t[0] == 'i'
			var n int64
			n, ok = num.ParseInt(t[1:])
			ok = ok && n >= 1 && (n <= 63 || (op.Signed && n == 64))
			op.Bits = uint(n)
		}
		if !ok {
			c.ErrorString(errBitfield)
			return nil, false
		}
		if op.Offset, ok = bitOffset(c, j+2, true, op.Bits); !ok {
			return nil, false
		}
		if kind != bitmap.FieldGet {
			if op.Value, ok = c.Int(j + 3); !ok {
				return nil, false
			}
			j++
		}
		j += 2
		ops = append(ops, op)
	}
	return ops, true
}
