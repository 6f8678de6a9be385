package tdigest

import "math"

// The queries over a merged digest. QUANTILE is Kvrocks's (Arrow's)
// interpolation; CDF, RANK, REVRANK and TRIMMED_MEAN follow RedisBloom's
// definitions (REDIS-NEW.md §8), whose CDF is Dunning's MergingDigest
// cdf; BYRANK and BYREVRANK name the centroid that holds a rank, which is
// RedisBloom's answer wherever centroids are single values (the docs'
// examples) and needs no interpolation Kvrocks's quantile would give at
// the edges (its quantile(1/n) is the minimum).

// empty reports whether the digest holds no value.
func (d *digest) empty() bool { return len(d.centroids) == 0 }

// lerp is the point t of the way from a to b.
func lerp(a, b, t float64) float64 { return a + t*(b-a) }

// quantile estimates the value below which a fraction q of the weight
// lies, q in [0,1]: the extremes within one unit of weight of either end,
// a unit centroid's own mean within half a unit of it, else a linear
// interpolation between the means of the two centroids around the point
// (towards min or max beyond the outer centroids' middles).
func (d *digest) quantile(q float64) float64 {
	if d.empty() {
		return math.NaN()
	}
	index := q * d.weight
	if index <= 1 {
		return d.min
	}
	if index >= d.weight-1 {
		return d.max
	}
	cs := d.centroids
	i, sum := 0, 0.0
	for ; i < len(cs); i++ {
		sum += cs[i].Weight
		if index <= sum {
			break
		}
	}
	if i == len(cs) { // weights that do not add up to the total (corrupt)
		return d.max
	}
	c := cs[i]
	diff := index + c.Weight/2 - sum // how far past c's middle the point is
	if c.Weight == 1 && math.Abs(diff) < 0.5 {
		return c.Mean
	}
	left, right := i, i
	if diff > 0 {
		if right == len(cs)-1 {
			return lerp(c.Mean, d.max, diff/(c.Weight/2))
		}
		right++
	} else {
		if left == 0 {
			return lerp(d.min, c.Mean, index/(c.Weight/2))
		}
		left--
		diff += cs[left].Weight/2 + cs[right].Weight/2
	}
	diff /= cs[left].Weight/2 + cs[right].Weight/2
	return lerp(cs[left].Mean, cs[right].Mean, diff)
}

// cdf estimates the fraction of the weight at or below x, counting half
// of what sits exactly at x: 0 below min, 1 above max, singletons taken
// as single values, interpolation between the middles of others.
func (d *digest) cdf(x float64) float64 {
	cs, n, total := d.centroids, len(d.centroids), d.weight
	switch {
	case n == 0:
		return math.NaN()
	case x < d.min:
		return 0
	case x > d.max:
		return 1
	case n == 1:
		width := d.max - d.min
		if x-d.min <= width {
			return 0.5 // min and max too close to interpolate
		}
		return (x - d.min) / width
	}
	if first := cs[0]; x < first.Mean {
		width := first.Mean - d.min
		switch {
		case width <= 0:
			return 0
		case x == d.min:
			return 0.5 / total
		}
		return (1 + (x-d.min)/width*(first.Weight/2-1)) / total
	}
	if last := cs[n-1]; x > last.Mean {
		width := d.max - last.Mean
		switch {
		case width <= 0:
			return 1
		case x == d.max:
			return 1 - 0.5/total
		}
		return 1 - (1+(d.max-x)/width*(last.Weight/2-1))/total
	}
	sofar := 0.0 // weight of the centroids before i
	for i := 0; i < n-1; i++ {
		if cs[i].Mean == x {
			at := 0.0 // every centroid at exactly x, taken as one
			for ; i < n && cs[i].Mean == x; i++ {
				at += cs[i].Weight
			}
			return (sofar + at/2) / total
		}
		if cs[i].Mean <= x && x < cs[i+1].Mean {
			return (sofar + between(cs[i], cs[i+1], x)) / total
		}
		sofar += cs[i].Weight
	}
	return 1 - 0.5/total // x is the last centroid's mean
}

