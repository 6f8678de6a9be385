package config

import (
	"errors"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"sync/atomic"
)

// value is one typed setting. set validates before it stores anything,
// except where Kvrocks stores first (UnitInt).
type value interface {
	String() string
	set(s string) error
}

// The texts of values that do not parse, word for word Kvrocks's
// (parse_util.h, config_type.h): CONFIG SET replies with them after
// "failed to set new value: ".
var (
	errNotStarted   = errors.New("not started as an integer")
	errTrailing     = errors.New("encounter non-integer characters")
	errTypeRange    = errors.New("out of range of integer type")
	errERange       = errors.New("Numerical result out of range")
	errNumericRange = errors.New("out of numeric range")
	errYesNo        = errors.New("argument must be 'yes' or 'no'")
	errOverflow     = errors.New("arithmetic overflow")
)

// intKind is the C type Kvrocks parses an integer setting into; it decides
// which values are "out of range of integer type".
type intKind uint8

const (
	kindInt    intKind = iota // int: strtol, then the range of int32
	kindInt64                 // int64_t: strtoll
	kindUint32                // uint32_t: strtoul, then the range of uint32
	kindOctal                 // int parsed in base 8 (unixsocketperm)
)

// Int is an integer setting, safe to read concurrently with CONFIG SET.
type Int struct {
	v        atomic.Int64
	min, max int64
	kind     intKind
}

// Get returns the current value.
func (i *Int) Get() int64 { return i.v.Load() }

// String returns the value as CONFIG GET shows it (octal settings in
// octal, without a leading 0).
func (i *Int) String() string {
	if i.kind == kindOctal {
		return strconv.FormatInt(i.v.Load(), 8)
	}
	return strconv.FormatInt(i.v.Load(), 10)
}

func (i *Int) set(s string) error {
	n, err := parseCInt(s, i.kind)
	if err != nil {
		return err
	}
	if n < i.min || n > i.max {
		return errNumericRange
	}
	i.v.Store(n)
	return nil
}

// parseCInt parses s as Kvrocks does with strtol/strtoll/strtoul in base 0
// (base 8 for kindOctal): leading blanks and a sign are allowed, 0x means
// hex and a leading 0 octal, and the whole string must be consumed.
func parseCInt(s string, kind intKind) (int64, error) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	base := uint64(10)
	switch {
	case kind == kindOctal:
		base = 8
	case i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && digitValue(s[i+2]) < 16:
		base, i = 16, i+2
	case i < len(s) && s[i] == '0':
		base = 8
	}
	start := i
	var mag uint64
	overflow := false
	for ; i < len(s); i++ {
		d := digitValue(s[i])
		if d >= base {
			break
		}
		hi, lo := bits.Mul64(mag, base)
		sum, carry := bits.Add64(lo, d, 0)
		if hi != 0 || carry != 0 {
			overflow = true
		}
		mag = sum
	}
	if i == start {
		return 0, errNotStarted
	}
	var n int64
	switch kind {
	case kindUint32:
		// strtoul: a magnitude past 2^64-1 is ERANGE; a minus sign
		// negates in unsigned arithmetic, so "-1" is 2^64-1.
		if overflow {
			return 0, errERange
		}
		if neg {
			mag = -mag
		}
		if mag > math.MaxUint32 {
			return 0, errTypeRange
		}
		n = int64(mag)
	default:
		limit := uint64(math.MaxInt64)
		if neg {
			limit++
		}
		if overflow || mag > limit {
			return 0, errERange
		}
		n = int64(mag)
		if neg {
			n = -n
		}
		if kind != kindInt64 && (n < math.MinInt32 || n > math.MaxInt32) {
			return 0, errTypeRange
		}
	}
	if i != len(s) {
		return 0, errTrailing
	}
	return n, nil
}

func digitValue(c byte) uint64 {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0')
	case c >= 'a' && c <= 'z':
		return uint64(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return uint64(c-'A') + 10
	}
	return 255
}

