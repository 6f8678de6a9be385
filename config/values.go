package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
)

// value is one typed setting. set validates before it stores anything.
type value interface {
	String() string
	set(s string) error
}

// Int is an integer setting, safe to read concurrently with CONFIG SET.
type Int struct {
	v        atomic.Int64
	min, max int64
	memory   bool // accepts memory units (kb, mb, gb) as Redis does
}

// Get returns the current value.
func (i *Int) Get() int64 { return i.v.Load() }

// String returns the value as CONFIG GET shows it.
func (i *Int) String() string { return strconv.FormatInt(i.v.Load(), 10) }

func (i *Int) set(s string) error {
	n, err := parseInt(s, i.memory)
	if err != nil {
		return err
	}
	if n < i.min || n > i.max {
		return fmt.Errorf("value %d is out of range [%d, %d]", n, i.min, i.max)
	}
	i.v.Store(n)
	return nil
}

func parseInt(s string, memory bool) (int64, error) {
	mult := int64(1)
	if memory {
		lower := strings.ToLower(s)
		for _, u := range []struct {
			suffix string
			mult   int64
		}{{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1000}, {"m", 1000 * 1000}, {"g", 1000 * 1000 * 1000}, {"b", 1}} {
			if strings.HasSuffix(lower, u.suffix) {
				s, mult = s[:len(s)-len(u.suffix)], u.mult
				break
			}
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	if n > math.MaxInt64/mult || n < math.MinInt64/mult {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return n * mult, nil
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
		return fmt.Errorf("%q is not yes or no", s)
	}
	return nil
}

// Text is a text setting.
type Text struct {
	v     atomic.Pointer[string]
	check func(string) error // optional validation
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
	if s.check != nil {
		if err := s.check(v); err != nil {
			return err
		}
	}
	s.v.Store(&v)
	return nil
}

// Enum is a setting restricted to a fixed set of lower-case words.
type Enum struct {
	Text
	allowed []string
}

func (e *Enum) set(v string) error {
	v = strings.ToLower(v)
	for _, a := range e.allowed {
		if v == a {
			return e.Text.set(v)
		}
	}
	return fmt.Errorf("%q is not one of %s", v, strings.Join(e.allowed, ", "))
}
