package it

import (
	"context"
	"errors"
	"math/rand"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestNoCommandPanics sends every command random arguments: a handler
// that panics answers "ERR internal error" (the dispatcher recovers), which
// must never happen, and the server must keep serving.
func TestNoCommandPanics(t *testing.T) {
	t.Run("standalone", func(t *testing.T) { sendRandomArguments(t, startBasalt(t)) })
	t.Run("cluster", func(t *testing.T) {
		p := startBasalt(t, "--cluster-enabled", "yes")
		all := strings.Repeat("1", 40) + " 127.0.0.1 " + strconv.Itoa(p.Port) + " master - 0-16383"
		must(t, p.client(t, 2).Do(ctx, "CLUSTERX", "SETNODES", all, 1).Err())
		sendRandomArguments(t, p)
	})
}

func sendRandomArguments(t *testing.T, p *proc) {
	// Every command gets as long as it needs, however loaded the machine,
	// but a blocking one only a second: its arguments were accepted if it
	// blocks, and a timeout of 0 blocks it for good.
	opts := longOptions(p.Addr(), 2)
	opts.ContextTimeoutEnabled = true
	c := newClient(t, opts)
	names, err := c.CommandList(ctx, nil).Result()
	must(t, err)
	// Commands that end or reconfigure the connection or the server.
	skip := map[string]bool{"shutdown": true, "quit": true, "config": true, "client": true, "hello": true, "auth": true, "flushall": true}
	blocking := map[string]bool{"blmove": true, "blmpop": true, "blpop": true, "brpop": true, "brpoplpush": true, "bzmpop": true, "bzpopmax": true, "bzpopmin": true}
	pool := []string{"k", "k2", "0", "1", "-1", "2", "100", "-100", "9223372036854775807", "-9223372036854775808",
		"x", "", "1.5", "inf", "-inf", "nan", "(1", "[a", "-", "+", "LIMIT", "COUNT", "WITHSCORES", "BYSCORE", "BYLEX",
		"REV", "LEFT", "RIGHT", "BEFORE", "EX", "NX", "XX", "GT", "MATCH", "*", "TYPE", "string", "WEIGHTS", "AGGREGATE", "SUM"}
	r := rand.New(rand.NewSource(7))
	for _, name := range names {
		if skip[name] {
			continue
		}
		for i := 0; i < 40; i++ {
			if i%10 == 0 {
				// Give the keys every type in turn so type checks run too.
				c.Del(ctx, "k", "k2")
				switch i / 10 {
				case 1:
					c.HSet(ctx, "k", "a", "1")
				case 2:
					c.RPush(ctx, "k", "a", "b")
				case 3:
					c.ZAdd(ctx, "k", redis.Z{Score: 1, Member: "a"})
				}
			}
			args := []any{name}
			for j := r.Intn(7); j > 0; j-- {
				args = append(args, pool[r.Intn(len(pool))])
			}
			cmdCtx, cancel := ctx, context.CancelFunc(func() {})
			if blocking[name] {
				cmdCtx, cancel = context.WithTimeout(ctx, time.Second)
			}
			err := c.Do(cmdCtx, args...).Err()
			cancel()
			if err != nil && strings.Contains(err.Error(), "internal error") {
				t.Fatalf("%v: %v\n%s", args, err, p.Output)
			}
			if isTimeout(err) && !blocking[name] {
				t.Fatalf("%v: %v", args, err)
			}
		}
	}
	if v := c.Ping(ctx).Val(); v != "PONG" {
		t.Fatalf("server stopped answering: %q", v)
	}
	if log := p.Output.String(); strings.Contains(log, "command failed") || strings.Contains(log, "command panicked") {
		t.Fatalf("unexpected internal errors:\n%s", log)
	}
}

// isTimeout tells a reply that did not come in time from one that did.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
