package executor

import (
	"errors"
	"log/slog"
	"strings"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/rdb"
	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/session"
	"github.com/basaltdb/basalt/storage"
)

// Ctx is what a handler works with. The server reuses one Ctx per
// connection, so a handler must not keep it after returning.
type Ctx struct {
	Args    [][]byte // Args[0] is the command name as sent
	W       reply.Sink
	DB      storage.DB
	Session *session.Session
	Env     *Env
	Cmd     *Command      // the running command (its name for error texts)
	write   storage.Write // the write door's description of the running write command
	// unlocked is set when the running write failed with
	// storage.ErrUnlocked: it runs again (Env.update).
	unlocked bool
	// Changed, when set by the handler of a write, is which of its
	// written keys Redis counts as changed by it (DEL's existing keys;
	// none for the consumer-group commands): the keys Wrote touches for
	// WATCH and invalidates for tracking. nil: all of them.
	Changed [][]byte
	// Chosen, set by the handler of a command published OnChosen, are
	// the events its write made.
	Chosen []string
	InExec bool // the command runs inside EXEC or a script: blocking commands do not block
	// InScript is set when a script runs the command; scriptKeys are then
	// the keys the script declared, which its reads track (tracking.go).
	InScript   bool
	scriptKeys [][]byte
	// rerun is set while a blocked client's command runs again (woken,
	// or WAIT counting anew): it waits for a busy script, never BUSY.
	rerun bool
	// spillable is set while a command whose reply may be sent in parts
	// runs: a read outside a transaction, holding the gate shared.
	spillable bool
	// errMark is W.Errors() when the running command started, or when
	// the last command inside its EXEC ended: an error written past it
	// makes the command failed (INFO commandstats).
	errMark int64
	// notifyFlags, before, alsoBefore and consumersBefore are what a
	// write that publishes keyspace events recorded before it ran
	// (notify.go).
	notifyFlags     config.NotifyClass
	before          []storage.KeyState
	alsoBefore      []storage.KeyState
	consumersBefore []bool
	// Inv holds the invalidations of client-side caching the running
	// command's writes send its own client after its reply (tracking.go).
	Inv session.Invalidation
	// job is how the context's script commands wait for the leader of the
	// script queue (scriptqueue.go).
	job *scriptJob
	// joint, set while the leader of the script queue runs the context's
	// command, gathers the writes of the scripts of its round
	// (storage.Joint); the commands a script calls write through it.
	joint *storage.Joint
	// frozenAt, for the commands a script calls, is when the script
	// began (Unix ms): as in Redis, they judge keys expired at that time.
	frozenAt int64
}

// NewContext returns the context the commands of session s run in, which
// its connection reuses for each of them.
func (e *Env) NewContext(s *session.Session) *Ctx {
	return &Ctx{W: s.W, Session: s, Env: e}
}

// Standard Redis error replies.
const (
	ErrSyntax      = "ERR syntax error"
	ErrNotInteger  = "ERR value is not an integer or out of range"
	errNotFloat    = "ERR value is not a valid float"
	ErrWrongType   = "WRONGTYPE Operation against a key holding the wrong kind of value"
	errNoAuth      = "NOAUTH Authentication required."
	errOutOfRange  = "ERR index out of range"
	ErrDBIndex     = "ERR DB index is out of range"
	errTooLarge    = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
	ErrInvalidCurs = "ERR invalid cursor"
	// Kvrocks's refusal of an admin command to a namespace user.
	ErrAdminRequired = "ERR admin permission required to perform the command"
)

// ReplyError is an error whose text is the exact reply.
type ReplyError string

func (e ReplyError) Error() string { return string(e) }

