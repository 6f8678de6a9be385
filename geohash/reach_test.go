package geohash

import (
	"math"
	"math/rand"
	"sort"
	"testing"
)

// found returns the scores of the points of the shape that a scan of
// ranges meets, in the order of the scan. scores are sorted.
func found(s *Shape, scores []float64, ranges []ScoreRange) []float64 {
	var out []float64
	for _, r := range ranges {
		for i := sort.SearchFloat64s(scores, r.Min); i < len(scores) && scores[i] < r.Max; i++ {
			if _, in := s.Contains(Decode(scores[i])); in {
				out = append(out, scores[i])
			}
		}
	}
	return out
}

// edge returns the point where dist, walking from (long, lat) along
// (dLong, dLat) degrees, reaches meters, found by bisection.
func edge(long, lat, dLong, dLat, meters float64, dist func(long, lat float64) float64) (float64, float64) {
	lo, hi := 0.0, 400.0
	for i := 0; i < 100; i++ {
		mid := (lo + hi) / 2
		if l, a := long+dLong*mid, lat+dLat*mid; a > LatMax || a < LatMin || dist(l, a) > meters {
			hi = mid
		} else {
			lo = mid
		}
	}
	return long + dLong*lo, lat + dLat*lo
}

// ScanRanges finds exactly the points a scan of the whole cells finds, in
// the same order, for radii and boxes of every size, near the poles, the
// antimeridian and the coordinate limits, with points crowded around and
// on the shapes' edges; and it reads fewer points for a small shape.
func TestScanRangesFindWhatCellsFind(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var scores []float64
	add := func(long, lat float64) {
		long, lat = math.Max(LongMin, math.Min(LongMax, long)), math.Max(LatMin, math.Min(LatMax, lat))
		scores = append(scores, Score(long, lat))
	}
	for i := 0; i < 20000; i++ {
		add(r.Float64()*360-180, r.Float64()*2*LatMax-LatMax)
	}
	var shapes []Shape
	centres := [][2]float64{{13.5, 38.5}, {179.99, 10}, {-180, LatMin}, {180, LatMax}, {0, 84.9}, {-75, -66.5}, {0, 0}}
	for i := 0; i < 400; i++ {
		s := Shape{Long: r.Float64()*360 - 180, Lat: r.Float64()*2*LatMax - LatMax, ToMeters: []float64{1, 1000, 0.3048, 1609.34}[r.Intn(4)]}
		if i < len(centres)*8 {
			s.Long, s.Lat = centres[i%len(centres)][0], centres[i%len(centres)][1]
		}
		size := math.Pow(10, r.Float64()*8) / s.ToMeters // 1 m to 100,000 km
		if r.Intn(2) == 0 {
			s.Radius = size
		} else {
			s.Box, s.Width, s.Height = true, size*2*r.Float64(), size*2*r.Float64()
		}
		shapes = append(shapes, s)
		// Points around the shape, and on its edge: where Contains's
		// distance, walking from the centre in a random direction, reaches
		// the radius or half the box's side.
		deg := size * s.ToMeters / EarthRadius * 180 / math.Pi
		for j := 0; j < 60; j++ {
			add(s.Long+(r.Float64()*4-2)*deg, s.Lat+(r.Float64()*4-2)*deg)
			angle := r.Float64() * 2 * math.Pi
			dLong, dLat := math.Cos(angle), math.Sin(angle)
			if !s.Box {
				add(edge(s.Long, s.Lat, dLong, dLat, s.Radius*s.ToMeters, func(long, lat float64) float64 { return Distance(s.Long, s.Lat, long, lat) }))
				continue
			}
			lat := s.Lat + (r.Float64()*2-1)*s.Height*s.ToMeters/2/EarthRadius*180/math.Pi
			add(edge(s.Long, lat, math.Copysign(1, dLong), 0, s.Width*s.ToMeters/2, func(long, lat float64) float64 { return Distance(long, lat, s.Long, lat) }))
			add(s.Long+dLong*deg, s.Lat+math.Copysign(s.Height*s.ToMeters/2/EarthRadius*180/math.Pi, dLat))
		}
	}
	shapes = append(shapes, Shape{Long: 13.5, Lat: 38.5, ToMeters: 1}, Shape{Long: 1, Lat: 2, Radius: math.Inf(1), ToMeters: 1}, Shape{Box: true, Long: 3, Lat: 4, ToMeters: 1})
	add(13.5, 38.5)
	sort.Float64s(scores)
	inside := 0
	for _, s := range shapes {
		want := found(&s, scores, s.Cells().Ranges())
		got := found(&s, scores, s.ScanRanges())
		if len(got) != len(want) {
			t.Fatalf("%+v: pruned ranges find %d points, the cells %d", s, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%+v: point %d is %v, the cells' %v", s, i, got[i], want[i])
			}
		}
		inside += len(want)
	}
	if inside < 10000 {
		t.Fatalf("only %d points fell in the shapes", inside)
	}
}

// read counts the scores in ranges.
func read(scores []float64, ranges []ScoreRange) int {
	n := 0
	for _, r := range ranges {
		n += sort.SearchFloat64s(scores, r.Max) - sort.SearchFloat64s(scores, r.Min)
	}
	return n
}

// A 5 km radius among points spread evenly reads a small part of its nine
// cells.
func TestScanRangesReadLess(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	scores := make([]float64, 0, 100000)
	for i := 0; i < cap(scores); i++ {
		scores = append(scores, Score(12+3*r.Float64(), 37+3*r.Float64()))
	}
	sort.Float64s(scores)
	s := Shape{Long: 13.5, Lat: 38.5, Radius: 5, ToMeters: 1000}
	cells, pruned := read(scores, s.Cells().Ranges()), read(scores, s.ScanRanges())
	if pruned*4 > cells {
		t.Fatalf("the pruned ranges read %d points, the cells %d", pruned, cells)
	}
	t.Logf("%d points found; the cells read %d, the pruned ranges %d in %d ranges", len(found(&s, scores, s.ScanRanges())), cells, pruned, len(s.ScanRanges()))
}
