package commands

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/storage"
)

// Consumer group commands of streams (storage/stream_group.go keeps the
// groups). Arguments are read, checked and refused in the order Redis 7.0
// reads them, so that the same bad command gets the same error.

func init() {
	executor.Register(
		&executor.Command{Name: "xgroup", Arity: -2, Flags: executor.Write, Keys: objectKeys, Subcommands: xgroupSubcommands, Handler: cmdXGroup,
			Events: &executor.KeyEvents{Class: config.NotifyStream, Pick: xgroupEvent, Shape: executor.OnEach}},
		&executor.Command{Name: "xreadgroup", Arity: -7, Flags: executor.Write, Keys: xreadKeys, Handler: cmdXReadGroup,
			Events:  &executor.KeyEvents{Class: config.NotifyStream, Event: "xgroup-createconsumer", Shape: executor.OnNewConsumer, Consumer: consumerExists(2, 3)},
			DocArgs: xreadgroupDocArgs},
		&executor.Command{Name: "xack", Arity: -4, Flags: executor.Write | executor.Fast | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdXAck},
		&executor.Command{Name: "xpending", Arity: -3, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdXPending},
		&executor.Command{Name: "xclaim", Arity: -6, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdXClaim,
			Events: &executor.KeyEvents{Class: config.NotifyStream, Event: "xgroup-createconsumer", Shape: executor.OnNewConsumer, Consumer: consumerExists(2, 3)}},
		&executor.Command{Name: "xautoclaim", Arity: -6, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdXAutoClaim,
			Events: &executor.KeyEvents{Class: config.NotifyStream, Event: "xgroup-createconsumer", Shape: executor.OnNewConsumer, Consumer: consumerExists(2, 3)}},
	)
}

// xreadgroupDocArgs documents XREADGROUP's arguments as Redis 8.4 does,
// with CLAIM after BLOCK.
func xreadgroupDocArgs(args []any) []any {
	return docInsertAfter(args, "milliseconds", optional(since(doc("name", "min-idle-time", "type", "integer", "token", "CLAIM"), "8.4.0")))
}

// noGroupError is Redis's NOGROUP reply of XREADGROUP, XPENDING, XCLAIM
// and XAUTOCLAIM; suffix ends it.
func noGroupError(key, group []byte, suffix string) string {
	return "NOGROUP No such key '" + string(key) + "' or consumer group '" + string(group) + "'" + suffix
}

// XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n] |
// XGROUP SETID key group id|$ [ENTRIESREAD n] | XGROUP DESTROY key group |
// XGROUP CREATECONSUMER key group consumer |
// XGROUP DELCONSUMER key group consumer | XGROUP HELP
// XGROUP changes no key in Redis's eyes, unless CREATE's MKSTREAM makes
// the stream.
func cmdXGroup(c *executor.Ctx) {
	c.ChangesNoKey()
	executor.DispatchSub(c)
}

var xgroupSubcommands = map[string]*executor.Subcommand{
	"create":         {Arity: -5, Handler: xgroupCreate},
	"setid":          {Arity: -5, Handler: xgroupSetID},
	"destroy":        {Arity: 4, Handler: xgroupDestroy},
	"createconsumer": {Arity: 5, Handler: xgroupCreateConsumer},
	"delconsumer":    {Arity: 5, Handler: xgroupDelConsumer},
	"help": executor.Help(
		"XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CREATE <key> <groupname> <id|$> [option]",
		"    Create a new consumer group. Options are:",
		"    * MKSTREAM",
		"      Create the empty stream if it does not exist.",
		"    * ENTRIESREAD entries_read",
		"      Set the group's entries_read counter (internal use).",
		"CREATECONSUMER <key> <groupname> <consumer>",
		"    Create a new consumer in the specified group.",
		"DELCONSUMER <key> <groupname> <consumer>",
		"    Remove the specified consumer.",
		"DESTROY <key> <groupname>",
		"    Remove the specified group.",
		"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
		"    Set the current group ID and entries_read counter.",
		"HELP",
		"    Prints this help.",
	),
}

// xgroupSyntax is Redis's reply to XGROUP options it does not take.
func xgroupSyntax(c *executor.Ctx) {
	c.ErrorString("ERR unknown subcommand or wrong number of arguments for '" + string(c.Args[1]) + "'. Try XGROUP HELP.")
}

