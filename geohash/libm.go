package geohash

// Distances are computed by the C library's libm, not Go's math package:
// glibc's sin, cos and asin round differently from Go's in the last bit
// now and then, and a distance STOREDIST keeps is printed with 17 digits,
// so only the very functions redis-server calls give its numbers. The
// formula is compiled by the C compiler, without fused multiply-adds, as
// Redis's is.

/*
#cgo LDFLAGS: -lm
#include <math.h>

static double basalt_geo_distance(double lon1d, double lat1d, double lon2d, double lat2d) {
	const double d_r = M_PI / 180.0;
	double lat1r = lat1d * d_r, lon1r = lon1d * d_r;
	double lat2r = lat2d * d_r, lon2r = lon2d * d_r;
	double u = sin((lat2r - lat1r) / 2);
	double v = sin((lon2r - lon1r) / 2);
	return 2.0 * 6372797.560856 * asin(sqrt(u * u + cos(lat1r) * cos(lat2r) * v * v));
}

static double basalt_geo_cos(double x) { return cos(x); }
*/
import "C"

// Distance returns the great-circle distance in meters between two points
// given in degrees, by the haversine formula of Redis 7.0.
func Distance(long1, lat1, long2, lat2 float64) float64 {
	return float64(C.basalt_geo_distance(C.double(long1), C.double(lat1), C.double(long2), C.double(lat2)))
}

// cos is libm's cosine.
func cos(x float64) float64 { return float64(C.basalt_geo_cos(C.double(x))) }
