package commands

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	// Kvrocks lets any user read the WAL, which holds every namespace's
	// writes; here only the admin may.
	executor.Register(&executor.Command{Name: "pollupdates", Arity: -2, Flags: executor.ReadOnly | executor.Admin | executor.KvrocksOnly, Handler: cmdPollUpdates,
		Meta: &executor.Meta{
			Doc: doc("summary", "Returns the write batches committed after a sequence number, as RocksDB logged them (change data capture)",
				"group", "server", "complexity", "O(N) where N is the size of the batches returned",
				"arguments", docArgs(doc("name", "sequence", "type", "integer"),
					optional(doc("name", "count", "type", "integer", "token", "MAX")),
					optional(docToken("strict", "STRICT")),
					optional(doc("name", "format", "type", "pure-token", "token", "FORMAT RAW")))),
		}})
}

// pollUpdatesDefaultMax and pollUpdatesMaxMax bound the batches one
// POLLUPDATES returns, as in Kvrocks.
const (
	pollUpdatesDefaultMax = 16
	pollUpdatesMaxMax     = 1000
)

// POLLUPDATES sequence [MAX count] [STRICT] [FORMAT RAW]
//
// Kvrocks's change-data capture: the write batches committed after
// sequence, at most count (16 by default), each as RocksDB logged it, in
// upper-case hex. The reply is next_sequence (the last sequence number
// returned; the next call passes it), latest_sequence and updates. With
// STRICT the first batch must begin right after sequence.
func cmdPollUpdates(c *executor.Ctx) {
	seq, msg := kvrocksUint(string(c.Args[1]))
	if msg != "" {
		c.ErrorString("ERR " + msg)
		return
	}
	limit, strict := int64(pollUpdatesDefaultMax), false
	for i := 2; i < len(c.Args); i++ {
		switch {
		case c.Is(i, "max") && i+1 < len(c.Args):
			i++
			if limit, msg = kvrocksInt(string(c.Args[i]), 1, pollUpdatesMaxMax); msg != "" {
				c.ErrorString("ERR " + msg)
				return
			}
		case c.Is(i, "strict"):
			strict = true
		case c.Is(i, "format") && i+1 < len(c.Args):
			i++
			if !c.Is(i, "raw") {
				c.ErrorString("ERR invalid FORMAT option, only support RAW")
				return
			}
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	// As in Kvrocks, the arithmetic is unsigned: a sequence of -1 reads
	// from the start.
	next, latest := max(seq+1, 1), c.Env.Storage.LatestSequence()
	if next > latest+1 {
		c.ErrorString("ERR next sequence is out of range")
		return
	}
	var updates []string
	last, err := c.Env.Storage.ReadWALBatches(next-1, func(b storage.WALBatch) error {
		if strict && len(updates) == 0 && b.Seq != next {
			return errSequenceMismatch{want: next, got: b.Seq}
		}
		updates = append(updates, upperHex(b.Data))
		if int64(len(updates)) == limit {
			return storage.ErrStopWAL
		}
		return nil
	})
	var mismatch errSequenceMismatch
	if errors.As(err, &mismatch) {
		c.ErrorString("ERR mismatched sequence number, expected " + strconv.FormatUint(mismatch.want, 10) + " but got " + strconv.FormatUint(mismatch.got, 10))
		return
	}
	if !c.OK(err) {
		return
	}
	if len(updates) == 0 {
		last = seq
	}
	c.W.Map(3)
	c.W.BulkString("next_sequence")
	c.W.Int(int64(last))
	c.W.BulkString("latest_sequence")
	c.W.Int(int64(latest))
	c.W.BulkString("updates")
	c.W.BulkStrings(updates)
}

type errSequenceMismatch struct{ want, got uint64 }

func (e errSequenceMismatch) Error() string { return "sequence mismatch" }

// kvrocksUint parses an unsigned integer as Kvrocks's ParseInt<uint64_t>
// does (strtoull: a negative number wraps around); it returns Kvrocks's
// error text, or "".
func kvrocksUint(s string) (uint64, string) {
	if t := strings.TrimLeft(s, " \t\n\v\f\r"); strings.HasPrefix(t, "-") {
		n, msg := kvrocksInt(s, math.MinInt64, 0)
		return uint64(n), msg
	}
	n, msg := kvrocksInt(s, 0, math.MaxInt64)
	if msg == "Numerical result out of range" {
		// Past int64 but maybe within uint64.
		u, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimLeft(s, " \t\n\v\f\r"), "+"), 10, 64)
		if err != nil {
			return 0, msg
		}
		return u, ""
	}
	return uint64(n), msg
}

// upperHex encodes b in upper-case hex, as Kvrocks writes batches.
func upperHex(b []byte) string {
	const digits = "0123456789ABCDEF"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&0xf]
	}
	return string(out)
}
