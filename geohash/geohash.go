package geohash

// Coordinate limits: a point outside them cannot be added or searched
// from (Redis's GEO_LONG_MIN/MAX and GEO_LAT_MIN/MAX, the latitudes
// where Web Mercator ends).
const (
	LongMin = -180.0
	LongMax = 180.0
	LatMin  = -85.05112878
	LatMax  = 85.05112878
)

// StepMax is the number of steps of a stored point: 26 bits of each
// coordinate, 52 bits in all.
const StepMax = 26

// Hash is a geohash of Step steps: 2*Step bits, latitude bits in the even
// positions and longitude bits in the odd ones. A coordinate at the very
// top of its range sets the bit just above them, as in Redis.
type Hash struct {
	Bits uint64
	Step uint
}

// isZero reports whether h is the "no cell" value (Redis's HASHISZERO).
func (h Hash) isZero() bool { return h.Bits == 0 && h.Step == 0 }

// Range is a closed interval of one coordinate.
type Range struct{ Min, Max float64 }

// Area is the cell a hash stands for.
type Area struct {
	Hash      Hash
	Long, Lat Range
}

// The ranges stored points are encoded in, and the standard ones the
// GEOHASH strings are encoded in.
var (
	storedLong   = Range{LongMin, LongMax}
	storedLat    = Range{LatMin, LatMax}
	standardLong = Range{-180, 180}
	standardLat  = Range{-90, 90}
)

// spread moves the 32 bits of v to the even bit positions of the result.
func spread(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000FFFF0000FFFF
	x = (x | x<<8) & 0x00FF00FF00FF00FF
	x = (x | x<<4) & 0x0F0F0F0F0F0F0F0F
	x = (x | x<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	return x
}

// compact is the inverse of spread: it gathers the even bits of v.
func compact(v uint64) uint32 {
	x := v & 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0F0F0F0F0F0F0F0F
	x = (x | x>>4) & 0x00FF00FF00FF00FF
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	x = (x | x>>16) & 0x00000000FFFFFFFF
	return uint32(x)
}

// interleave puts lat in the even bits and long in the odd bits.
func interleave(lat, long uint32) uint64 { return spread(lat) | spread(long)<<1 }

// Valid reports whether a point may be stored or searched from.
func Valid(long, lat float64) bool {
	return long >= LongMin && long <= LongMax && lat >= LatMin && lat <= LatMax
}

// encode computes the hash of a point in the given ranges, as Redis's
// geohashEncode: false for a point outside the limits or the ranges, or
// a step out of 1..32.
func encode(lr, ar Range, long, lat float64, step uint) (Hash, bool) {
	if step == 0 || step > 32 {
		return Hash{}, false
	}
	if !Valid(long, lat) {
		return Hash{}, false
	}
	if lat < ar.Min || lat > ar.Max || long < lr.Min || long > lr.Max {
		return Hash{Step: step}, false
	}
	latOffset := (lat - ar.Min) / (ar.Max - ar.Min)
	longOffset := (long - lr.Min) / (lr.Max - lr.Min)
	scale := float64(uint64(1) << step)
	latOffset = float64(latOffset * scale)
	longOffset = float64(longOffset * scale)
	// Both offsets are in [0, 2^step]: C's truncation to uint32.
	return Hash{Bits: interleave(uint32(latOffset), uint32(longOffset)), Step: step}, true
}

// decode returns the cell of h in the given ranges (Redis's
// geohashDecode); false for the zero hash.
func decode(lr, ar Range, h Hash) (Area, bool) {
	if h.isZero() {
		return Area{}, false
	}
	latCell, longCell := compact(h.Bits), compact(h.Bits>>1)
	latScale, longScale := ar.Max-ar.Min, lr.Max-lr.Min
	div := float64(uint64(1) << h.Step)
	// The +1 wraps in 32 bits, as C's uint32_t arithmetic does.
	return Area{
		Hash: h,
		Lat: Range{
			Min: ar.Min + float64(float64(latCell)/div)*latScale,
			Max: ar.Min + float64(float64(latCell+1)/div)*latScale,
		},
		Long: Range{
			Min: lr.Min + float64(float64(longCell)/div)*longScale,
			Max: lr.Min + float64(float64(longCell+1)/div)*longScale,
		},
	}, true
}

// center returns the middle of an area, held within the limits (Redis's
// geohashDecodeAreaToLongLat).
func (a Area) center() (long, lat float64) {
	long = (a.Long.Min + a.Long.Max) / 2
	if long > LongMax {
		long = LongMax
	}
	if long < LongMin {
		long = LongMin
	}
	lat = (a.Lat.Min + a.Lat.Max) / 2
	if lat > LatMax {
		lat = LatMax
	}
	if lat < LatMin {
		lat = LatMin
	}
	return long, lat
}

// Score returns the score that stores a point: its 52-bit hash as a
// double. The point must be Valid.
func Score(long, lat float64) float64 {
	h, _ := encode(storedLong, storedLat, long, lat, StepMax)
	return float64(h.Bits << (52 - 2*StepMax))
}

// scoreBits converts a score to the integer Redis decodes, as C's
// (uint64_t) cast does on x86-64 for any double (a sorted set that GEOADD
// did not fill may hold any score): truncation toward zero, negative
// values wrapped, values past the range and NaN to 1<<63 below it and 0
// above it.
func scoreBits(s float64) uint64 {
	const two63 = 9223372036854775808.0
	switch {
	case s >= two63:
		s -= two63
		if s >= two63 {
			return 0
		}
		return uint64(int64(s)) ^ 1<<63
	case s >= -two63: // (false for NaN)
		return uint64(int64(s))
	}
	return 1 << 63
}

// Decode returns the position a score stands for: the centre of its
// cell.
func Decode(score float64) (long, lat float64) {
	a, _ := decode(storedLong, storedLat, Hash{Bits: scoreBits(score), Step: StepMax})
	return a.center()
}

// alphabet is the base32 of geohash strings.
const alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"

// String returns the 11-character standard geohash of the point a score
// stands for (GEOHASH): the point re-encoded over latitudes -90..90, its
// 52 bits in ten characters and a '0' for the missing bits of the last.
func String(score float64) [11]byte {
	long, lat := Decode(score)
	h, _ := encode(standardLong, standardLat, long, lat, StepMax)
	var out [11]byte
	for i := 0; i < 10; i++ {
		out[i] = alphabet[(h.Bits>>(52-(i+1)*5))&0x1f]
	}
	out[10] = alphabet[0]
	return out
}