// errorReplies maps storage errors to Redis's replies.
var errorReplies = []struct {
	err   error
	reply string
}{
	{storage.ErrWrongType, ErrWrongType},
	{storage.ErrNotInteger, ErrNotInteger},
	{storage.ErrNotFloat, errNotFloat},
	{storage.ErrOverflow, "ERR increment or decrement would overflow"},
	{storage.ErrNaNOrInfinity, "ERR increment would produce NaN or Infinity"},
	{storage.ErrInfiniteIncrement, "ERR value is NaN or Infinity"},
	{storage.ErrScoreNaN, "ERR resulting score is not a number (NaN)"},
	{storage.ErrTooLarge, errTooLarge},
	{storage.ErrNoSuchKey, "ERR no such key"},
	// Logged once by storage when it happens, not per command.
	{storage.ErrWritesStopped, "ERR the storage stopped accepting writes after a failed write; restart the server"},
	{storage.ErrIndexOutOfRange, errOutOfRange},
	{storage.ErrSameObject, "ERR source and destination objects are the same"},
	{storage.ErrInvalidCursor, ErrInvalidCurs},
	{storage.ErrHashNotInteger, "ERR hash value is not an integer"},
	{storage.ErrHashNotFloat, "ERR hash value is not a float"},
	{config.ErrNoFile, "ERR The server is running without a config file"},
	// Kvrocks's text: the types it cannot dump are its own (sortedint, Bloom, JSON, t-digest).
	{storage.ErrNotDumpable, "ERR Invalid or Not supported object type"},
	{rdb.ErrChecksum, "ERR DUMP payload version or checksum are wrong"},
	{rdb.ErrFormat, "ERR Bad data format"},
	{storage.ErrStreamIDTooSmall, "ERR The ID specified in XADD is equal or smaller than the target stream top item"},
	{storage.ErrStreamSeqExhausted, "ERR Elements are too large to be stored"},
	{storage.ErrStreamExhausted, "ERR The stream has exhausted the last possible ID, unable to add more items"},
	{storage.ErrStreamSetIDSmall, "ERR The ID specified in XSETID is smaller than the target stream top item"},
	{storage.ErrStreamEntriesLow, "ERR The entries_added specified in XSETID is smaller than the target stream length"},
	// Kvrocks's text: RocksDB's status for a batch past its max_bytes.
	{storage.ErrBatchTooLarge, "ERR Operation aborted: Memory limit reached"},
}

// AddErrorReply makes Error reply text for err (and the errors that wrap
// it): a family file adds the errors of its storage operations from init.
func AddErrorReply(err error, text string) {
	errorReplies = append(errorReplies, struct {
		err   error
		reply string
	}{err, text})
}

// Error writes the reply for err: the Redis error of a known condition, or
// a generic ERR that is also logged, since it means something failed inside.
func (c *Ctx) Error(err error) {
	if errors.Is(err, storage.ErrUnlocked) && c.write.By != nil {
		c.unlocked = true // no reply: the write runs again
		return
	}
	var re ReplyError
	if errors.As(err, &re) {
		c.W.Error(string(re))
		return
	}
	for _, e := range errorReplies {
		if errors.Is(err, e.err) {
			c.W.Error(e.reply)
			return
		}
	}
	slog.Error("command failed", "cmd", c.Cmd.Name, "err", err)
	c.W.Error("ERR " + err.Error())
}

// ErrorString writes an error reply with this exact text.
func (c *Ctx) ErrorString(msg string) { c.W.Error(msg) }

// OK reports err (if any) and returns whether the handler may go on.
func (c *Ctx) OK(err error) bool {
	if err != nil {
		c.Error(err)
		return false
	}
	return true
}

// KvrocksOK is ok for Kvrocks's own commands, which answer a wrong type
// with Kvrocks's text rather than Redis's WRONGTYPE.
func (c *Ctx) KvrocksOK(err error) bool {
	if errors.Is(err, storage.ErrWrongType) {
		c.ErrorString("ERR Invalid argument: " + ErrWrongType)
		return false
	}
	return c.OK(err)
}

// Int parses argument i as an integer, replying the Redis error if it is not.
func (c *Ctx) Int(i int) (int64, bool) {
	n, ok := num.ParseInt(c.Args[i])
	if !ok {
		c.W.Error(ErrNotInteger)
	}
	return n, ok
}

// Float parses argument i as a double, replying the Redis error if it is not.
func (c *Ctx) Float(i int) (float64, bool) {
	f, ok := num.ParseFloat(c.Args[i])
	if !ok {
		c.W.Error(errNotFloat)
	}
	return f, ok
}

// Is reports whether argument i equals word, ignoring case.
func (c *Ctx) Is(i int, word string) bool {
	return i < len(c.Args) && len(c.Args[i]) == len(word) && strings.EqualFold(string(c.Args[i]), word)
}

// IntBool writes 1 or 0 as an integer: Redis answers yes/no questions
// (SETNX, EXPIRE, COPY, ...) with integers in RESP2 and RESP3 alike.
func (c *Ctx) IntBool(b bool) {
	if b {
		c.W.Int(1)
	} else {
		c.W.Int(0)
	}
}

// IntOrNull writes n, or null when found is false, unless err is an
// error, which it writes instead.
func (c *Ctx) IntOrNull(n int64, found bool, err error) {
	switch {
	case !c.OK(err):
	case !found:
		c.W.Null()
	default:
		c.W.Int(n)
	}
}

// BulkOrNull writes a bulk string, or null when found is false.
func (c *Ctx) BulkOrNull(v []byte, found bool) {
	if !found {
		c.W.Null()
		return
	}
	c.W.Bulk(v)
}
