package geohash

import "math"

// Shape is the area of a search: a circle of Radius, or a box of Width by
// Height (BYBOX), around the centre (Long, Lat), the sizes in a unit of
// ToMeters meters.
type Shape struct {
	Long, Lat     float64
	Box           bool
	Radius        float64
	Width, Height float64
	ToMeters      float64
}

// Contains reports whether the point (long, lat) lies in the shape and, if
// so, its distance in meters from the centre (Redis's geoWithinShape).
func (s *Shape) Contains(long, lat float64) (dist float64, ok bool) {
	if !s.Box {
		dist = Distance(s.Long, s.Lat, long, lat)
		return dist, !(dist > s.Radius*s.ToMeters)
	}
	width, height := s.Width*s.ToMeters, s.Height*s.ToMeters
	longDist := Distance(long, lat, s.Long, lat)
	latDist := Distance(long, lat, long, s.Lat)
	if longDist > width/2 || latDist > height/2 {
		return 0, false
	}
	return Distance(s.Long, s.Lat, long, lat), true
}

// boundingBox returns the longitudes and latitudes that bound the shape
// (Redis's geohashBoundingBox).
func (s *Shape) boundingBox() (minLong, minLat, maxLong, maxLat float64) {
	height, width := s.Radius, s.Radius
	if s.Box {
		height, width = s.Height/2, s.Width/2
	}
	height, width = s.ToMeters*height, s.ToMeters*width
	latDelta := toDeg(height / EarthRadius)
	longDeltaTop := toDeg(width / EarthRadius / cos(toRad(s.Lat+latDelta)))
	longDeltaBottom := toDeg(width / EarthRadius / cos(toRad(s.Lat-latDelta)))
	// The hemispheres bound on opposite edges.
	if s.Lat < 0 {
		minLong, maxLong = s.Long-longDeltaBottom, s.Long+longDeltaBottom
	} else {
		minLong, maxLong = s.Long-longDeltaTop, s.Long+longDeltaTop
	}
	return minLong, s.Lat - latDelta, maxLong, s.Lat + latDelta
}

// searchStep estimates the step whose cells are about the size of a
// search of rangeMeters at latitude lat (geohashEstimateStepsByRadius).
func searchStep(rangeMeters, lat float64) uint {
	if rangeMeters == 0 {
		return 26
	}
	step := 1
	for rangeMeters < mercatorMax {
		rangeMeters *= 2
		step++
	}
	step -= 2 // so that the range fits in most cases
	// Cells are narrower towards the poles.
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint(min(max(step, 1), 26))
}

// moveLong moves h one cell east (d > 0) or west (d < 0), wrapping.
func moveLong(h Hash, d int) Hash {
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	zz := uint64(0x5555555555555555) >> (64 - h.Step*2)
	if d > 0 {
		x += zz + 1
	} else {
		x |= zz
		x -= zz + 1
	}
	x &= 0xaaaaaaaaaaaaaaaa >> (64 - h.Step*2)
	return Hash{Bits: x | y, Step: h.Step}
}

// moveLat moves h one cell north (d > 0) or south (d < 0), wrapping.
func moveLat(h Hash, d int) Hash {
	x := h.Bits & 0xaaaaaaaaaaaaaaaa
	y := h.Bits & 0x5555555555555555
	zz := uint64(0xaaaaaaaaaaaaaaaa) >> (64 - h.Step*2)
	if d > 0 {
		y += zz + 1
	} else {
		y |= zz
		y -= zz + 1
	}
	y &= 0x5555555555555555 >> (64 - h.Step*2)
	return Hash{Bits: x | y, Step: h.Step}
}

// Cells are the cells a search scans, in Redis's order: the centre's, then
// north, south, east, west, north-east, north-west, south-east,
// south-west. A cell found useless is the zero Hash.
type Cells [9]Hash

const (
	cCenter = iota
	cNorth
	cSouth
	cEast
	cWest
	cNorthEast
	cNorthWest
	cSouthEast
	cSouthWest
)

