package geohash

import "math"

// A search's nine cells are about three times as wide as its shape, so
// most of the points they hold lie outside it: a 5 km radius reads about
// 16 times the points it finds. ScanRanges leaves out the parts of the
// cells that the shape cannot reach, down to sub-cells pruneSteps steps
// finer, judged by a lower bound of the distances Contains computes.
// Within each cell the ranges keep the score order, and the cells their
// order, so the points found and their order are those of a scan of the
// whole cells, which is Redis's.
const pruneSteps = 3

// The bound's slack, so that rounding (libm's and Go's functions differ
// in the last bit) never drops a point on the shape's edge: relative to
// the reach, plus a micrometre; and a nanodegree around each sub-cell.
const (
	reachSlack = 1e-9
	reachFloor = 1e-6
	areaSlack  = 1e-9
)

// ScanRanges returns the score ranges a search of the shape reads: those
// of s.Cells().Ranges(), in the same order, without the parts of each
// cell where no point can lie in the shape. Adjacent ranges are merged.
func (s *Shape) ScanRanges() []ScoreRange {
	r := newReach(s)
	var out []ScoreRange
	for _, h := range s.Cells().scanned() {
		out = r.appendRanges(out, h, pruneSteps)
	}
	return out
}

// reach holds what the bound of a shape needs, computed once per search.
type reach struct {
	shape         *Shape
	lat           float64 // the centre's latitude, in radians
	cosLat        float64
	radius        float64 // BYRADIUS: the radius, in meters, with the slack
	width, height float64 // BYBOX: half the sides, in meters, with the slack
}

func newReach(s *Shape) *reach {
	slack := func(m float64) float64 { return m*s.ToMeters*(1+reachSlack) + reachFloor }
	lat := toRad(s.Lat)
	return &reach{
		shape:  s,
		lat:    lat,
		cosLat: math.Cos(lat),
		radius: slack(s.Radius),
		width:  slack(s.Width / 2),
		height: slack(s.Height / 2),
	}
}

// appendRanges appends the ranges of h's sub-cells, down to depth steps
// finer, that the shape may reach.
func (r *reach) appendRanges(out []ScoreRange, h Hash, depth int) []ScoreRange {
	if h.Bits>>(2*h.Step) != 0 {
		// A cell past the top of the range (a hash of the topmost
		// latitude or longitude): its scores are not its area's.
		return appendRange(out, h.scoreRange())
	}
	a, _ := decode(storedLong, storedLat, h)
	if !r.mayHold(a) {
		return out
	}
	if depth == 0 || h.Step >= StepMax {
		return appendRange(out, h.scoreRange())
	}
	for quarter := uint64(0); quarter < 4; quarter++ {
		out = r.appendRanges(out, Hash{Bits: h.Bits<<2 | quarter, Step: h.Step + 1}, depth-1)
	}
	return out
}

// appendRange appends sr, merged into the last range when it follows it.
func appendRange(out []ScoreRange, sr ScoreRange) []ScoreRange {
	if n := len(out); n > 0 && out[n-1].Max == sr.Min {
		out[n-1].Max = sr.Max
		return out
	}
	return append(out, sr)
}

// mayHold reports whether a point of area a may lie in the shape. It is
// false only when a lower bound of the distances Contains compares, over
// every point of a, exceeds the shape's size. Contains's haversine is
// 2R asin(sqrt(u² + cos(lat1) cos(lat2) v²)), u and v the sines of half
// the latitude and longitude differences; each term is bounded below
// over the area: |u| by the nearest latitude, cos(lat2) by the farthest
// from the equator, |v| by the nearest longitude difference (|sin(d/2)|
// has no minimum inside an interval of d that does not hold 0).
func (r *reach) mayHold(a Area) bool {
	s := r.shape
	latMin, latMax := toRad(a.Lat.Min-areaSlack), toRad(a.Lat.Max+areaSlack)
	dLat := 0.0
	if r.lat < latMin {
		dLat = latMin - r.lat
	} else if r.lat > latMax {
		dLat = r.lat - latMax
	}
	// Both shapes reach R·|dLat| at least: BYBOX compares it with half
	// the height, and the haversine is no shorter (v = 0).
	latReach := r.radius
	if s.Box {
		latReach = r.height
	}
	if EarthRadius*dLat > latReach {
		return false
	}
	dLongMin, dLongMax := toRad(a.Long.Min-areaSlack-s.Long), toRad(a.Long.Max+areaSlack-s.Long)
	if dLongMin <= 0 && dLongMax >= 0 {
		return true // v may be 0: the bound is R·|dLat|
	}
	v := math.Min(math.Abs(math.Sin(dLongMin/2)), math.Abs(math.Sin(dLongMax/2)))
	cosFar := math.Cos(math.Min(math.Max(math.Abs(latMin), math.Abs(latMax)), math.Pi/2))
	if s.Box {
		// BYBOX's longitude distance is at the point's own latitude:
		// 2R asin(cos(lat)|v|).
		return !(2*EarthRadius*math.Asin(math.Min(1, cosFar*v)) > r.width)
	}
	u := math.Sin(dLat / 2)
	return !(2*EarthRadius*math.Asin(math.Min(1, math.Sqrt(u*u+r.cosLat*cosFar*v*v))) > r.radius)
}
