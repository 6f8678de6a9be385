package geohash

import "math"

// EarthRadius is the radius of Redis's sphere, in meters.
const EarthRadius = 6372797.560856

// mercatorMax bounds the radius estimate of searchStep.
const mercatorMax = 20037726.37

// degRad is C's M_PI/180.0: pi rounded to a double, then divided. (A Go
// constant expression would divide the exact pi and could differ in the
// last bit.)
var degRad = piDouble / 180.0

var piDouble = math.Pi

func toRad(deg float64) float64 { return deg * degRad }
func toDeg(rad float64) float64 { return rad / degRad }

// ToMeters returns how many meters a unit of GEODIST and the searches is
// ("m", "km", "ft", "mi" in any case), and false for any other word.
// Redis compares C strings, so what follows a NUL byte is not read.
func ToMeters(unit []byte) (float64, bool) {
	for i, c := range unit {
		if c == 0 {
			unit = unit[:i]
			break
		}
	}
	if len(unit) == 0 || len(unit) > 2 {
		return 0, false
	}
	var u [2]byte
	for i, c := range unit {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		u[i] = c
	}
	switch string(u[:len(unit)]) {
	case "m":
		return 1, true
	case "km":
		return 1000, true
	case "ft":
		return 0.3048, true
	case "mi":
		return 1609.34, true
	}
	return 0, false
}