func neighbours(h Hash) Cells {
	return Cells{
		cCenter:    h,
		cNorth:     moveLat(h, 1),
		cSouth:     moveLat(h, -1),
		cEast:      moveLong(h, 1),
		cWest:      moveLong(h, -1),
		cNorthEast: moveLat(moveLong(h, 1), 1),
		cNorthWest: moveLat(moveLong(h, -1), 1),
		cSouthEast: moveLat(moveLong(h, 1), -1),
		cSouthWest: moveLat(moveLong(h, -1), -1),
	}
}

// Cells returns the cells that cover the shape, as Redis's
// geohashCalculateAreasByShapeWGS84 chooses them. The shape's centre must
// be Valid.
func (s *Shape) Cells() Cells {
	minLong, minLat, maxLong, maxLat := s.boundingBox()
	radius := s.Radius
	if s.Box {
		radius = math.Sqrt(float64((s.Width/2)*(s.Width/2)) + float64((s.Height/2)*(s.Height/2)))
	}
	radius *= s.ToMeters
	step := searchStep(radius, s.Lat)
	h, _ := encode(storedLong, storedLat, s.Long, s.Lat, step)
	cells := neighbours(h)
	area, _ := decode(storedLong, storedLat, h)

	// Near the edge of the centre's cell, a neighbour may not reach far
	// enough: one step bigger then.
	north, _ := decode(storedLong, storedLat, cells[cNorth])
	south, _ := decode(storedLong, storedLat, cells[cSouth])
	east, _ := decode(storedLong, storedLat, cells[cEast])
	west, _ := decode(storedLong, storedLat, cells[cWest])
	decrease := north.Lat.Max < maxLat || south.Lat.Min > minLat ||
		east.Long.Max < maxLong || west.Long.Min > minLong
	if step > 1 && decrease {
		step--
		h, _ = encode(storedLong, storedLat, s.Long, s.Lat, step)
		cells = neighbours(h)
		area, _ = decode(storedLong, storedLat, h)
	}

	// Drop the neighbours on a side the shape does not reach.
	if step >= 2 {
		if area.Lat.Min < minLat {
			cells[cSouth], cells[cSouthWest], cells[cSouthEast] = Hash{}, Hash{}, Hash{}
		}
		if area.Lat.Max > maxLat {
			cells[cNorth], cells[cNorthEast], cells[cNorthWest] = Hash{}, Hash{}, Hash{}
		}
		if area.Long.Min < minLong {
			cells[cWest], cells[cSouthWest], cells[cNorthWest] = Hash{}, Hash{}, Hash{}
		}
		if area.Long.Max > maxLong {
			cells[cEast], cells[cSouthEast], cells[cNorthEast] = Hash{}, Hash{}, Hash{}
		}
	}
	return cells
}

// ScoreRange is the scores of the points of a cell: Min <= score < Max.
type ScoreRange struct{ Min, Max float64 }

// scoreRange is the scores of the points of h.
func (h Hash) scoreRange() ScoreRange {
	shift := 52 - h.Step*2
	return ScoreRange{Min: float64(h.Bits << shift), Max: float64((h.Bits + 1) << shift)}
}

// Ranges returns the score ranges to scan for cells, in order, as Redis's
// membersOfAllNeighbors visits them: zero cells skipped, and a cell equal
// to the one scanned just before it skipped too (which happens with very
// large shapes). As in Redis, a repeat of the first cell right after it
// is scanned again.
func (cs Cells) Ranges() []ScoreRange {
	out := make([]ScoreRange, 0, len(cs))
	for _, h := range cs.scanned() {
		out = append(out, h.scoreRange())
	}
	return out
}

// scanned returns the cells Ranges scans, in order.
func (cs Cells) scanned() []Hash {
	out := make([]Hash, 0, len(cs))
	last := 0
	for i, h := range cs {
		if h.isZero() {
			continue
		}
		if last != 0 && h == cs[last] {
			continue
		}
		out = append(out, h)
		last = i
	}
	return out
}
