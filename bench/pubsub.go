package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// benchFanOut publishes messages from 4 connections to one channel with
// 100 subscribers, and returns the messages delivered per second (each
// publish delivers 100), or NaN (a timeout) if some are still missing a
// minute after the last publish.
func benchFanOut(port, messages int) float64 {
	const subscribers, publishers = 100, 4
	ctx := context.Background()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	var received atomic.Int64
	var subs []*redis.PubSub
	var wg sync.WaitGroup
	for i := 0; i < subscribers; i++ {
		c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
		defer c.Close()
		ps := c.Subscribe(ctx, "fanout")
		_, err := ps.Receive(ctx)
		check(err)
		subs = append(subs, ps)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range ps.Channel(redis.WithChannelSize(4096)) {
				received.Add(1)
			}
		}()
	}
	start := time.Now()
	var pw sync.WaitGroup
	for p := 0; p < publishers; p++ {
		c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
		defer c.Close()
		pw.Add(1)
		go func() {
			defer pw.Done()
			for i := 0; i < messages/publishers; i++ {
				check(c.Publish(ctx, "fanout", "message payload of some forty bytes....").Err())
			}
		}()
	}
	pw.Wait()
	want := int64(messages / publishers * publishers * subscribers)
	deadline := time.Now().Add(time.Minute)
	for received.Load() < want && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	for _, ps := range subs {
		ps.Close()
	}
	wg.Wait()
	if got := received.Load(); got != want {
		fmt.Fprintf(os.Stderr, "bench: fan-out on port %d: %d of %d messages delivered within a minute\n", port, got, want)
		return math.NaN()
	}
	return float64(want) / elapsed.Seconds()
}

// benchQueue moves items from 10 LPUSH producers to 10 BRPOP consumers
// and returns the items moved per second. The consumer that takes the last
// item pushes one more for each consumer, so that none is left waiting
// for its BRPOP timeout, which is not part of the measure. A BRPOP that
// fails (Kvrocks loses a consumer that was woken for an item another one
// took: it neither times out nor wakes again, until the client gives up)
// makes the result NaN, a test not finished.
func benchQueue(port, items int) float64 {
	const producers, consumers = 10, 10
	ctx := context.Background()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	var moved atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	var elapsed time.Duration
	start := time.Now()
	for i := 0; i < consumers; i++ {
		c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
		defer c.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for moved.Load() < int64(items) {
				err := c.BRPop(ctx, time.Second, "benchqueue").Err()
				if err == redis.Nil {
					continue
				}
				if err != nil {
					fmt.Fprintf(os.Stderr, "bench: queue on port %d: BRPOP: %v\n", port, err)
					failed.Store(true)
					return
				}
				if moved.Add(1) == int64(items) {
					elapsed = time.Since(start)
					check(c.LPush(ctx, "benchqueue", make([]any, consumers)...).Err())
				}
			}
		}()
	}
	var pw sync.WaitGroup
	for p := 0; p < producers; p++ {
		c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
		defer c.Close()
		pw.Add(1)
		go func() {
			defer pw.Done()
			for i := 0; i < items/producers; i++ {
				check(c.LPush(ctx, "benchqueue", i).Err())
			}
		}()
	}
	pw.Wait()
	wg.Wait()
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
	defer c.Close()
	check(c.Del(ctx, "benchqueue").Err())
	if failed.Load() || moved.Load() < int64(items) {
		return math.NaN()
	}
	return float64(items) / elapsed.Seconds()
}
