package rdb

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strconv"

	"github.com/basaltdb/basalt/num"
)

// Encode returns the DUMP payload of v: what redis-server 7.0 with
// rdbcompression off writes for the same value, given Redis's encoding
// thresholds lim. Where Redis's bytes depend on the value's history
// rather than its content (the order of a hash table, the order a small
// hash's fields were added in, where a list's nodes were split), Encode
// writes the order it is given and packs a list's nodes as RPUSH fills
// them.
func Encode(v *Value, lim Limits) []byte {
	var out []byte
	version := uint16(Version)
	switch v.Kind {
	case String:
		out = appendString(append(out, typeString), v.Str)
	case List:
		out = appendList(out, v.Elems, lim.ListMaxListpackSize)
	case Set:
		out = appendSet(out, v.Elems, lim)
	case Hash:
		if hasTTL(v.FieldExpires) {
			out = appendHashWithTTLs(out, v.Elems, v.FieldExpires)
			version = fieldTTLVersion
		} else {
			out = appendHash(out, v.Elems, lim)
		}
	case ZSet:
		out = appendZSet(out, v.Elems, v.Scores, lim)
	case Stream:
		out = appendStream(out, v.Entries, v.Stream, lim)
	}
	out = binary.LittleEndian.AppendUint16(out, version)
	return binary.LittleEndian.AppendUint64(out, checksum(out))
}

// appendLen appends an RDB length: 6 bits, 14 bits (big-endian), or a
// marker byte and 32 or 64 bits big-endian.
func appendLen(dst []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(dst, byte(n))
	case n < 1<<14:
		return append(dst, 0x40|byte(n>>8), byte(n))
	case n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(dst, 0x80), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(dst, 0x81), n)
}

// appendString appends a string as Redis's rdbSaveRawString does without
// compression: an integer of at most 32 bits written as one (when the
// string is that integer's canonical form), else length and bytes.
func appendString(dst, s []byte) []byte {
	if len(s) <= 11 {
		if v, ok := num.ParseInt(s); ok {
			switch {
			case v >= math.MinInt8 && v <= math.MaxInt8:
				return append(dst, 0xc0, byte(v))
			case v >= math.MinInt16 && v <= math.MaxInt16:
				return binary.LittleEndian.AppendUint16(append(dst, 0xc1), uint16(v))
			case v >= math.MinInt32 && v <= math.MaxInt32:
				return binary.LittleEndian.AppendUint32(append(dst, 0xc2), uint32(v))
			}
		}
	}
	return append(appendLen(dst, uint64(len(s))), s...)
}

// Quicklist node sizing, Redis 7.0's quicklist.c: a node takes another
// element while its listpack stays within its size class (fill < 0) or,
// up to 8 KB, its element count (fill > 0), counting each element's bytes
// plus an overestimate of its entry's overhead. An element of 1 GB or more
// gets a plain node of its own.
const (
	nodeSafetyLimit   = 8192
	nodeEntryOverhead = 8
	largeElement      = 1 << 30
	fillMax           = 1 << 15
)

var nodeSizeClasses = [...]int{4096, 8192, 16384, 32768, 65536}

// nodeTakes reports whether a packed node of count elements and size
// bytes takes one more element of elem bytes.
func nodeTakes(size, count, elem int, fill int64) bool {
	if elem >= largeElement {
		return false
	}
	newSize := size + elem + nodeEntryOverhead
	if fill < 0 && newSize <= nodeSizeClasses[-fill-1] {
		return true
	}
	return newSize <= nodeSafetyLimit && int64(count) < fill
}

