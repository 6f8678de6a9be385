package scripting

import (
	"runtime"
	"runtime/metrics"
	"syscall"
	"time"
)

// memoryLimit is how much the heap may grow while a script runs before
// the script is stopped with an error; a string a builtin would make is
// checked against it before it is made.
var memoryLimit int64 = 512 << 20

const (
	memoryLimitText = "512 MB"
	watchdogTick    = 10 * time.Millisecond
)

// heapBytes is the memory of the heap's objects, garbage not yet swept
// included.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// liveHeapAfterGC collects garbage and returns what remains.
func liveHeapAfterGC() uint64 {
	runtime.GC()
	return heapBytes()
}

// heapKB is collectgarbage("count"): the heap in kilobytes.
func heapKB() float64 { return float64(heapBytes()) / 1024 }

// processSeconds is the processor time the server used, for os.clock.
func processSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