// entriesRead parses the ENTRIESREAD value at i.
func entriesRead(c *executor.Ctx, i int) (int64, bool) {
	n, ok := c.Int(i)
	if ok && n < -1 {
		c.ErrorString("ERR value for ENTRIESREAD must be positive or -1")
		return 0, false
	}
	return n, ok
}

// xgroupTarget checks the key and group of an XGROUP subcommand as Redis
// does before running it: the key must hold a stream, and, when
// needGroup, the stream the group. ok is false when it replied an error.
func xgroupTarget(c *executor.Ctx, needGroup bool) (groupFound, ok bool) {
	keyFound, groupFound, err := c.DB.XGroupExists(c.Args[2], c.Args[3])
	switch {
	case !c.OK(err):
	case !keyFound:
		c.ErrorString("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.")
	case needGroup && !groupFound:
		c.ErrorString("NOGROUP No such consumer group '" + string(c.Args[3]) + "' for key name '" + string(c.Args[2]) + "'")
	default:
		return groupFound, true
	}
	return false, false
}

// groupID parses the ID argument of XGROUP CREATE and SETID: "$" is the
// stream's last ID (lastID); strict refuses "-" and "+".
func groupID(c *executor.Ctx, strict bool) (id metadata.StreamID, lastID, ok bool) {
	arg := c.Args[4]
	if len(arg) == 1 && arg[0] == '$' {
		return id, true, true
	}
	id, _, ok = parseStreamID(arg, strict, 0, false)
	if !ok {
		c.ErrorString(errStreamID)
	}
	return id, false, ok
}

func xgroupCreate(c *executor.Ctx) {
	a := storage.XGroupCreateArgs{EntriesRead: -1}
	for i := 5; i < len(c.Args); i++ {
		switch {
		case c.Is(i, "mkstream"):
			a.MkStream = true
		case c.Is(i, "entriesread") && i+1 < len(c.Args):
			n, ok := entriesRead(c, i+1)
			if !ok {
				return
			}
			a.EntriesRead = n
			i++
		default:
			xgroupSyntax(c)
			return
		}
	}
	if !a.MkStream {
		if _, ok := xgroupTarget(c, false); !ok {
			return
		}
	} else if typ, err := c.DB.Type(c.Args[2]); !c.OK(err) {
		return
	} else if typ != metadata.TypeNone && typ != metadata.TypeStream {
		c.ErrorString(executor.ErrWrongType)
		return
	} else if typ == metadata.TypeNone {
		c.Changed = nil // the stream made is a change
	}
	var ok bool
	if a.ID, a.LastID, ok = groupID(c, true); !ok {
		return
	}
	err := c.DB.XGroupCreate(c.Args[2], c.Args[3], a)
	switch {
	case errors.Is(err, storage.ErrBusyGroup):
		c.ErrorString("BUSYGROUP Consumer Group name already exists")
	case c.OK(err):
		c.W.OK()
	}
}

func xgroupSetID(c *executor.Ctx) {
	n := int64(-1)
	switch {
	case len(c.Args) == 7 && c.Is(5, "entriesread"):
		var ok bool
		if n, ok = entriesRead(c, 6); !ok {
			return
		}
	case len(c.Args) != 5:
		xgroupSyntax(c)
		return
	}
	if _, ok := xgroupTarget(c, true); !ok {
		return
	}
	id, lastID, ok := groupID(c, false)
	if ok && c.OK(c.DB.XGroupSetID(c.Args[2], c.Args[3], id, lastID, n)) {
		c.W.OK()
	}
}

func xgroupDestroy(c *executor.Ctx) {
	if _, ok := xgroupTarget(c, false); !ok {
		return
	}
	destroyed, err := c.DB.XGroupDestroy(c.Args[2], c.Args[3])
	if c.OK(err) {
		c.IntBool(destroyed)
	}
}

func xgroupCreateConsumer(c *executor.Ctx) {
	if _, ok := xgroupTarget(c, true); !ok {
		return
	}
	created, err := c.DB.XGroupCreateConsumer(c.Args[2], c.Args[3], c.Args[4])
	if c.OK(err) {
		c.IntBool(created)
	}
}

func xgroupDelConsumer(c *executor.Ctx) {
	if _, ok := xgroupTarget(c, true); !ok {
		return
	}
	n, err := c.DB.XGroupDelConsumer(c.Args[2], c.Args[3], c.Args[4])
	if c.OK(err) {
		c.W.Int(n)
	}
}

