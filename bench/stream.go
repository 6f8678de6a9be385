package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// streamCommands are benchmarked after the built-in tests: XADD appends
// to mystream, which XRANGE then reads 100 entries of, with a tenth of
// the requests (-n after the load's own wins): each moves 100 entries,
// and every server does a few thousand a second.
var streamCommands = [][]string{
	{"XADD", "mystream", "*", "field", "__rand_int__"},
	{"-n", "20000", "XRANGE", "mystream", "-", "+", "COUNT", "100"},
}

// benchStreams prints the figures of streams beyond redis-benchmark's:
// the group loop over groupEntries entries and the XRANGE of a stream of
// bigStream entries (0: skipped).
func benchStreams(servers []*server, groupEntries, bigStream int) {
	if groupEntries > 0 {
		printRow("XREADGROUP COUNT 1 + XACK, 50 consumers (loops/s)", "-", perServer(servers, func(s *server) float64 { return benchGroupLoop(s.port, groupEntries) }))
	}
	if bigStream > 0 {
		printBigRange(servers, bigStream)
	}
}

// benchGroupLoop times a consumer group's work loop: 50 consumers of one
// group each read one new entry (XREADGROUP COUNT 1) and acknowledge it
// (XACK), one request at a time, over entries added beforehand. It
// returns loops (read and acknowledged entries) per second.
func benchGroupLoop(port, entries int) float64 {
	const consumers = 50
	ctx := context.Background()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
	defer c.Close()
	check(c.Del(ctx, "groupstream").Err())
	pipe := c.Pipeline()
	for i := 0; i < entries; i++ {
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: "groupstream", Values: []any{"job", i}})
		if pipe.Len() == 1000 {
			_, err := pipe.Exec(ctx)
			check(err)
		}
	}
	_, err := pipe.Exec(ctx)
	check(err)
	check(c.XGroupCreate(ctx, "groupstream", "workers", "0").Err())
	var done atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < consumers; i++ {
		cc := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
		defer cc.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "c" + strconv.Itoa(i)
			for done.Load() < int64(entries) {
				res, err := cc.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "workers", Consumer: name, Streams: []string{"groupstream", ">"}, Count: 1, Block: -1}).Result()
				// All read: a null, or from Kvrocks 2.10 an empty read.
				if err == redis.Nil || (err == nil && len(res) == 1 && len(res[0].Messages) == 0) {
					return
				}
				if err == nil && (len(res) != 1 || len(res[0].Messages) != 1) {
					err = fmt.Errorf("XREADGROUP COUNT 1 read %v", res)
				}
				if err == nil {
					err = cc.XAck(ctx, "groupstream", "workers", res[0].Messages[0].ID).Err()
				}
				if err != nil {
					fmt.Fprintf(os.Stderr, "bench: group loop on port %d: %v\n", port, err)
					failed.Store(true)
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	pending := c.XPending(ctx, "groupstream", "workers").Val()
	check(c.Del(ctx, "groupstream").Err())
	if failed.Load() || done.Load() != int64(entries) || pending == nil || pending.Count != 0 {
		return math.NaN()
	}
	return float64(entries) / elapsed.Seconds()
}

// bigRange is what benchBigRange measured on one server.
type bigRange struct {
	fill, read     time.Duration
	rssBefore, add float64 // MB: RSS before XRANGE, and its growth while it ran
}

// benchBigRange fills bigstream with n entries (pipelined XADDs), then
// reads it whole with one XRANGE - + through a connection that discards
// the reply as it comes, and samples the server's RSS meanwhile: a
// server that holds the whole reply grows by its size.
func benchBigRange(s *server, n int) bigRange {
	var r bigRange
	ctx := context.Background()
	addr := "127.0.0.1:" + strconv.Itoa(s.port)
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, ReadTimeout: 10 * time.Minute})
	defer c.Close()
	start := time.Now()
	const writers, batch = 4, 1000
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wc := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, ReadTimeout: time.Minute})
		defer wc.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			pipe := wc.Pipeline()
			for i := w; i < n; i += writers {
				pipe.XAdd(ctx, &redis.XAddArgs{Stream: "bigstream", Values: []any{"field", i}})
				if pipe.Len() == batch {
					_, err := pipe.Exec(ctx)
					check(err)
				}
			}
			_, err := pipe.Exec(ctx)
			check(err)
		}()
	}
	wg.Wait()
	r.fill = time.Since(start)
	if got := c.XLen(ctx, "bigstream").Val(); got != int64(n) {
		check(fmt.Errorf("%s: bigstream has %d entries, want %d", s.name, got, n))
	}
	r.rssBefore = s.memoryMB("VmRSS")
	peak := r.rssBefore
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				peak = max(peak, s.memoryMB("VmRSS"))
			}
		}
	}()
	conn, err := net.Dial("tcp", addr)
	check(err)
	defer conn.Close()
	start = time.Now()
	_, err = conn.Write([]byte("*4\r\n$6\r\nXRANGE\r\n$9\r\nbigstream\r\n$1\r\n-\r\n$1\r\n+\r\n"))
	check(err)
	check(discardReply(bufio.NewReaderSize(conn, 1<<16)))
	r.read = time.Since(start)
	close(stop)
	<-sampled
	r.add = peak - r.rssBefore
	check(c.Del(ctx, "bigstream").Err())
	return r
}

// discardReply reads one RESP2 reply and drops it.
func discardReply(rd *bufio.Reader) error {
	line, err := rd.ReadSlice('\n')
	if err != nil {
		return err
	}
	if len(line) < 3 {
		return fmt.Errorf("bad reply line %q", line)
	}
	n, _ := strconv.Atoi(string(line[1 : len(line)-2]))
	switch line[0] {
	case '*':
		for i := 0; i < n; i++ {
			if err := discardReply(rd); err != nil {
				return err
			}
		}
	case '$':
		if n >= 0 {
			_, err = io.CopyN(io.Discard, rd, int64(n)+2)
		}
	case '-':
		return fmt.Errorf("error reply %q", line)
	}
	return err
}

// printBigRange prints what benchBigRange measured on each server.
func printBigRange(servers []*server, n int) {
	fmt.Printf("\nXRANGE - + of a stream of %d entries, read by a client that keeps up\n\n", n)
	results := make([]bigRange, len(servers))
	for i, s := range servers {
		results[i] = benchBigRange(s, n)
	}
	row := func(label string, f func(bigRange) float64) {
		values := make([][]float64, len(servers))
		for i, r := range results {
			values[i] = []float64{f(r)}
		}
		printRow(label, "-", values)
	}
	row("fill with pipelined XADD (entries/s)", func(r bigRange) float64 { return float64(n) / r.fill.Seconds() })
	row("XRANGE - + (entries/s)", func(r bigRange) float64 { return float64(n) / r.read.Seconds() })
	row("RSS before XRANGE (MB)", func(r bigRange) float64 { return r.rssBefore })
	row("RSS growth during XRANGE (MB)", func(r bigRange) float64 { return r.add })
}
