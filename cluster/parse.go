//lint:file-ignore ST1005 error texts are Kvrocks's replies, capitals included

package cluster

import (
	"errors"
	"strconv"
	"strings"
)

// ParseInt parses a base-10 integer in [min, max] as Kvrocks's ParseInt
// does (strtoll: leading blanks and a sign allowed, nothing after the
// digits); the error's text is Kvrocks's.
func ParseInt(s string, min, max int64) (int64, error) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	start := 0
	if len(t) > 0 && (t[0] == '+' || t[0] == '-') {
		start = 1
	}
	end := start
	for end < len(t) && t[end] >= '0' && t[end] <= '9' {
		end++
	}
	if end == start {
		return 0, errors.New("not started as an integer")
	}
	n, err := strconv.ParseInt(t[:end], 10, 64)
	switch {
	case err != nil:
		return 0, errors.New("Numerical result out of range")
	case end != len(t):
		return 0, errors.New("encounter non-integer characters")
	case n < min || n > max:
		return 0, errors.New("out of numeric range")
	}
	return n, nil
}

// splitNonEmpty splits s on sep and drops the empty parts, as Kvrocks's
// util::Split does.
func splitNonEmpty(s, sep string) []string {
	var out []string
	for _, p := range strings.Split(s, sep) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseSlotRanges parses the slots argument of CLUSTERX SETSLOT and
// MIGRATE and of CLUSTER IMPORT as Kvrocks does: slots and ranges a-b
// (a <= b) separated by spaces. The error's text is Kvrocks's reply after
// "ERR ".
func ParseSlotRanges(arg string) ([]Range, error) {
	parts := splitNonEmpty(arg, " ")
	if len(parts) == 0 {
		return nil, errors.New("No slots to parse.")
	}
	var out []Range
	for _, p := range parts {
		if p[0] == '-' || p[len(p)-1] == '-' {
			return nil, errors.New("Invalid slot range: `" + p + "`. The character '-' can't appear in the first or last position.")
		}
		bounds := splitNonEmpty(p, "-")
		switch len(bounds) {
		case 1:
			slot, err := ParseInt(bounds[0], 0, SlotCount-1)
			if err != nil {
				return nil, errors.New("Invalid slot id: " + err.Error())
			}
			out = append(out, Range{int(slot), int(slot)})
		case 2:
			a, errA := ParseInt(bounds[0], 0, SlotCount-1)
			b, errB := ParseInt(bounds[1], 0, SlotCount-1)
			if errA != nil || errB != nil || a > b {
				return nil, errors.New("Invalid slot range: `" + p + "`. The slot range `int1-int2` needs to satisfy the condition (int1 <= int2).")
			}
			out = append(out, Range{int(a), int(b)})
		default:
			return nil, errors.New("Invalid slot range: `" + p + "`. The slot range should be of the form `int1-int2`.")
		}
	}
	return out, nil
}