// XACK key group id [id ...]
func cmdXAck(c *executor.Ctx) {
	c.ChangesNoKey()
	ids := make([]metadata.StreamID, 0, len(c.Args)-3)
	for i := 3; i < len(c.Args); i++ {
		id, _, ok := parseStreamID(c.Args[i], true, 0, false)
		if !ok {
			xackBadID(c, i)
			return
		}
		ids = append(ids, id)
	}
	// XAck finds nothing to acknowledge without the stream or the group.
	n, err := c.DB.XAck(c.Args[1], c.Args[2], ids)
	if c.OK(err) {
		c.W.Int(n)
	}
}

// xackBadID replies to an XACK whose argument i is not an ID: as Redis,
// nothing to acknowledge (0) comes before the IDs are read.
func xackBadID(c *executor.Ctx, i int) {
	keyFound, groupFound, err := c.DB.XGroupExists(c.Args[1], c.Args[2])
	switch {
	case !c.OK(err):
	case !keyFound || !groupFound:
		c.W.Int(0)
	default:
		streamID(c, i)
	}
}

// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
func cmdXPending(c *executor.Ctx) {
	n := len(c.Args)
	if n != 3 && (n < 6 || n > 9) {
		c.ErrorString(executor.ErrSyntax)
		return
	}
	var a storage.XPendingArgs
	if n >= 6 {
		at := 3
		if c.Is(3, "idle") {
			idle, ok := c.Int(4)
			if !ok {
				return
			}
			if n < 8 {
				c.ErrorString(executor.ErrSyntax)
				return
			}
			a.MinIdle, at = idle, 5
		}
		count, ok := c.Int(at + 2)
		if !ok {
			return
		}
		a.Count = max(count, 0)
		if a.Start, ok = rangeBound(c, c.Args[at], 0, false); !ok {
			return
		}
		if a.End, ok = rangeBound(c, c.Args[at+1], ^uint64(0), true); !ok {
			return
		}
		if at+3 < n {
			a.Consumer = c.Args[at+3]
		}
	}
	typ, err := c.DB.Type(c.Args[1])
	switch {
	case !c.OK(err):
		return
	case typ != metadata.TypeNone && typ != metadata.TypeStream:
		c.ErrorString(executor.ErrWrongType)
		return
	}
	if n == 3 {
		xpendingSummary(c)
		return
	}
	a.Now = time.Now().UnixMilli()
	list, err := c.DB.XPendingRange(c.Args[1], c.Args[2], a)
	if !noGroupOK(c, err) {
		return
	}
	c.W.Array(len(list))
	for _, p := range list {
		c.W.Array(4)
		writeID(c, p.ID)
		c.W.Bulk(p.Consumer)
		c.W.Int(max(a.Now-p.DeliveryTime, 0))
		c.W.Int(int64(p.DeliveryCount))
	}
}

// noGroupOK is ok that answers ErrNoGroup with Redis's NOGROUP error of
// the command's key and group (arguments 1 and 2).
func noGroupOK(c *executor.Ctx, err error) bool {
	if errors.Is(err, storage.ErrNoGroup) {
		c.ErrorString(noGroupError(c.Args[1], c.Args[2], ""))
		return false
	}
	return c.OK(err)
}

