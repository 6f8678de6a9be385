package tdigest

import (
	"math"
	"strconv"

	"github.com/basaltdb/basalt/reply"
)

// Replies as RedisBloom gives them (REDIS-NEW.md §0.4, §8): every double
// through RedisModule_ReplyWithDouble, which is a bulk string in RESP2
// and a double in RESP3, printed by Redis 7.2+'s d2string; ranks as
// integers; INFO as a map of simple-string labels to integers.

// AppendDouble appends f as Redis 7.2+ prints a double reply (d2string):
// nan, inf, -inf, 0 and -0; an integral value within ±(2^63−1)/2 as an
// integer; otherwise the shortest digits that read back as f (Redis's
// fpconv uses Grisu2, which in rare cases gives a longer string than the
// shortest Go finds), in plain decimal unless the exponent is far from
// the digits, then as d.ddde±x (1.5e-7, 1e+21).
func AppendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case f == 0 && math.Signbit(f):
		return append(dst, "-0"...)
	case f >= -math.MaxInt64/2 && f <= math.MaxInt64/2 && f == math.Trunc(f):
		return strconv.AppendInt(dst, int64(f), 10)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // d[.ddd]e±xx
	mant, exp := e, 0
	for i, c := range e {
		if c == 'e' {
			mant = e[:i]
			n, _ := strconv.Atoi(string(e[i+1:]))
			exp = n
			break
		}
	}
	digits := make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	return appendDigits(dst, digits, exp-(len(digits)-1))
}

// appendDigits writes the value digits·10^k as fpconv's emit_digits
// does: an integer with k zeros, a decimal when the point falls near the
// digits, else scientific notation with an unpadded exponent.
func appendDigits(dst, digits []byte, k int) []byte {
	n := len(digits)
	exp := k + n - 1 // the exponent of the first digit
	absExp := max(exp, -exp)
	switch {
	case k >= 0 && absExp < n+7:
		dst = append(dst, digits...)
		for range k {
			dst = append(dst, '0')
		}
		return dst
	case k < 0 && (k > -7 || absExp < 4):
		point := n + k // digits before the point
		if point <= 0 {
			dst = append(dst, '0', '.')
			for range -point {
				dst = append(dst, '0')
			}
			return append(dst, digits...)
		}
		dst = append(dst, digits[:point]...)
		dst = append(dst, '.')
		return append(dst, digits[point:]...)
	}
	dst = append(dst, digits[0])
	if n > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:]...)
	}
	dst = append(dst, 'e')
	if exp < 0 {
		dst = append(dst, '-')
	} else {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, int64(absExp), 10)
}

// WriteDouble writes a double reply: in RESP2 the bulk string of
// AppendDouble, in RESP3 a double. RESP3's text is the reply layer's
// (reply.Sink.Double, Redis 7.0's %.17g): the same value, but not
// RedisBloom's digits where the shortest form is shorter (0.1 goes out as
// 0.10000000000000001) until the Sink can write a double in the shortest
// form.
func WriteDouble(w reply.Sink, f float64) {
	if w.Protocol() == 3 {
		w.Double(f)
		return
	}
	var tmp [32]byte
	w.Bulk(AppendDouble(tmp[:0], f))
}

// WriteDoubles writes an array of double replies (QUANTILE, CDF, BYRANK,
// BYREVRANK).
func WriteDoubles(w reply.Sink, fs []float64) {
	w.Array(len(fs))
	for _, f := range fs {
		WriteDouble(w, f)
	}
}

// WriteRanks writes RANK's and REVRANK's array of integers.
func WriteRanks(w reply.Sink, ranks []int64) {
	w.Array(len(ranks))
	for _, r := range ranks {
		w.Int(r)
	}
}

// InfoField is one pair of TDIGEST.INFO's reply.
type InfoField struct {
	Name  string
	Value int64
}

// Info returns TDIGEST.INFO's fields for metadata m, as Kvrocks gives
// them (KVROCKS-TYPES.md §5.4): RedisBloom's, less "Memory usage", with
// Kvrocks's capacity. INFO merges nothing: buffered values show as
// unmerged.
func Info(m Meta) []InfoField {
	unmerged := uint64(0)
	if m.TotalWeight > m.MergedWeight {
		unmerged = m.TotalWeight - m.MergedWeight
	}
	return []InfoField{
		{"Compression", int64(m.Compression)},
		{"Capacity", int64(m.Capacity)},
		{"Merged nodes", clampInt(m.MergedNodes)},
		{"Unmerged nodes", clampInt(m.UnmergedNodes)},
		{"Merged weight", clampInt(m.MergedWeight)},
		{"Unmerged weight", clampInt(unmerged)},
		{"Observations", clampInt(m.TotalObservations)},
		{"Total compressions", clampInt(m.MergeTimes)},
	}
}

// clampInt is n as an integer reply, at most math.MaxInt64.
func clampInt(n uint64) int64 { return int64(min(n, math.MaxInt64)) }

// WriteInfo writes TDIGEST.INFO's reply: a map in RESP3, a flat array in
// RESP2, labels as simple strings.
func WriteInfo(w reply.Sink, m Meta) {
	fields := Info(m)
	w.Map(len(fields))
	for _, f := range fields {
		w.Simple(f.Name)
		w.Int(f.Value)
	}
}
