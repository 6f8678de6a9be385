package geohash

import (
	"math"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// human prints a coordinate as Redis's GEOPOS does ("%.17Lf", trailing
// zeros cut), to compare with the values redis-server documents.
func human(f float64) string {
	s := strconv.FormatFloat(f, 'f', 17, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// The example of Redis's documentation (GEOADD Sicily ...), whose scores,
// positions, hashes and distances redis-server prints.
func TestSicily(t *testing.T) {
	tests := []struct {
		long, lat  float64
		score      float64
		pos        [2]string
		hash       string
		distFrom15 string // km from (15, 37)
	}{
		{13.361389, 38.115556, 3479099956230698, [2]string{"13.36138933897018433", "38.11555639549629859"}, "sqc8b49rny0", "190.4424"},
		{15.087269, 37.502669, 3479447370796909, [2]string{"15.08726745843887329", "37.50266842333162032"}, "sqdtr74hyu0", "56.4413"},
	}
	for _, tt := range tests {
		s := Score(tt.long, tt.lat)
		if s != tt.score {
			t.Errorf("Score(%v, %v) = %.0f, want %.0f", tt.long, tt.lat, s, tt.score)
		}
		long, lat := Decode(s)
		if got := [2]string{human(long), human(lat)}; got != tt.pos {
			t.Errorf("Decode(%.0f) = %v, want %v", s, got, tt.pos)
		}
		if h := String(s); string(h[:]) != tt.hash {
			t.Errorf("String(%.0f) = %s, want %s", s, h[:], tt.hash)
		}
		if d := strconv.FormatFloat(Distance(15, 37, long, lat)/1000, 'f', 4, 64); d != tt.distFrom15 {
			t.Errorf("distance from (15, 37) = %s km, want %s", d, tt.distFrom15)
		}
	}
	l1, a1 := Decode(tests[0].score)
	l2, a2 := Decode(tests[1].score)
	for _, u := range []struct {
		unit, want string
	}{{"m", "166274.1516"}, {"KM", "166.2742"}, {"mi", "103.3182"}} {
		m, ok := ToMeters([]byte(u.unit))
		if !ok {
			t.Fatalf("unit %s refused", u.unit)
		}
		if d := strconv.FormatFloat(Distance(l1, a1, l2, a2)/m, 'f', 4, 64); d != u.want {
			t.Errorf("Palermo-Catania = %s %s, want %s", d, u.unit, u.want)
		}
	}
}

func TestValid(t *testing.T) {
	tests := []struct {
		long, lat float64
		ok        bool
	}{
		{0, 0, true},
		{-180, -85.05112878, true},
		{180, 85.05112878, true},
		{180.0000001, 0, false},
		{-180.0000001, 0, false},
		{0, 85.05112879, false},
		{0, -85.05112879, false},
		{0, 90, false}, // the poles are beyond Web Mercator
		{0, -90, false},
		{math.Inf(1), 0, false},
		{0, math.Inf(-1), false},
		{math.NaN(), 0, false},
		{0, math.NaN(), false},
	}
	for _, tt := range tests {
		if got := Valid(tt.long, tt.lat); got != tt.ok {
			t.Errorf("Valid(%v, %v) = %v", tt.long, tt.lat, got)
		}
	}
}

// The corners: the lowest point is score 0; the highest sets the bits just
// above the 52, as Redis's encoding does, and decodes back to the limits.
func TestCorners(t *testing.T) {
	if s := Score(-180, -85.05112878); s != 0 {
		t.Errorf("Score of the lowest corner = %.0f", s)
	}
	top := Score(180, 85.05112878)
	if top != float64(uint64(3)<<52) {
		t.Errorf("Score of the highest corner = %.0f, want %d", top, uint64(3)<<52)
	}
	if long, lat := Decode(top); long != LongMax || lat != LatMax {
		t.Errorf("Decode(top) = %v, %v", long, lat)
	}
	long, lat := Decode(0)
	if long <= LongMin || long > LongMin+1e-5 || lat <= LatMin || lat > LatMin+1e-5 {
		t.Errorf("Decode(0) = %v, %v", long, lat)
	}
	// ±180 longitude are the two edges of the same meridian.
	if d := Distance(180, 10, -180, 10); d > 1e-6 {
		t.Errorf("distance from 180 to -180 = %v", d)
	}
	if d := Distance(0, 0, 180, 0); math.Abs(d-math.Pi*EarthRadius) > 1e-3 {
		t.Errorf("half the equator = %v", d)
	}
}

// Any score decodes, as C's cast makes it an integer on x86-64: sorted sets
// that GEOADD did not fill hold any double.
func TestScoreBits(t *testing.T) {
	tests := []struct {
		score float64
		bits  uint64
	}{
		{0, 0},
		{1.9, 1},
		{-0.5, 0},
		{-1, math.MaxUint64},
		{-9223372036854775808, 1 << 63},
		{-1e300, 1 << 63},
		{math.Inf(-1), 1 << 63},
		{9223372036854775808, 1 << 63},
		{18446744073709549568, 18446744073709549568},
		{18446744073709551616, 0},
		{math.Inf(1), 0},
		{math.NaN(), 1 << 63},
	}
	for _, tt := range tests {
		if got := scoreBits(tt.score); got != tt.bits {
			t.Errorf("scoreBits(%v) = %d, want %d", tt.score, got, tt.bits)
		}
		long, lat := Decode(tt.score)
		if !Valid(long, lat) {
			t.Errorf("Decode(%v) = %v, %v: not a valid point", tt.score, long, lat)
		}
		String(tt.score)
	}
}

func TestInterleave(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 1000; i++ {
		a, b := r.Uint32(), r.Uint32()
		v := interleave(a, b)
		if compact(v) != a || compact(v>>1) != b {
			t.Fatalf("interleave(%x, %x) = %x does not come apart", a, b, v)
		}
		for bit := 0; bit < 32; bit++ {
			if (v>>(2*bit))&1 != uint64(a>>bit)&1 || (v>>(2*bit+1))&1 != uint64(b>>bit)&1 {
				t.Fatalf("interleave(%x, %x) = %x: bit %d misplaced", a, b, v, bit)
			}
		}
	}
}

// A point decodes to the centre of its cell: within a meter of where it
// was added.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 10000; i++ {
		long := r.Float64()*360 - 180
		lat := r.Float64()*2*LatMax - LatMax
		l2, a2 := Decode(Score(long, lat))
		if d := Distance(long, lat, l2, a2); d > 1 {
			t.Fatalf("(%v, %v) decodes to (%v, %v), %v m away", long, lat, l2, a2, d)
		}
	}
}

// Neighbours wrap around the edges of the map.
func TestNeighbours(t *testing.T) {
	h := Hash{Bits: 0, Step: 2} // the south-west corner cell
	n := neighbours(h)
	if n[cWest].Bits != interleave(0, 3) || n[cSouth].Bits != interleave(3, 0) || n[cSouthWest].Bits != interleave(3, 3) {
		t.Errorf("neighbours of the corner: west %b, south %b, south-west %b", n[cWest].Bits, n[cSouth].Bits, n[cSouthWest].Bits)
	}
	if n[cNorthEast].Bits != interleave(1, 1) {
		t.Errorf("north-east of the corner: %b", n[cNorthEast].Bits)
	}
}

func TestToMeters(t *testing.T) {
	for unit, want := range map[string]float64{"m": 1, "M": 1, "km": 1000, "KM": 1000, "Km": 1000, "ft": 0.3048, "mi": 1609.34, "m\x00x": 1} {
		if got, ok := ToMeters([]byte(unit)); !ok || got != want {
			t.Errorf("ToMeters(%q) = %v, %v", unit, got, ok)
		}
	}
	for _, unit := range []string{"", "meters", "kmm", "k", "\x00m", "mm", "f"} {
		if _, ok := ToMeters([]byte(unit)); ok {
			t.Errorf("ToMeters(%q) accepted", unit)
		}
	}
}

// The scanned ranges of a search never overlap, are at most nine, and hold
// every point of the shape: a brute-force search over random points finds
// nothing the cells miss.
func TestCellsCoverShape(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	type point struct{ score, long, lat float64 }
	var points []point
	for i := 0; i < 20000; i++ {
		s := Score(r.Float64()*360-180, r.Float64()*2*LatMax-LatMax)
		l, a := Decode(s)
		points = append(points, point{s, l, a})
	}
	sort.Slice(points, func(i, j int) bool { return points[i].score < points[j].score })
	checked := 0
	for i := 0; i < 300; i++ {
		s := Shape{Long: r.Float64()*340 - 170, Lat: r.Float64()*140 - 70, ToMeters: 1000}
		switch r.Intn(3) {
		case 0:
			s.Radius = r.Float64() * 3000
		case 1:
			s.Radius = r.Float64() * 300
		default:
			s.Box, s.Width, s.Height = true, r.Float64()*3000, r.Float64()*3000
		}
		ranges := s.Cells().Ranges()
		if len(ranges) == 0 || len(ranges) > 9 {
			t.Fatalf("%+v: %d ranges", s, len(ranges))
		}
		sorted := append([]ScoreRange(nil), ranges...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i].Min < sorted[j].Min })
		for j := 1; j < len(sorted); j++ {
			if sorted[j].Min < sorted[j-1].Max {
				t.Fatalf("%+v: ranges %v overlap", s, ranges)
			}
		}
		for _, p := range points {
			if _, in := s.Contains(p.long, p.lat); !in {
				continue
			}
			checked++
			found := false
			for _, rg := range ranges {
				found = found || (p.score >= rg.Min && p.score < rg.Max)
			}
			if !found {
				t.Fatalf("%+v: point (%v, %v) inside the shape is in no scanned cell", s, p.long, p.lat)
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d points fell in the shapes", checked)
	}
}

// A search of the whole world scans every score once.
func TestWorldSearch(t *testing.T) {
	s := Shape{Long: 0, Lat: 0, Radius: 30000, ToMeters: 1000}
	ranges := s.Cells().Ranges()
	sort.Slice(ranges, func(i, j int) bool { return ranges[i].Min < ranges[j].Min })
	next := 0.0
	for _, r := range ranges {
		if r.Min != next {
			t.Fatalf("ranges %v leave a gap at %v", ranges, next)
		}
		next = r.Max
	}
	if next != 1<<52 {
		t.Fatalf("ranges %v end at %v", ranges, next)
	}
	// Degenerate shapes: a zero radius, and an infinite one.
	for _, s := range []Shape{{Long: 180, Lat: LatMax, ToMeters: 1}, {Long: -180, Lat: LatMin, Radius: math.Inf(1), ToMeters: 1}, {Box: true, ToMeters: 1609.34}} {
		if n := len(s.Cells().Ranges()); n == 0 || n > 9 {
			t.Errorf("%+v: %d ranges", s, n)
		}
	}
}