// appendList appends a list as a quicklist of listpack nodes (type 18),
// filled as successive RPUSHes fill them.
func appendList(dst []byte, elems [][]byte, fill int64) []byte {
	fill = min(max(fill, -int64(len(nodeSizeClasses))), fillMax)
	type node struct {
		lp    *listpack
		plain []byte
	}
	var nodes []node
	for _, e := range elems {
		if n := len(nodes); n > 0 && nodes[n-1].lp != nil && nodeTakes(nodes[n-1].lp.size(), nodes[n-1].lp.count, len(e), fill) {
			nodes[n-1].lp.add(e)
			continue
		}
		if len(e) >= largeElement {
			nodes = append(nodes, node{plain: e})
			continue
		}
		lp := newListpack()
		lp.add(e)
		nodes = append(nodes, node{lp: lp})
	}
	dst = appendLen(append(dst, typeListQuicklist2), uint64(len(nodes)))
	for _, n := range nodes {
		if n.lp == nil {
			dst = appendString(appendLen(dst, containerPlain), n.plain)
			continue
		}
		dst = appendString(appendLen(dst, containerPacked), n.lp.finish())
	}
	return dst
}

// appendSet appends a set: an intset (type 11) when every member is an
// integer and there are at most set-max-intset-entries, else the members
// (type 2).
func appendSet(dst []byte, members [][]byte, lim Limits) []byte {
	if int64(len(members)) <= lim.SetMaxIntsetEntries {
		ints := make([]int64, 0, len(members))
		for _, m := range members {
			v, ok := num.ParseInt(m)
			if !ok {
				break
			}
			ints = append(ints, v)
		}
		if len(ints) == len(members) {
			slices.Sort(ints)
			return appendString(append(dst, typeSetIntset), appendIntset(nil, ints))
		}
	}
	dst = appendLen(append(dst, typeSet), uint64(len(members)))
	for _, m := range members {
		dst = appendString(dst, m)
	}
	return dst
}

// appendHash appends a hash: a listpack of fields and values (type 16)
// within hash-max-listpack-entries and -value, else the pairs (type 4).
func appendHash(dst []byte, pairs [][]byte, lim Limits) []byte {
	small := int64(len(pairs)/2) <= lim.HashMaxListpackEntries
	for _, s := range pairs {
		small = small && int64(len(s)) <= lim.HashMaxListpackValue
	}
	if small {
		lp := newListpack()
		for _, s := range pairs {
			lp.add(s)
		}
		return appendString(append(dst, typeHashListpack), lp.finish())
	}
	dst = appendLen(append(dst, typeHash), uint64(len(pairs)/2))
	for _, s := range pairs {
		dst = appendString(dst, s)
	}
	return dst
}

// appendZSet appends a sorted set: a listpack of members and scores in
// score order (type 17) within zset-max-listpack-entries and -value, else
// members and binary scores from the highest to the lowest (type 5), the
// order Redis walks its skiplist in.
func appendZSet(dst []byte, members [][]byte, scores []float64, lim Limits) []byte {
	order := make([]int, len(members))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(scores[a], scores[b]); c != 0 {
			return c
		}
		return bytes.Compare(members[a], members[b])
	})
	small := int64(len(members)) <= lim.ZSetMaxListpackEntries
	for _, m := range members {
		small = small && int64(len(m)) <= lim.ZSetMaxListpackValue
	}
	if small {
		lp := newListpack()
		for _, i := range order {
			lp.add(members[i])
			lp.add(formatScore(scores[i]))
		}
		return appendString(append(dst, typeZSetListpack), lp.finish())
	}
	dst = appendLen(append(dst, typeZSet2), uint64(len(members)))
	for _, i := range slices.Backward(order) {
		dst = appendString(dst, members[i])
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(scores[i]))
	}
	return dst
}

// formatScore is Redis 7.0's d2string, which writes a score into a
// listpack: an integer within ±2^52 as one, else %.17g.
func formatScore(f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return []byte("inf")
	case math.IsInf(f, -1):
		return []byte("-inf")
	case f == 0 && math.Signbit(f):
		return []byte("-0")
	case f > -(1<<52-1) && f < 1<<52 && f == math.Trunc(f):
		return strconv.AppendInt(nil, int64(f), 10)
	}
	return strconv.AppendFloat(nil, f, 'g', 17, 64)
}
