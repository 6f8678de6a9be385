package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// benchFanOut publishes messages from 4 connections to one channel with
// 100 subscribers, and returns the messages delivered per second (each
// publish delivers 100).
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
		check(fmt.Errorf("fan-out on port %d: %d of %d messages delivered", port, got, want))
	}
	return float64(want) / elapsed.Seconds()
}

// benchQueue moves items from 10 LPUSH producers to 10 BRPOP consumers
// and returns the items moved per second.
func benchQueue(port, items int) float64 {
	const producers, consumers = 10, 10
	ctx := context.Background()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	var moved atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < consumers; i++ {
		c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2})
		defer c.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for moved.Load() < int64(items) {
				err := c.BRPop(ctx, time.Second, "benchqueue").Err()
				if err == nil {
					moved.Add(1)
				} else if err != redis.Nil {
					check(err)
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
	return float64(items) / time.Since(start).Seconds()
}