// between is the weight from the middle of the centroid left up to x,
// which lies between left's mean and right's: a singleton's weight sits
// wholly at its mean, so it takes no part in the interpolation.
func between(left, right Centroid, x float64) float64 {
	half := (left.Weight + right.Weight) / 2
	if right.Mean-left.Mean <= 0 { // too close to interpolate safely
		return half
	}
	leftOut, rightOut := 0.0, 0.0
	if left.Weight == 1 {
		if right.Weight == 1 {
			return 1 // the left singleton is in, the right one out
		}
		leftOut = 0.5
	} else if right.Weight == 1 {
		rightOut = 0.5
	}
	return left.Weight/2 + leftOut + (half-leftOut-rightOut)*(x-left.Mean)/(right.Mean-left.Mean)
}

// Rank replies of RANK and REVRANK for values outside the data.
const (
	RankEmpty = -2 // the sketch holds no value
	RankOut   = -1 // below min (RANK) or above max (REVRANK)
)

// rank is RANK's answer for x: the number of values below it, counting
// half of those at it, rounded half down; RankOut below min and the
// number of values above max (REVRANK, reverse: the other way round,
// n − round(cdf·n) rounded).
func (d *digest) rank(x float64, reverse bool) int64 {
	if d.empty() {
		return RankEmpty
	}
	n := d.weight
	below, above := float64(RankOut), n
	if reverse {
		below, above = n, RankOut
	}
	switch {
	case x < d.min:
		return saturate(below)
	case x > d.max:
		return saturate(above)
	}
	at := d.cdf(x) * n
	if reverse {
		return saturate(math.Round(n - math.Round(at)))
	}
	return saturate(roundHalfDown(at))
}

// roundHalfDown rounds to the nearest integer, halves towards zero.
func roundHalfDown(f float64) float64 {
	whole, frac := math.Modf(f)
	if math.Abs(frac) <= 0.5 {
		return whole
	}
	return whole + math.Copysign(1, f)
}

// saturate converts an integral float to int64, clamped (corrupt weights
// may make it anything; NaN becomes 0).
func saturate(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// byRank is BYRANK's answer for rank r (0: the smallest value): the mean
// of the centroid holding the r-th value, min for 0, +inf past the end
// (BYREVRANK, reverse: ranks from the largest, max for 0, -inf past the
// end).
func (d *digest) byRank(r int64, reverse bool) float64 {
	n := d.weight
	switch {
	case d.empty():
		return math.NaN()
	case r == 0 && reverse:
		return d.max
	case r == 0:
		return d.min
	case float64(r) >= n && reverse:
		return math.Inf(-1)
	case float64(r) >= n:
		return math.Inf(1)
	}
	at := float64(r)
	if reverse {
		at = n - 1 - at
	}
	sum := 0.0
	for _, c := range d.centroids {
		if sum += c.Weight; at < sum {
			return c.Mean
		}
	}
	return d.max // weights that do not add up to the total (corrupt)
}

// trimmedMean is the mean of the values between the low and high cut
// fractions of the weight (0 ≤ low < high ≤ 1), centroids counted in part
// where a cut falls inside them: RedisBloom's, the low cut's weight
// rounded down and the high one's up. NaN when empty.
func (d *digest) trimmedMean(low, high float64) float64 {
	if d.empty() {
		return math.NaN()
	}
	lowWeight, highWeight := math.Floor(d.weight*low), math.Ceil(d.weight*high)
	done, sum, count := 0.0, 0.0, 0.0
	for _, c := range d.centroids {
		take := c.Weight
		take -= min(max(0, lowWeight-done), take)
		take = min(max(0, highWeight-done), take)
		done += c.Weight
		sum += c.Mean * take
		count += take
		if done >= highWeight {
			break
		}
	}
	return sum / count
}