func xpendingSummary(c *executor.Ctx) {
	sum, err := c.DB.XPendingSummary(c.Args[1], c.Args[2])
	if !noGroupOK(c, err) {
		return
	}
	c.W.Array(4)
	c.W.Int(int64(sum.Count))
	if sum.Count == 0 {
		c.W.Null()
		c.W.Null()
		c.W.NullArray()
		return
	}
	writeID(c, sum.First)
	writeID(c, sum.Last)
	c.W.Array(len(sum.Consumers))
	for _, cons := range sum.Consumers {
		c.W.Array(2)
		c.W.Bulk(cons.Name)
		c.W.Bulk(strconv.AppendUint(nil, cons.Pending, 10))
	}
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms]
// [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID]
// [LASTID lastid]
func cmdXClaim(c *executor.Ctx) {
	c.ChangesNoKey()
	if !streamGroupExists(c) {
		return
	}
	minIdle, ok := num.ParseInt(c.Args[4])
	if !ok {
		c.ErrorString("ERR Invalid min-idle-time argument for XCLAIM")
		return
	}
	a := storage.XClaimArgs{Group: c.Args[2], Consumer: c.Args[3], MinIdle: max(minIdle, 0), RetryCount: -1, DeliveryTime: -1}
	j := 5
	for ; j < len(c.Args); j++ {
		id, _, ok := parseStreamID(c.Args[j], true, 0, false)
		if !ok {
			break
		}
		a.IDs = append(a.IDs, id)
	}
	a.Now = time.Now().UnixMilli()
	for ; j < len(c.Args); j++ {
		more := j < len(c.Args)-1
		// numberOption reads the number of option name (IDLE, TIME or
		// RETRYCOUNT) after it.
		numberOption := func(name string) bool {
			j++
			n, ok := num.ParseInt(c.Args[j])
			if !ok {
				c.ErrorString("ERR Invalid " + name + " option argument for XCLAIM")
			}
			switch name {
			case "IDLE":
				a.DeliveryTime = a.Now - n
			case "TIME":
				a.DeliveryTime = n
			default:
				a.RetryCount = n
			}
			return ok
		}
		switch {
		case c.Is(j, "force"):
			a.Force = true
		case c.Is(j, "justid"):
			a.JustID = true
		case more && (c.Is(j, "idle") || c.Is(j, "time") || c.Is(j, "retrycount")):
			if !numberOption(strings.ToUpper(string(c.Args[j]))) {
				return
			}
		case more && c.Is(j, "lastid"):
			j++
			id, ok := streamID(c, j)
			if !ok {
				return
			}
			a.LastID = id
		default:
			c.ErrorString("ERR Unrecognized XCLAIM option '" + string(c.Args[j]) + "'")
			return
		}
	}
	// A delivery time that makes no sense is now, rather than an error:
	// clients compute it from their own clocks.
	if a.DeliveryTime < 0 || a.DeliveryTime > a.Now {
		a.DeliveryTime = a.Now
	}
	claimed, err := c.DB.XClaim(c.Args[1], &a)
	if !noGroupOK(c, err) {
		return
	}
	c.W.Array(len(claimed))
	for _, e := range claimed {
		if a.JustID {
			writeID(c, e.ID)
		} else {
			writeEntry(c, e)
		}
	}
}

// streamGroupExists checks that the key (argument 1) holds a stream with
// the group (argument 2), replying the error when not.
func streamGroupExists(c *executor.Ctx) bool {
	keyFound, groupFound, err := c.DB.XGroupExists(c.Args[1], c.Args[2])
	switch {
	case !c.OK(err):
		return false
	case !keyFound || !groupFound:
		c.ErrorString(noGroupError(c.Args[1], c.Args[2], ""))
		return false
	}
	return true
}

