package config

import (
	"errors"
	"strings"
	"sync/atomic"
	"time"
)

// Cron is a crontab setting as Kvrocks reads them (cron.cc): zero or more
// schedules of five fields each (minute, hour, day of month, month, day of
// week), all separated by blanks. A field is *, */n (every n-th value), or
// a comma-separated list of numbers and ranges l-r (l < r). Empty: never.
type Cron struct {
	v atomic.Pointer[cronValue]
}

// cronValue is the setting as written and the schedules it stands for;
// compaction-checker-range sets schedules under an empty text, as Kvrocks
// does.
type cronValue struct {
	text      string
	schedules []schedule
}

// schedule holds, per field, the set of values it matches as a bit set.
type schedule [5]uint64

// cronFields are the fields' bounds, in order.
var cronFields = [5]struct{ min, max int64 }{{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 6}}

// Get returns the setting as written.
func (c *Cron) Get() string {
	if p := c.v.Load(); p != nil {
		return p.text
	}
	return ""
}

// String returns the setting as CONFIG GET shows it.
func (c *Cron) String() string { return c.Get() }

// Matches reports whether one of the schedules matches t's minute.
func (c *Cron) Matches(t time.Time) bool {
	p := c.v.Load()
	if p == nil {
		return false
	}
	at := [5]int{t.Minute(), t.Hour(), t.Day(), int(t.Month()), int(t.Weekday())}
	for _, s := range p.schedules {
		matched := true
		for i, v := range at {
			if s[i]&(1<<v) == 0 {
				matched = false
				break
			}
		}
		if matched {
			return true
		}
	}
	return false
}

func (c *Cron) set(text string) error {
	schedules, err := parseCron(strings.Fields(text))
	if err != nil {
		return err
	}
	c.v.Store(&cronValue{text: text, schedules: schedules})
	return nil
}

// parseCron parses schedules of five fields, with Kvrocks's error texts.
func parseCron(fields []string) ([]schedule, error) {
	if len(fields)%5 != 0 {
		return nil, errors.New("cron expression format error, should only contain 5x fields")
	}
	var out []schedule
	for i := 0; i < len(fields); i += 5 {
		var s schedule
		for f := range s {
			bits, err := parseCronField(fields[i+f], cronFields[f].min, cronFields[f].max)
			if err != nil {
				return nil, errors.New("cron expression format error: " + err.Error())
			}
			s[f] = bits
		}
		out = append(out, s)
	}
	return out, nil
}

// parseCronField returns the values of [min, max] one field matches.
func parseCronField(field string, min, max int64) (uint64, error) {
	number := func(s, what string) (int64, error) {
		n, err := parseCInt(s, kindInt)
		if err == nil && (n < min || n > max) {
			err = errNumericRange
		}
		if err != nil {
			return 0, errors.New(what + ": " + err.Error())
		}
		return n, nil
	}
	var bits uint64
	switch {
	case field == "*":
		for v := min; v <= max; v++ {
			bits |= 1 << v
		}
	case strings.HasPrefix(field, "*/"):
		n, err := number(field[2:], "an integer is expected after `*/` in a cron expression")
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, errors.New("interval value after `*/` cannot be zero")
		}
		for v := min; v <= max; v++ {
			if v%n == 0 {
				bits |= 1 << v
			}
		}
	default:
		for _, part := range strings.Split(field, ",") {
			l, r, isRange := strings.Cut(part, "-")
			if !isRange {
				n, err := number(part, "an integer is expected in a cron expression")
				if err != nil {
					return 0, err
				}
				bits |= 1 << n
				continue
			}
			from, err := number(l, "an integer is expected before `-` in a cron expression")
			if err != nil {
				return 0, err
			}
			to, err := number(r, "an integer is expected after `-` in a cron expression")
			if err != nil {
				return 0, err
			}
			if from >= to {
				return 0, errors.New("for pattern `l-r` in cron expression, r should be larger than l")
			}
			for v := from; v <= to; v++ {
				bits |= 1 << v
			}
		}
	}
	return bits, nil
}

// hourRange is the deprecated compaction-checker-range, hours such as
// "0-7": setting it gives compaction-checker-cron the schedule
// "* <range> * * *" and leaves that setting's text empty, as Kvrocks does.
// It is refused while compaction-checker-cron has a text.
type hourRange struct {
	Text
	cron *Cron
}

// validate checks v and installs its schedule.
func (h *hourRange) validate(v string) error {
	if h.cron.Get() != "" {
		return errors.New("compaction-checker-range cannot be set while compaction-checker-cron is set")
	}
	var schedules []schedule
	if v != "" {
		var err error
		if schedules, err = parseCron([]string{"*", v, "*", "*", "*"}); err != nil {
			return err
		}
	}
	h.cron.v.Store(&cronValue{schedules: schedules})
	return nil
}
