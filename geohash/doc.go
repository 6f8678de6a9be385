// Package geohash is the geometry of the GEO commands, as Redis 7.0 does
// it, so that scores, positions, distances and the boxes a search scans
// are the same numbers redis-server computes, bit for bit:
//
//   - a point is kept as the score of a sorted-set member: its 52-bit
//     geohash (26 steps of longitude and latitude bits interleaved, over
//     longitudes -180..180 and latitudes -85.05112878..85.05112878), as an
//     integer-valued double (FORMAT.md §4.5: Kvrocks keeps geo sets so);
//   - a score decodes to the centre of its cell;
//   - distances are haversine on a sphere of Redis's radius;
//   - a radius or box search scans the score ranges of at most nine
//     geohash cells (the cell of the centre and its neighbours, at a step
//     chosen from the radius), and keeps the points inside the shape.
//
// It does no I/O and imports nothing of Basalt's. Its trigonometry is the
// C library's (libm.go), the functions redis-server calls, so that even
// the 17 digits of a distance STOREDIST keeps are Redis's.
package geohash
