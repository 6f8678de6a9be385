package commands

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/storage"
)

// XREAD, and the reading of its options that XREADGROUP shares.

// xreadStreams returns the position of XREAD's STREAMS argument, skipping
// its options as Redis's xreadGetKeys does; -1 when there is none.
func xreadStreams(args [][]byte) int {
	for i := 1; i < len(args); i++ {
		switch strings.ToLower(string(args[i])) {
		case "block", "count", "claim":
			i++
		case "group":
			i += 2
		case "noack":
		case "streams":
			return i
		default:
			return -1
		}
	}
	return -1
}

// xreadKeys finds XREAD's keys: the first half of what follows STREAMS.
func xreadKeys(args [][]byte) [][]byte {
	pos := xreadStreams(args)
	n := len(args) - pos - 1
	if pos < 0 || n == 0 || n%2 != 0 {
		return nil
	}
	return args[pos+1 : pos+1+n/2]
}

// xreadArgs are the options of XREAD and XREADGROUP.
type xreadArgs struct {
	count           int64         // 0: no limit
	block           time.Duration // -1: no BLOCK
	streams         int           // the position of the first key
	group, consumer []byte        // XREADGROUP's GROUP
	noAck           bool
	claim           bool  // XREADGROUP's CLAIM (Redis 8.4)
	minIdle         int64 // its min-idle-time in ms
	// serving: a blocked XREADGROUP is being served, and a stream or group
	// gone meanwhile gets Redis's error for a blocked reader.
	serving bool
}

