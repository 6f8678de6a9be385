package config

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Cron is a crontab setting as Kvrocks writes them: zero or more schedules
// of five fields each (minute, hour, day of month, month, day of week),
// all separated by spaces. A field is *, a number, a range a-b, any of
// them with a /step, or a comma-separated list of those. Empty: never.
type Cron struct {
	v atomic.Pointer[cronValue]
}

type cronValue struct {
	text      string
	schedules []schedule
}

// schedule holds, per field, the set of values it matches as a bit set.
type schedule [5]uint64

// cronFields are the fields' names and bounds, in order.
var cronFields = [5]struct {
	name     string
	min, max int
}{{"minute", 0, 59}, {"hour", 0, 23}, {"day of month", 1, 31}, {"month", 1, 12}, {"day of week", 0, 6}}

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
	fields := strings.Fields(text)
	if len(fields)%5 != 0 {
		return fmt.Errorf("a cron schedule has 5 fields (minute hour day month weekday), got %d", len(fields))
	}
	v := &cronValue{text: strings.Join(fields, " ")}
	for i := 0; i < len(fields); i += 5 {
		var s schedule
		for f := range s {
			bits, err := parseCronField(fields[i+f], cronFields[f].min, cronFields[f].max)
			if err != nil {
				return fmt.Errorf("cron %s field %q: %w", cronFields[f].name, fields[i+f], err)
			}
			s[f] = bits
		}
		v.schedules = append(v.schedules, s)
	}
	c.v.Store(v)
	return nil
}

// parseCronField returns the values of [min, max] one field matches.
func parseCronField(field string, min, max int) (uint64, error) {
	var bits uint64
	for _, part := range strings.Split(field, ",") {
		span, stepText, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n < 1 {
				return 0, fmt.Errorf("bad step %q", stepText)
			}
			step = n
		}
		from, to := min, max
		if span != "*" {
			a, b, isRange := strings.Cut(span, "-")
			var err error
			if from, err = cronNumber(a, min, max); err != nil {
				return 0, err
			}
			to = from
			if isRange {
				if to, err = cronNumber(b, min, max); err != nil {
					return 0, err
				}
				if to < from {
					return 0, fmt.Errorf("empty range %q", span)
				}
			} else if hasStep {
				to = max
			}
		}
		for v := from; v <= to; v += step {
			bits |= 1 << v
		}
	}
	return bits, nil
}

func cronNumber(s string, min, max int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < min || n > max {
		return 0, fmt.Errorf("%q is not a number from %d to %d", s, min, max)
	}
	return n, nil
}

// hourRange is the deprecated compaction-checker-range "a-b" (hours):
// setting it sets the compaction-checker-cron it stands for, "* a-b * * *".
type hourRange struct {
	Text
	cron *Cron
}

func (h *hourRange) set(v string) error {
	v = strings.TrimSpace(v)
	if v == "" {
		return h.Text.set(v)
	}
	a, b, ok := strings.Cut(v, "-")
	from, errA := cronNumber(a, 0, 23)
	to, errB := cronNumber(b, 0, 23)
	if !ok || errA != nil || errB != nil || to < from {
		return fmt.Errorf("%q is not a range of hours such as 0-7", v)
	}
	if err := h.cron.set(fmt.Sprintf("* %d-%d * * *", from, to)); err != nil {
		return err
	}
	return h.Text.set(v)
}
