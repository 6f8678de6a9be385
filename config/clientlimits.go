package config

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
)

// Redis 7's client memory limits (Kvrocks has none): how much a client may
// make the server hold for its requests and for its replies. They are
// parsed, shown and changed as Redis does.

// ClientLimits holds the three keys.
type ClientLimits struct {
	QueryBufferLimit Memory       // client-query-buffer-limit
	MaxMemoryClients MemoryOrPct  // maxmemory-clients
	OutputBuffer     OutputLimits // client-output-buffer-limit
}

func (c *Config) addClientLimits() {
	l := &c.ClientLimits
	l.QueryBufferLimit.min, l.QueryBufferLimit.max = 1<<20, math.MaxInt64
	c.add("client-query-buffer-limit", &l.QueryBufferLimit, "1073741824", basalt,
		"close a client whose unfinished request holds more than this many bytes")
	l.MaxMemoryClients.of = &c.Redis.MaxMemory
	c.add("maxmemory-clients", &l.MaxMemoryClients, "0", basalt,
		"past this many bytes of all clients' request buffers, close the clients holding the most (0: no limit; N% of maxmemory, which is 0)")
	c.add("client-output-buffer-limit", &l.OutputBuffer, "normal 0 0 0 slave 0 0 0 pubsub 0 0 0", basalt,
		"<class> <hard> <soft> <soft-seconds> for the normal, replica and pubsub classes: a client whose unsent replies pass hard, or stay past soft for soft-seconds, is closed (0: no limit)")
}

// Memory is a byte count written as Redis writes memory settings: a
// number with an optional unit b, k, kb, m, mb, g or gb (k = 1000,
// kb = 1024).
type Memory struct {
	v        atomic.Int64
	min, max int64
}

// Get returns the value in bytes.
func (m *Memory) Get() int64 { return m.v.Load() }

// String returns the value in bytes, as CONFIG GET shows it.
func (m *Memory) String() string { return strconv.FormatInt(m.v.Load(), 10) }

func (m *Memory) set(s string) error {
	n, ok := parseMemory(s)
	if !ok {
		return errors.New("argument must be a memory value")
	}
	if n < m.min || n > m.max {
		return errors.New("argument must be between " + strconv.FormatInt(m.min, 10) + " and " + strconv.FormatInt(m.max, 10) + " inclusive")
	}
	m.v.Store(n)
	return nil
}

// parseMemory is Redis's memtoull: digits and an optional unit, nothing
// negative, no overflow.
func parseMemory(s string) (int64, bool) {
	lower := strings.ToLower(s)
	digits := strings.TrimRight(lower, "bkmg")
	mult, ok := map[string]int64{"": 1, "b": 1, "k": 1000, "kb": 1024, "m": 1000 * 1000, "mb": 1 << 20, "g": 1000 * 1000 * 1000, "gb": 1 << 30}[lower[len(digits):]]
	if !ok || digits == "" {
		return 0, false
	}
	if strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, false
	}
	return n * mult, true
}

// MemoryOrPct is a byte count, or a percentage of maxmemory ("10%").
type MemoryOrPct struct {
	v  atomic.Pointer[string]
	of *RedisInt // maxmemory
}

// Get returns the limit in bytes: a percentage is of maxmemory, so with
// maxmemory 0 (the default) it means no limit.
func (m *MemoryOrPct) Get() int64 {
	s := m.String()
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		n, _ := strconv.ParseInt(pct, 10, 64)
		if m.of == nil {
			return 0
		}
		return int64(float64(m.of.Get()) * float64(n) / 100)
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// String returns the bytes, or the percentage as given.
func (m *MemoryOrPct) String() string {
	if p := m.v.Load(); p != nil {
		return *p
	}
	return "0"
}

func (m *MemoryOrPct) set(s string) error {
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		n, err := strconv.ParseInt(pct, 10, 64)
		if err != nil || n < 0 {
			return errors.New("argument must be a memory or percent value")
		}
		if n > 100 {
			return errors.New("percentage argument must be less or equal to 100")
		}
		v := strconv.FormatInt(n, 10) + "%"
		m.v.Store(&v)
		return nil
	}
	n, ok := parseMemory(s)
	if !ok {
		return errors.New("argument must be a memory or percent value")
	}
	v := strconv.FormatInt(n, 10)
	m.v.Store(&v)
	return nil
}

// Client classes of client-output-buffer-limit.
const (
	ClassNormal = iota
	ClassReplica
	ClassPubSub
	numClasses
)

var classNames = [numClasses]string{"normal", "slave", "pubsub"}

// ClassName returns a class's name as client-output-buffer-limit writes it.
func ClassName(class int) string { return classNames[class] }

// OutputLimit is one class's limit: a client whose unsent output passes
// Hard bytes, or stays above Soft bytes for SoftSeconds, is closed. Zero
// means no limit.
type OutputLimit struct {
	Hard, Soft, SoftSeconds int64
}

// OutputLimits is client-output-buffer-limit: a limit per client class.
// Setting it changes only the classes named.
type OutputLimits struct {
	v atomic.Pointer[[numClasses]OutputLimit]
}

// Get returns the limit of a class (ClassNormal, ClassReplica,
// ClassPubSub).
func (o *OutputLimits) Get(class int) OutputLimit {
	if p := o.v.Load(); p != nil {
		return p[class]
	}
	return OutputLimit{}
}

// String shows every class in bytes, as Redis does.
func (o *OutputLimits) String() string {
	var b strings.Builder
	for class, name := range classNames {
		l := o.Get(class)
		if class > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(name + " " + strconv.FormatInt(l.Hard, 10) + " " + strconv.FormatInt(l.Soft, 10) + " " + strconv.FormatInt(l.SoftSeconds, 10))
	}
	return b.String()
}

func (o *OutputLimits) set(s string) error {
	words := strings.Fields(s)
	if len(words)%4 != 0 {
		return errors.New("Wrong number of arguments in buffer limit configuration.")
	}
	var limits [numClasses]OutputLimit
	if p := o.v.Load(); p != nil {
		limits = *p
	}
	for i := 0; i < len(words); i += 4 {
		class := -1
		switch strings.ToLower(words[i]) {
		case "normal":
			class = ClassNormal
		case "slave", "replica":
			class = ClassReplica
		case "pubsub":
			class = ClassPubSub
		default:
			return errors.New("Invalid client class specified in buffer limit configuration.")
		}
		hard, okHard := parseMemory(words[i+1])
		soft, okSoft := parseMemory(words[i+2])
		secs, err := strconv.ParseInt(words[i+3], 10, 64)
		if !okHard || !okSoft || err != nil || secs < 0 {
			return errors.New("Error in hard, soft or soft_seconds setting in buffer limit configuration.")
		}
		limits[class] = OutputLimit{Hard: hard, Soft: soft, SoftSeconds: secs}
	}
	o.v.Store(&limits)
	return nil
}
