package executor

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// clockTicks is the unit of /proc's CPU times (USER_HZ, 100 on Linux).
const clockTicks = 100

// threadCPU is the CPU time one thread of the process used.
type threadCPU struct {
	tid       int
	name      string
	sys, user int64 // clock ticks
}

// processThreads reads the CPU time of every thread of the process from
// /proc (nil elsewhere), by thread id.
func processThreads() []threadCPU {
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var out []threadCPU
	for _, e := range entries {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile("/proc/self/task/" + e.Name() + "/stat")
		if err != nil {
			continue // the thread ended
		}
		if th, ok := parseThreadStat(tid, string(raw)); ok {
			out = append(out, th)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].tid < out[j].tid })
	return out
}

// parseThreadStat reads the name (between the parentheses, which may
// hold anything) and the utime and stime fields (14th and 15th) of a
// /proc/<pid>/task/<tid>/stat line.
func parseThreadStat(tid int, stat string) (threadCPU, bool) {
	open, closing := strings.IndexByte(stat, '('), strings.LastIndexByte(stat, ')')
	if open < 0 || closing < open {
		return threadCPU{}, false
	}
	rest := strings.Fields(stat[closing+1:])
	// rest[0] is the 3rd field (state): utime is rest[11], stime rest[12].
	if len(rest) < 13 {
		return threadCPU{}, false
	}
	user, errU := strconv.ParseInt(rest[11], 10, 64)
	sys, errS := strconv.ParseInt(rest[12], 10, 64)
	if errU != nil || errS != nil {
		return threadCPU{}, false
	}
	return threadCPU{tid: tid, name: stat[open+1 : closing], sys: sys, user: user}, true
}

// ticksSeconds renders clock ticks as seconds, as used_cpu_sys is.
func ticksSeconds(ticks int64) string {
	return fmt.Sprintf("%d.%06d", ticks/clockTicks, ticks%clockTicks*(1000000/clockTicks))
}

// infoWorkerCPU adds the CPU time of each worker: the threads that run
// Basalt's Go code (connections, commands, crons; as many run at once as
// workers allows), numbered by thread id; then RocksDB's own background
// threads (flushes, compactions) together.
func infoWorkerCPU(b *infoBuilder) {
	var rocksSys, rocksUser int64
	worker := 0
	for _, th := range processThreads() {
		if strings.HasPrefix(th.name, "rocksdb:") {
			rocksSys += th.sys
			rocksUser += th.user
			continue
		}
		n := strconv.Itoa(worker)
		b.field("used_cpu_sys_worker_"+n, infoNumber(ticksSeconds(th.sys)))
		b.field("used_cpu_user_worker_"+n, infoNumber(ticksSeconds(th.user)))
		worker++
	}
	b.field("used_cpu_sys_rocksdb", infoNumber(ticksSeconds(rocksSys)))
	b.field("used_cpu_user_rocksdb", infoNumber(ticksSeconds(rocksUser)))
}