// UnitInt is an unsigned byte count that takes a K, M, G, T or P suffix
// (powers of 1024), as Kvrocks's proto-max-bulk-len. As in Kvrocks, a
// value that parses is stored before its range is checked.
type UnitInt struct {
	v        atomic.Uint64
	min, max uint64
}

// Get returns the value, capped at math.MaxInt64.
func (u *UnitInt) Get() int64 {
	if v := u.v.Load(); v <= math.MaxInt64 {
		return int64(v)
	}
	return math.MaxInt64
}

// String returns the value in bytes.
func (u *UnitInt) String() string { return strconv.FormatUint(u.v.Load(), 10) }

func (u *UnitInt) set(s string) error {
	n, err := parseSizeWithUnit(s)
	if err != nil {
		return err
	}
	u.v.Store(n)
	if n < u.min || n > u.max {
		return errors.New("this config value should be between " + strconv.FormatUint(u.min, 10) + " and " + strconv.FormatUint(u.max, 10))
	}
	return nil
}

// parseSizeWithUnit parses a decimal count (strtoull) with an optional
// one-letter unit.
func parseSizeWithUnit(s string) (uint64, error) {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var n uint64
	overflow := false
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		hi, lo := bits.Mul64(n, 10)
		sum, carry := bits.Add64(lo, uint64(s[i]-'0'), 0)
		if hi != 0 || carry != 0 {
			overflow = true
		}
		n = sum
	}
	if i == start {
		return 0, errNotStarted
	}
	if overflow {
		return 0, errERange
	}
	if neg {
		n = -n
	}
	rest := s[i:]
	if rest == "" {
		return n, nil
	}
	shift := map[string]uint{"k": 10, "m": 20, "g": 30, "t": 40, "p": 50}[strings.ToLower(rest)]
	if shift == 0 {
		return 0, errors.New("encounter unexpected unit: `" + rest + "`")
	}
	if n > math.MaxUint64>>shift {
		return 0, errOverflow
	}
	return n << shift, nil
}

// Bool is a yes/no setting.
type Bool struct{ v atomic.Bool }

// Get returns the current value.
func (b *Bool) Get() bool { return b.v.Load() }

// String returns "yes" or "no".
func (b *Bool) String() string {
	if b.v.Load() {
		return "yes"
	}
	return "no"
}

func (b *Bool) set(s string) error {
	switch strings.ToLower(s) {
	case "yes":
		b.v.Store(true)
	case "no":
		b.v.Store(false)
	default:
		return errYesNo
	}
	return nil
}

// Text is a text setting.
type Text struct {
	v atomic.Pointer[string]
}

// Get returns the current value.
func (s *Text) Get() string {
	if p := s.v.Load(); p != nil {
		return *p
	}
	return ""
}

// String returns the current value.
func (s *Text) String() string { return s.Get() }

func (s *Text) set(v string) error {
	s.v.Store(&v)
	return nil
}

// Enum is a setting restricted to a fixed set of words, matched without
// regard to case and stored as listed.
type Enum struct {
	Text
	allowed []string
	redis   bool // refused with Redis's text rather than Kvrocks's
}

func (e *Enum) set(v string) error {
	for _, a := range e.allowed {
		if strings.EqualFold(v, a) {
			return e.Text.set(a)
		}
	}
	if e.redis {
		return errors.New("argument(s) must be one of the following: " + strings.Join(e.allowed, ", "))
	}
	return errors.New("invalid enum option, acceptable values are '" + strings.Join(e.allowed, "', '") + "'")
}

// MultiText is a setting whose every occurrence in the file adds an entry
// (Kvrocks's rename-command); an empty value adds nothing.
type MultiText struct {
	v atomic.Pointer[[]string]
}

// Entries returns the entries in the order they were given.
func (m *MultiText) Entries() []string {
	if p := m.v.Load(); p != nil {
		return *p
	}
	return nil
}

// String returns the entries, one per line.
func (m *MultiText) String() string { return strings.Join(m.Entries(), "\n") }

func (m *MultiText) set(s string) error {
	if s == "" {
		return nil
	}
	entries := append(append([]string{}, m.Entries()...), s)
	m.v.Store(&entries)
	return nil
}