// parseXRead reads the options of XREAD (or XREADGROUP) up to STREAMS as
// Redis's xreadCommand does; ok is false when it replied an error.
func parseXRead(c *executor.Ctx, group bool) (a xreadArgs, ok bool) {
	a.block = -1
	for i := 1; i < len(c.Args) && a.streams == 0; i++ {
		more := len(c.Args) - 1 - i
		switch {
		case more > 0 && c.Is(i, "block"):
			if c.InScript {
				// Redis names the command as the script called it.
				c.ErrorString("ERR " + string(c.Args[0]) + " command is not allowed with BLOCK option from scripts")
				return
			}
			i++
			ms, ok := num.ParseInt(c.Args[i])
			if !ok {
				c.ErrorString("ERR timeout is not an integer or out of range")
				return a, false
			}
			if ms < 0 {
				c.ErrorString("ERR timeout is negative")
				return a, false
			}
			a.block = time.Duration(min(ms, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond
		case more > 0 && c.Is(i, "count"):
			i++
			n, ok := c.Int(i)
			if !ok {
				return a, false
			}
			a.count = max(n, 0)
		case more > 0 && c.Is(i, "streams"):
			a.streams = i + 1
			if (len(c.Args)-a.streams)%2 != 0 {
				c.ErrorString("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.")
				return a, false
			}
		case more >= 2 && c.Is(i, "group"):
			if !group {
				c.ErrorString("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
				return a, false
			}
			a.group, a.consumer = c.Args[i+1], c.Args[i+2]
			i += 2
		case more > 0 && c.Is(i, "claim"):
			if !group {
				c.ErrorString("ERR The CLAIM option is only supported by XREADGROUP. You called XREAD instead.")
				return a, false
			}
			i++
			if a.minIdle, ok = minIdleTime(c, i); !ok {
				return a, false
			}
			a.claim = true
		case c.Is(i, "noack"):
			if !group {
				c.ErrorString("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
				return a, false
			}
			a.noAck = true
		default:
			c.ErrorString(executor.ErrSyntax)
			return a, false
		}
	}
	switch {
	case a.streams == 0:
		c.ErrorString(executor.ErrSyntax)
	case group && a.group == nil:
		c.ErrorString("ERR Missing GROUP option for XREADGROUP")
	default:
		return a, true
	}
	return a, false
}

// minIdleTime reads CLAIM's min-idle-time at argument i: a plain
// decimal integer, 0 or more, with Redis 8.4's errors.
func minIdleTime(c *executor.Ctx, i int) (int64, bool) {
	n, ok := num.ParseInt(c.Args[i])
	switch {
	case !ok:
		c.ErrorString("ERR min-idle-time is not an integer")
	case n < 0:
		c.ErrorString("ERR min-idle-time must be a positive integer")
	default:
		return n, true
	}
	return 0, false
}

// XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]
//
// "$" is the stream's last ID; "+" (Redis 7.4) its last entry. With BLOCK
// and nothing to read, the client waits on its keys (blocking.go) with
// its "$" made the IDs they stand for, so that it is served the entries
// that come after the call.
func cmdXRead(c *executor.Ctx) {
	a, ok := parseXRead(c, false)
	if !ok {
		return
	}
	count, block, streams := a.count, a.block, a.streams
	n := (len(c.Args) - streams) / 2
	keys := c.Args[streams : streams+n]
	if w := c.Session.Waiter(); w != nil && w.Serving() {
		// Served from a key that now holds another type: not served,
		// rather than answered WRONGTYPE, as blockingRun would decide.
		if typ, err := c.DB.Type(keys[0]); err != nil || (typ != metadata.TypeNone && typ != metadata.TypeStream) {
			return
		}
		xread(c, keys, streams, count, block)
		return
	}
	if block < 0 || c.InExec {
		xread(c, keys, streams, count, block)
		return
	}
	// The read and the registration of the wait run under the keys'
	// locks, so that no XADD slips between them unseen; reads go through
	// the locked DB, which sees the writes of its group.
	db := c.DB
	c.Env.Storage.Update(&storage.Write{NS: c.Session.Namespace, Keys: keys}, func(in storage.DB) {
		c.DB = in
		xread(c, keys, streams, count, block)
	})
	c.DB = db
}

// xread resolves XREAD's IDs, replies what follows them, and, with a
// block timeout (not negative), waits when there is nothing.
func xread(c *executor.Ctx, keys [][]byte, streams int, count int64, block time.Duration) {
	n := len(keys)
	ids := make([]metadata.StreamID, n)
	lastEntry := make([]bool, n) // "+" on a stream with entries
	resolved := c.Args
	for i, k := range keys {
		arg := c.Args[streams+n+i]
		isDollar, isPlus := len(arg) == 1 && arg[0] == '$', len(arg) == 1 && arg[0] == '+'
		if isDollar || isPlus {
			info, _, err := c.DB.XStreamInfo(k, storage.StreamInfoWant{})
			if !c.OK(err) {
				return
			}
			// "+" reads the last entry; on an empty stream it waits as "$".
			if isPlus && info.Length > 0 {
				ids[i], lastEntry[i] = info.Last, true
				continue
			}
			ids[i] = info.LastGenerated
			if &resolved[0] == &c.Args[0] {
				resolved = append([][]byte(nil), c.Args...)
			}
			resolved[streams+n+i] = ids[i].AppendText(nil)
			continue
		}
		typ, err := c.DB.Type(k)
		if !c.OK(err) {
			return
		}
		if typ != metadata.TypeNone && typ != metadata.TypeStream {
			c.ErrorString(executor.ErrWrongType)
			return
		}
		id, ok := streamID(c, streams+n+i)
		if !ok {
			return
		}
		ids[i] = id
	}
	try := func() {
		d := c.W.DeferArray()
		if c.W.Protocol() >= 3 {
			d = c.W.DeferMap()
		}
		replied := 0
		for i, k := range keys {
			from, ok, limit := ids[i], true, count
			if lastEntry[i] {
				limit = 1
			} else {
				from, ok = ids[i].Next()
			}
			if !ok {
				continue
			}
			entries := 0
			var inner reply.Deferred
			_, err := c.DB.XRange(k, from, metadata.MaxStreamID, false, limit, func(e storage.StreamEntry) bool {
				if entries == 0 {
					if c.W.Protocol() < 3 {
						c.W.Array(2)
					}
					c.W.Bulk(k)
					inner = c.W.DeferArray()
				}
				entries++
				writeEntry(c, e)
				return !c.W.Failed()
			})
			if err != nil {
				if entries > 0 {
					c.W.Abandon(inner)
				}
				c.W.Abandon(d)
				c.Error(err)
				return
			}
			if entries > 0 {
				c.W.Finish(inner, entries)
				replied++
			}
		}
		if replied == 0 {
			c.W.Abandon(d)
			c.W.NullArray()
			return
		}
		c.W.Finish(d, replied)
	}
	if block < 0 {
		try()
		return
	}
	// Each XREAD reads from its own ID: one served nothing says nothing
	// of the others, so each is a pool of its own.
	pool := "\x00xread " + strconv.FormatInt(c.Session.ID, 10)
	blockingRun(c, resolved, keys, block, metadata.TypeStream, nullArray, xreadServe, pool, try)
}

// xreadServe: XREAD is served from the key that got entries, with its
// resolved ID.
func xreadServe(args [][]byte, key []byte) [][]byte {
	pos := xreadStreams(args)
	n := (len(args) - pos - 1) / 2
	for i := 0; i < n; i++ {
		if bytes.Equal(args[pos+1+i], key) {
			out := append(append([][]byte(nil), args[:pos+1]...), key, args[pos+1+n+i])
			return out
		}
	}
	return args
}