// xautoclaimMaxCount is the largest COUNT of XAUTOCLAIM, Redis's LONG_MAX
// divided by its attempts factor (10) and the size of an ID (16).
const xautoclaimMaxCount = (1<<63 - 1) / 16

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
func cmdXAutoClaim(c *executor.Ctx) {
	c.ChangesNoKey()
	minIdle, ok := num.ParseInt(c.Args[4])
	if !ok {
		c.ErrorString("ERR Invalid min-idle-time argument for XAUTOCLAIM")
		return
	}
	a := storage.XAutoClaimArgs{Group: c.Args[2], Consumer: c.Args[3], MinIdle: max(minIdle, 0), Count: 100}
	if a.Start, ok = rangeBound(c, c.Args[5], 0, false); !ok {
		return
	}
	for j := 6; j < len(c.Args); j++ {
		switch {
		case c.Is(j, "count") && j+1 < len(c.Args):
			j++
			n, ok := num.ParseInt(c.Args[j])
			if !ok || n < 1 || n > xautoclaimMaxCount {
				c.ErrorString("ERR COUNT must be > 0")
				return
			}
			a.Count = n
		case c.Is(j, "justid"):
			a.JustID = true
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	if !streamGroupExists(c) {
		return
	}
	a.Now = time.Now().UnixMilli()
	res, err := c.DB.XAutoClaim(c.Args[1], &a)
	if !noGroupOK(c, err) {
		return
	}
	c.W.Array(3)
	writeID(c, res.Next)
	c.W.Array(len(res.Claimed))
	for _, e := range res.Claimed {
		if a.JustID {
			writeID(c, e.ID)
		} else {
			writeEntry(c, e)
		}
	}
	c.W.Array(len(res.Deleted))
	for _, id := range res.Deleted {
		writeID(c, id)
	}
}

// XREADGROUP GROUP group consumer [COUNT count] [BLOCK milliseconds]
// [CLAIM min-idle-time] [NOACK] STREAMS key [key ...] id [id ...]
//
// ">" reads new entries, which become pending for the consumer; an ID
// reads the consumer's pending entries after it. CLAIM (Redis 8.4) makes
// ">" first take the group's entries pending for min-idle-time ms, and
// every entry ">" reads then carries its idle time and deliveries. With BLOCK and nothing
// new, the client waits on its keys (blocking.go) and is served, like a
// new call, from the first key that gets entries.
func cmdXReadGroup(c *executor.Ctx) {
	c.ChangesNoKey()
	a, ok := parseXRead(c, true)
	if !ok {
		return
	}
	n := (len(c.Args) - a.streams) / 2
	keys := c.Args[a.streams : a.streams+n]
	if w := c.Session.Waiter(); w != nil {
		// Served from a key, or woken by a write while it got ready to
		// wait: either way it was blocked, and is answered as a blocked
		// client whose stream or group went away meanwhile.
		if w.Serving() {
			xreadgroupServe(c, keys[0], &a)
			return
		}
		for _, k := range keys {
			if xreadgroupGone(c, k, &a) {
				return
			}
		}
	}
	history, quick := groupReadIDs(c.Args[a.streams+n:])
	if !quick || n > 1 {
		// Redis checks every stream's group, then its ID, before reading
		// any; one stream with a good ID learns of a missing group from
		// its read.
		if history, quick = checkGroupReads(c, keys, &a); !quick {
			return
		}
	}
	try := func() { xreadgroup(c, keys, history, &a) }
	if a.block < 0 {
		try()
		return
	}
	// The consumers of a group compete for its new entries; those of
	// other groups, and XREADs, do not.
	pool := "\x00group " + string(a.group)
	blockingRun(c, c.Args, keys, a.block, metadata.TypeStream, nullArray, xreadgroupServed, pool, try)
	if w := c.Session.Waiter(); w != nil && c.Session.Blocked {
		c.Env.Sessions.Blocking.AnswersGone(w)
		noteExpiries(c, keys)
	}
}

// noteExpiries tells the registry of waiters when keys expire, so that
// the active expiry (expireWaited) releases the XREADGROUPs waiting on
// them when their time comes. It runs under the keys' locks.
func noteExpiries(c *executor.Ctx, keys [][]byte) {
	for _, k := range keys {
		if at, _, err := c.DB.ExpireAt(k); err == nil {
			c.Env.Sessions.Blocking.Expires(c.Session.Namespace, k, at)
		}
	}
}

// groupReadIDs parses XREADGROUP's IDs: ">" reads new entries (nil), an
// ID the consumer's pending entries after it. ok is false when one is bad.
func groupReadIDs(args [][]byte) (history []*metadata.StreamID, ok bool) {
	history = make([]*metadata.StreamID, len(args))
	for i, arg := range args {
		h, bad := groupReadID(arg)
		if bad != "" {
			return nil, false
		}
		history[i] = h
	}
	return history, true
}

// groupReadID parses one XREADGROUP ID, or says what is wrong with it.
func groupReadID(arg []byte) (history *metadata.StreamID, bad string) {
	if len(arg) == 1 && arg[0] == '>' {
		return nil, ""
	}
	if len(arg) == 1 && arg[0] == '$' {
		return nil, "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set."
	}
	id, _, ok := parseStreamID(arg, true, 0, false)
	if !ok {
		return nil, errStreamID
	}
	// Pending entries after the ID. Redis marks ">" with the last
	// possible ID, which so reads new entries too.
	if next, ok := id.Next(); ok {
		return &next, ""
	}
	return nil, ""
}

// checkGroupReads checks each stream's group and then its ID, in Redis's
// order, replying the first error.
func checkGroupReads(c *executor.Ctx, keys [][]byte, a *xreadArgs) (history []*metadata.StreamID, ok bool) {
	history = make([]*metadata.StreamID, len(keys))
	for i, k := range keys {
		keyFound, groupFound, err := c.DB.XGroupExists(k, a.group)
		switch {
		case !c.OK(err):
			return nil, false
		case !keyFound || !groupFound:
			c.ErrorString(noGroupError(k, a.group, " in XREADGROUP with GROUP option"))
			return nil, false
		}
		h, bad := groupReadID(c.Args[a.streams+len(keys)+i])
		if bad != "" {
			c.ErrorString(bad)
			return nil, false
		}
		history[i] = h
	}
	return history, true
}

// xreadgroup replies what the consumer reads from each stream, a null
// when it reads nothing.
func xreadgroup(c *executor.Ctx, keys [][]byte, history []*metadata.StreamID, a *xreadArgs) {
	d := c.W.DeferArray()
	if c.W.Protocol() >= 3 {
		d = c.W.DeferMap()
	}
	replied := 0
	for i, k := range keys {
		entries, claims, served, err := c.DB.XReadGroupClaim(k, &storage.XReadGroupArgs{
			Group: a.group, Consumer: a.consumer, Count: a.count, NoAck: a.noAck, History: history[i],
			Claim: a.claim, MinIdle: a.minIdle,
		})
		if err != nil {
			c.W.Abandon(d)
			if errors.Is(err, storage.ErrNoGroup) {
				// A blocked reader's stream can expire between
				// xreadgroupGone's check and this read: it gets the
				// blocked reader's error.
				if !a.serving || !xreadgroupGone(c, k, a) {
					c.ErrorString(noGroupError(k, a.group, " in XREADGROUP with GROUP option"))
				}
				return
			}
			c.Error(err)
			return
		}
		if !served {
			continue
		}
		replied++
		if c.W.Protocol() < 3 {
			c.W.Array(2)
		}
		c.W.Bulk(k)
		c.W.Array(len(entries))
		for j, e := range entries {
			if a.claim && history[i] == nil {
				writeClaimedEntry(c, e, claims, j)
				continue
			}
			if e.FieldsValues == nil {
				// A pending entry deleted from the stream.
				c.W.Array(2)
				writeID(c, e.ID)
				c.W.NullArray()
				continue
			}
			writeEntry(c, e)
		}
	}
	if replied == 0 {
		c.W.Abandon(d)
		c.W.NullArray()
		return
	}
	c.W.Finish(d, replied)
}

// writeClaimedEntry replies entry j of a read with CLAIM, as Redis 8.4:
// [id, fields, idle ms, deliveries before], the two 0 for a new entry
// (past the claimed ones).
func writeClaimedEntry(c *executor.Ctx, e storage.StreamEntry, claims []storage.StreamClaim, j int) {
	var was storage.StreamClaim
	if j < len(claims) {
		was = claims[j]
	}
	c.W.Array(4)
	writeID(c, e.ID)
	c.W.Array(len(e.FieldsValues))
	for _, b := range e.FieldsValues {
		c.W.Bulk(b)
	}
	c.W.Int(was.Idle)
	c.W.Int(int64(min(was.Count, math.MaxInt64)))
}

// xreadgroupServe serves a blocked XREADGROUP from key, as Redis 7.0
// serves it: with new entries, or with an error when its stream or group
// is gone; nothing (not served) while there is nothing new.
func xreadgroupServe(c *executor.Ctx, key []byte, a *xreadArgs) {
	if xreadgroupGone(c, key, a) {
		return
	}
	mark := c.W.Len()
	serving := *a
	serving.serving = true
	xreadgroup(c, [][]byte{key}, []*metadata.StreamID{nil}, &serving)
	if c.W.NullSince(mark) {
		// Not served: it waits on, and the write that made the key
		// ready may have changed its TTL.
		c.W.Truncate(mark)
		noteExpiries(c, [][]byte{key})
	}
}

// xreadgroupGone answers a blocked XREADGROUP with Redis 7.0's error when
// its stream is gone (deleted, flushed, expired, or now another type) or
// its group is, and reports whether it replied.
func xreadgroupGone(c *executor.Ctx, key []byte, a *xreadArgs) bool {
	keyFound, groupFound, err := c.DB.XGroupExists(key, a.group)
	switch {
	case errors.Is(err, storage.ErrWrongType), err == nil && !keyFound:
		c.ErrorString("UNBLOCKED the stream key no longer exists")
	case !c.OK(err):
	case !groupFound:
		c.ErrorString("NOGROUP the consumer group this client was blocked on no longer exists")
	default:
		return false
	}
	return true
}

// xreadgroupServed: a blocked XREADGROUP is served from the key that got
// entries, reading new ones.
func xreadgroupServed(args [][]byte, key []byte) [][]byte {
	pos := xreadStreams(args)
	return append(append([][]byte(nil), args[:pos+1]...), key, []byte(">"))
}
