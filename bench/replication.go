package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Replication figures (issue 21, "Speed"): how fast a new replica copies a
// master's data set in a full sync, and how far a replica trails its
// master, and what it costs the master, under redis-benchmark's SET load.
// Master and replica are Basalt processes on this machine, sharing its
// cores with redis-benchmark.

// benchReplication prints the full sync of mb MB (0: skipped) and the lag
// under l's SET load at -P 1 and -P 16: with every process sharing the
// cores, and, where taskset can, with the replica on a core of its own
// (the master and redis-benchmark on the other), as a replica on another
// machine would be: the master then pays only for feeding it.
func benchReplication(bin, dir string, mb int, l load) {
	fmt.Printf("\nreplication: a basalt master and a basalt replica on this machine\n\n")
	if mb > 0 {
		benchFullSync(bin, dir+"/fullsync", mb)
	}
	layouts := []bool{false}
	if runtime.NumCPU() >= 2 && pin(os.Getpid(), allCPUs()) {
		layouts = append(layouts, true)
	}
	for _, pinned := range layouts {
		for _, pipeline := range []int{1, 16} {
			benchLag(bin, fmt.Sprintf("%s/lag-%d-%t", dir, pipeline, pinned), l, pipeline, pinned)
		}
	}
}

// benchFullSync fills a master whose WAL keeps nothing once flushed with
// mb MB of mixed data, compacts it, and times a new replica from SLAVEOF
// until it holds the master's sequence: the checkpoint and the fetch of
// its files (master_sync_in_progress), then the swap and the PSYNC that
// follows. The rate is the checkpoint's bytes over the fetch.
func benchFullSync(bin, dir string, mb int) {
	master := startBasalt("basalt master", bin, "--dir", dir+"/master", "--log-level", "warning",
		"--rocksdb.wal_ttl_seconds", "0", "--rocksdb.wal_size_limit_mb", "0")
	defer master.stop()
	mc := nodeClient(master)
	defer mc.Close()
	filled := time.Now()
	keys, bytes := fillSlots(mc, 0, 16383, int64(mb)<<20)
	fillTime := time.Since(filled)
	// COMPACT flushes the memtables: the WAL then holds nothing, and a new
	// replica's PSYNC is refused.
	check(mc.Do(context.Background(), "COMPACT").Err())
	want := sequence(mc)

	replica := startBasalt("basalt replica", bin, "--dir", dir+"/replica", "--log-level", "warning")
	defer replica.stop()
	rc := nodeClient(replica)
	defer rc.Close()
	begin := time.Now()
	check(rc.Do(context.Background(), "SLAVEOF", "127.0.0.1", master.port).Err())
	var fetchFrom, fetchTo time.Time
	for {
		info := infoFields(rc, "replication")
		now := time.Now()
		if info["master_sync_in_progress"] == "1" {
			if fetchFrom.IsZero() {
				fetchFrom = now
			}
			fetchTo = now
		}
		if info["master_link_status"] == "up" && sequence(rc) >= want {
			break
		}
		if now.Sub(begin) > 30*time.Minute {
			check(fmt.Errorf("full sync: the replica did not catch up in 30 minutes"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	total := time.Since(begin)
	files, size := dirSize(filepath.Join(dir, "master", "checkpoint"))
	if full := infoFields(mc, "stats")["sync_full"]; full != "1" {
		check(fmt.Errorf("full sync: the master counted %s full syncs, want 1", full))
	}
	fetch := fetchTo.Sub(fetchFrom)
	conns := 1
	if files > 20 {
		conns = 4
	}
	fmt.Printf("full sync: %d keys, %.0f MB of values (filled in %v), checkpoint %.0f MB in %d files (%d connection(s))\n",
		keys, float64(bytes)/(1<<20), fillTime.Round(time.Second), float64(size)/(1<<20), files, conns)
	fmt.Printf("  SLAVEOF to caught up %v: %.0f MB/s; checkpoint and fetch %v: %.0f MB/s; swap and PSYNC %v\n",
		total.Round(time.Millisecond), float64(size)/(1<<20)/total.Seconds(),
		fetch.Round(time.Millisecond), float64(size)/(1<<20)/fetch.Seconds(),
		(total - fetchTo.Sub(begin)).Round(time.Millisecond))
}

// benchLag runs redis-benchmark's SET at the pipeline given against a
// master alone, then against a new master with a replica attached while
// the lag is sampled every 50 ms, and prints both throughputs and the lag.
// The lag of a sample is the time from reading the master's sequence
// until the replica's reaches it. pinned puts the replica on CPU 1 and
// everything else (this process and so redis-benchmark) on CPU 0.
func benchLag(bin, dir string, l load, pipeline int, pinned bool) {
	layout := "shared cores"
	if pinned {
		layout = "replica on its own core"
		pin(os.Getpid(), "0")
		defer pin(os.Getpid(), allCPUs())
	}
	step := []string{"-t", "set"}
	alone := startBasalt("basalt master", bin, "--dir", dir+"/alone", "--log-level", "warning")
	ticks := alone.cpuTicks()
	without := l.measure(step, pipeline, alone)
	aloneCPU := alone.cpuPerRequest(ticks, l.sent(pipeline))
	alone.stop()

	master := startBasalt("basalt master", bin, "--dir", dir+"/master", "--log-level", "warning")
	defer master.stop()
	replica := startBasalt("basalt replica", bin, "--dir", dir+"/replica", "--log-level", "warning")
	defer replica.stop()
	if pinned {
		pin(replica.cmd.Process.Pid, "1")
	}
	mc, rc := nodeClient(master), nodeClient(replica)
	defer mc.Close()
	defer rc.Close()
	check(rc.Do(context.Background(), "SLAVEOF", "127.0.0.1", master.port).Err())
	waitCaughtUp(mc, rc, time.Minute)

	done := make(chan struct{})
	lags := make(chan []time.Duration)
	go func() { lags <- sampleLag(mc, rc, done) }()
	masterTicks, replicaTicks := master.cpuTicks(), replica.cpuTicks()
	with := l.measure(step, pipeline, master, replica)
	close(done)
	samples := <-lags
	end := time.Now()
	waitCaughtUp(mc, rc, 5*time.Minute)
	drained := time.Since(end)
	masterCPU := master.cpuPerRequest(masterTicks, l.sent(pipeline))
	replicaCPU := replica.cpuPerRequest(replicaTicks, l.sent(pipeline))

	third := len(samples) / 3
	fmt.Printf("SET -P %-2d %s: master alone %s, with a replica %s (%s); CPU per SET: master alone %v, with a replica %v, replica %v\n",
		pipeline, layout, opsText(without, "SET"), opsText(with, "SET"), ratioText(with, without, "SET"), aloneCPU, masterCPU, replicaCPU)
	fmt.Printf("  lag p50 %v p99 %v max %v over %d samples, p50 of the first third %v, of the last %v; caught up %v after the load\n",
		percentile(samples, 50), percentile(samples, 99), percentile(samples, 100), len(samples),
		percentile(samples[:third], 50), percentile(samples[len(samples)-third:], 50), drained.Round(time.Millisecond))
}

// cpuPerRequest is the CPU the server used since ticks, per request.
func (s *server) cpuPerRequest(ticks int64, requests int) time.Duration {
	used := time.Duration(s.cpuTicks()-ticks) * time.Second / clockTicks
	return (used / time.Duration(requests)).Round(100 * time.Nanosecond)
}

// clockTicks is the unit of /proc/<pid>/stat's CPU times (USER_HZ, 100 on
// Linux).
const clockTicks = 100

// pin binds every thread of process pid to cpus ("0", "0-1"), with
// taskset; threads created later inherit it. It reports whether it did.
func pin(pid int, cpus string) bool {
	return exec.Command("taskset", "-a", "-cp", cpus, strconv.Itoa(pid)).Run() == nil
}

func allCPUs() string { return "0-" + strconv.Itoa(runtime.NumCPU()-1) }

// sampleLag measures the lag every 50 ms until done is closed.
func sampleLag(mc, rc *redis.Client, done <-chan struct{}) []time.Duration {
	var out []time.Duration
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return out
		case <-tick.C:
		}
		from := time.Now()
		target := sequence(mc)
		for sequence(rc) < target {
			select {
			case <-done:
				return out
			default:
			}
			time.Sleep(time.Millisecond)
		}
		out = append(out, time.Since(from))
	}
}

// waitCaughtUp waits until the replica holds the master's sequence, which
// must not move meanwhile.
func waitCaughtUp(mc, rc *redis.Client, limit time.Duration) {
	want := sequence(mc)
	deadline := time.Now().Add(limit)
	for sequence(rc) < want || infoFields(rc, "replication")["master_link_status"] != "up" {
		if time.Now().After(deadline) {
			check(fmt.Errorf("the replica did not reach the master's sequence %d in %v", want, limit))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func opsText(r result, test string) string {
	if r.timedOut {
		return "timeout"
	}
	return fmt.Sprintf("%.0f ops/s", r.rps[test])
}

func ratioText(a, b result, test string) string {
	if a.timedOut || b.timedOut {
		return "-"
	}
	return fmt.Sprintf("%.2f", a.rps[test]/b.rps[test])
}

// sequence is a node's latest sequence number (INFO keyspace).
func sequence(c *redis.Client) uint64 {
	n, err := strconv.ParseUint(infoFields(c, "keyspace")["sequence"], 10, 64)
	check(err)
	return n
}

// infoFields returns the key:value lines of an INFO section.
func infoFields(c *redis.Client, section string) map[string]string {
	text, err := c.Info(context.Background(), section).Result()
	check(err)
	out := map[string]string{}
	for _, line := range strings.Split(text, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = v
		}
	}
	return out
}

// dirSize returns the number and total size of the files in dir.
func dirSize(dir string) (files int, bytes int64) {
	entries, err := os.ReadDir(dir)
	check(err)
	for _, e := range entries {
		info, err := e.Info()
		check(err)
		files++
		bytes += info.Size()
	}
	return files, bytes
}
