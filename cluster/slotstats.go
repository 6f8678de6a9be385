package cluster

import "sync/atomic"

// SlotStats are the per-slot counters CLUSTER SLOT-STATS reports with
// cluster-slot-stats-enabled (Redis 8.2): the time commands whose keys are
// in the slot ran, and the bytes of their requests and replies. A command
// adds to them with one atomic add each, only while the option is on.
type SlotStats struct {
	cpuUsec, netIn, netOut [SlotCount]atomic.Int64
}

// SlotUsage is what SlotStats counted for one slot.
type SlotUsage struct {
	CPUUsec, NetIn, NetOut int64
}

// Add counts a command of slot that ran usec microseconds, read in bytes
// and replied out bytes.
func (s *SlotStats) Add(slot int, usec, in, out int64) {
	s.cpuUsec[slot].Add(usec)
	s.netIn[slot].Add(in)
	s.netOut[slot].Add(out)
}

// Usage returns what was counted for slot.
func (s *SlotStats) Usage(slot int) SlotUsage {
	return SlotUsage{CPUUsec: s.cpuUsec[slot].Load(), NetIn: s.netIn[slot].Load(), NetOut: s.netOut[slot].Load()}
}

// Reset zeroes every slot's counters (CONFIG RESETSTAT).
func (s *SlotStats) Reset() {
	for i := range s.cpuUsec {
		s.cpuUsec[i].Store(0)
		s.netIn[i].Store(0)
		s.netOut[i].Store(0)
	}
}
