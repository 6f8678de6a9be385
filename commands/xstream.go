package commands

import (
	"bytes"
	"math"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/storage"
)

// Stream commands (storage/stream.go keeps the entries). Arguments are
// read, and errors worded, as Redis 7.0 reads and words them; IDs are
// parsed by Redis's rules, quirks included (see parseU64).

func init() {
	executor.Register(
		&executor.Command{Name: "xadd", Arity: -5, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdXAdd,
			Events:  &executor.KeyEvents{Class: config.NotifyStream, Event: "xadd", Shape: executor.OnStreamAdd},
			DocArgs: func(args []any) []any { return docInsertAfter(args, "nomkstream", since(refPolicyDoc(), "8.2.0")) }},
		&executor.Command{Name: "xrange", Arity: -4, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdXRange},
		&executor.Command{Name: "xrevrange", Arity: -4, Flags: executor.ReadOnly, FirstKey: 1, LastKey: 1, Handler: cmdXRevRange},
		&executor.Command{Name: "xlen", Arity: -2, Flags: executor.ReadOnly | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdXLen},
		&executor.Command{Name: "xdel", Arity: -3, Flags: executor.Write | executor.Fast | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdXDel,
			Events: &executor.KeyEvents{Class: config.NotifyStream, Event: "xdel", Shape: executor.OnEach}},
		&executor.Command{Name: "xtrim", Arity: -4, Flags: executor.Write | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdXTrim,
			Events:  &executor.KeyEvents{Class: config.NotifyStream, Event: "xtrim", Shape: executor.OnEach},
			DocArgs: func(args []any) []any { return append(args, since(refPolicyDoc(), "8.2.0")) }},
		&executor.Command{Name: "xsetid", Arity: -3, Flags: executor.Write | executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdXSetID,
			Events: &executor.KeyEvents{Class: config.NotifyStream, Event: "xsetid", Shape: executor.OnEach}},
		&executor.Command{Name: "xinfo", Arity: -2, Flags: executor.ReadOnly, Keys: objectKeys, Subcommands: xinfoSubcommands, Handler: cmdXInfo},
		&executor.Command{Name: "xread", Arity: -4, Flags: executor.ReadOnly, Keys: xreadKeys, Handler: cmdXRead},
	)
}

// Redis's error replies about stream IDs.
const (
	errStreamID     = "ERR Invalid stream ID specified as stream command argument"
	errStreamIDZero = "ERR The ID specified in XADD must be greater than 0-0"
)

// isSpace is C's isspace, which strtoull skips.
func isSpace(b byte) bool { return b == ' ' || (b >= '\t' && b <= '\r') }

// parseU64 reads a number as Redis's string2ull does: a canonical int64
// (negative ones refused), else whatever strtoull takes whole, leading
// blanks and a sign included, a minus wrapping around as in C.
func parseU64(s []byte) (uint64, bool) {
	if n, ok := num.ParseInt(s); ok {
		return uint64(n), n >= 0
	}
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i == len(s) {
		return 0, false
	}
	var n uint64
	for ; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 || n > (math.MaxUint64-uint64(d))/10 {
			return 0, false
		}
		n = n*10 + uint64(d)
	}
	if neg {
		n = -n
	}
	return n, true
}

// parseStreamID reads a stream ID as Redis's streamGenericParseIDOrReply:
// "-" and "+" (unless strict), "ms" (seq missingSeq) or "ms-seq", and with
// autoSeq "ms-*" (reported by seqAuto). Redis reads the argument as a C
// string of at most 127 bytes.
func parseStreamID(arg []byte, strict bool, missingSeq uint64, autoSeq bool) (id metadata.StreamID, seqAuto, ok bool) {
	if len(arg) > 127 {
		return id, false, false
	}
	if i := bytes.IndexByte(arg, 0); i >= 0 {
		arg = arg[:i]
	}
	if len(arg) == 1 && (arg[0] == '-' || arg[0] == '+') {
		if strict {
			return id, false, false
		}
		if arg[0] == '+' {
			return metadata.MaxStreamID, false, true
		}
		return id, false, true
	}
	msPart, seqPart, dash := bytes.Cut(arg, []byte{'-'})
	ms, ok := parseU64(msPart)
	if !ok {
		return id, false, false
	}
	if !dash {
		return metadata.StreamID{Ms: ms, Seq: missingSeq}, false, true
	}
	if autoSeq && len(seqPart) == 1 && seqPart[0] == '*' {
		return metadata.StreamID{Ms: ms}, true, true
	}
	seq, ok := parseU64(seqPart)
	return metadata.StreamID{Ms: ms, Seq: seq}, false, ok
}

// streamID parses argument i as a strict ID (no "-" or "+"), replying the
// error when it is not one.
func streamID(c *executor.Ctx, i int) (metadata.StreamID, bool) {
	id, _, ok := parseStreamID(c.Args[i], true, 0, false)
	if !ok {
		c.ErrorString(errStreamID)
	}
	return id, ok
}

// writeEntry replies one entry: its ID and the array of its fields and
// values.
func writeEntry(c *executor.Ctx, e storage.StreamEntry) {
	c.W.Array(2)
	writeID(c, e.ID)
	c.W.Array(len(e.FieldsValues))
	for _, b := range e.FieldsValues {
		c.W.Bulk(b)
	}
}

func writeID(c *executor.Ctx, id metadata.StreamID) {
	var buf [41]byte
	c.W.Bulk(id.AppendText(buf[:0]))
}

// parseTrim reads XADD's and XTRIM's options from argument 2 as Redis's
// streamParseAddOrTrimArgsOrReply does, Redis 8.2's reference policy
// (KEEPREF, DELREF, ACKED) among them, once. For XADD (a not nil) it stops
// at the ID, which it parses into a, and returns its position; for XTRIM
// it returns len(c.Args). ok is false when it replied an error.
func parseTrim(c *executor.Ctx, a *storage.XAddArgs, t *storage.StreamTrim) (idPos int, ok bool) {
	xadd := a != nil
	limitGiven, policySet := false, false
	i := 2
	for ; i < len(c.Args); i++ {
		more := len(c.Args) - 1 - i
		opt := c.Args[i]
		if policy, known := refPolicyAt(c, i); known {
			if policySet {
				c.ErrorString(executor.ErrSyntax)
				return 0, false
			}
			t.Policy, policySet = policy, true
			continue
		}
		switch {
		case xadd && len(opt) == 1 && opt[0] == '*':
			a.Auto = true
			return i, checkTrim(c, t, xadd, limitGiven)
		case more > 0 && (c.Is(i, "maxlen") || c.Is(i, "minid")):
			if t.Strategy != storage.TrimNone {
				c.ErrorString("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")
				return 0, false
			}
			maxLen := c.Is(i, "maxlen")
			t.Approx = false
			if next := c.Args[i+1]; more >= 2 && len(next) == 1 && (next[0] == '~' || next[0] == '=') {
				t.Approx = next[0] == '~'
				i++
			}
			if maxLen {
				n, ok := c.Int(i + 1)
				if !ok {
					return 0, false
				}
				if n < 0 {
					c.ErrorString("ERR The MAXLEN argument must be >= 0.")
					return 0, false
				}
				t.Strategy, t.MaxLen = storage.TrimMaxLen, uint64(n)
			} else {
				id, ok := streamID(c, i+1)
				if !ok {
					return 0, false
				}
				t.Strategy, t.MinID = storage.TrimMinID, id
			}
			i++
		case more > 0 && c.Is(i, "limit"):
			n, ok := c.Int(i + 1)
			if !ok {
				return 0, false
			}
			if n < 0 {
				c.ErrorString("ERR The LIMIT argument must be >= 0.")
				return 0, false
			}
			t.Limit, limitGiven = n, true
			i++
		case xadd && c.Is(i, "nomkstream"):
			a.NoMkStream = true
		case xadd:
			id, seqAuto, ok := parseStreamID(opt, true, 0, true)
			if !ok {
				c.ErrorString(errStreamID)
				return 0, false
			}
			a.ID, a.AutoSeq = id, seqAuto
			return i, checkTrim(c, t, xadd, limitGiven)
		default:
			c.ErrorString(executor.ErrSyntax)
			return 0, false
		}
	}
	return i, checkTrim(c, t, xadd, limitGiven)
}

// checkTrim checks the options parseTrim read together, and completes t
// with stream-node-max-entries and the default LIMIT.
func checkTrim(c *executor.Ctx, t *storage.StreamTrim, xadd, limitGiven bool) bool {
	switch {
	case t.Limit != 0 && t.Strategy == storage.TrimNone:
		c.ErrorString("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy")
	case !xadd && t.Strategy == storage.TrimNone:
		c.ErrorString("ERR syntax error, XTRIM must be called with a trimming strategy")
	case limitGiven && !t.Approx:
		c.ErrorString("ERR syntax error, LIMIT cannot be used without the special ~ option")
	default:
		nodeEntries := c.Env.Config.Redis.StreamNodeMaxEntries.Get()
		t.NodeEntries = uint64(nodeEntries)
		if t.Approx && !limitGiven {
			t.Limit = approxTrimLimit(nodeEntries)
		}
		return true
	}
	return false
}

// approxTrimLimit is the LIMIT of an approximate trim that gives none, as
// Redis's: a hundred nodes' entries, 10000 when nodes are bounded by bytes
// only, at most a million. (An explicit LIMIT 0 is no limit.)
func approxTrimLimit(nodeEntries int64) int64 {
	if nodeEntries <= 0 {
		return 10000
	}
	return min(nodeEntries, 10000) * 100
}

// XADD key [NOMKSTREAM] [KEEPREF|DELREF|ACKED] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [field value ...]
func cmdXAdd(c *executor.Ctx) {
	var a storage.XAddArgs
	idPos, ok := parseTrim(c, &a, &a.Trim)
	if !ok {
		return
	}
	fields := len(c.Args) - idPos - 1
	if fields < 2 || fields%2 == 1 {
		c.ErrorString("ERR wrong number of arguments for 'xadd' command")
		return
	}
	if !a.Auto && !a.AutoSeq && a.ID.IsZero() {
		c.ErrorString(errStreamIDZero)
		return
	}
	id, added, err := c.DB.XAdd(c.Args[1], &a, c.Args[idPos+1:])
	switch {
	case !c.OK(err):
	case !added:
		c.W.Null()
	default:
		writeID(c, id)
	}
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count] [KEEPREF|DELREF|ACKED]
func cmdXTrim(c *executor.Ctx) {
	var t storage.StreamTrim
	if _, ok := parseTrim(c, nil, &t); !ok {
		return
	}
	n, err := c.DB.XTrim(c.Args[1], t)
	if c.OK(err) {
		c.W.Int(n)
	}
}

// XRANGE key start end [COUNT count]
func cmdXRange(c *executor.Ctx) { xrange(c, false) }

// XREVRANGE key end start [COUNT count]
func cmdXRevRange(c *executor.Ctx) { xrange(c, true) }

// rangeBound parses a range bound: an ID, "-", "+", or with a leading "("
// the ID after (before, for the end) the one given.
func rangeBound(c *executor.Ctx, arg []byte, missingSeq uint64, end bool) (metadata.StreamID, bool) {
	exclusive := len(arg) > 1 && arg[0] == '('
	if exclusive {
		arg = arg[1:]
	}
	id, _, ok := parseStreamID(arg, exclusive, missingSeq, false)
	if !ok {
		c.ErrorString(errStreamID)
		return id, false
	}
	if !exclusive {
		return id, true
	}
	if end {
		if id, ok = id.Prev(); !ok {
			c.ErrorString("ERR invalid end ID for the interval")
		}
		return id, ok
	}
	if id, ok = id.Next(); !ok {
		c.ErrorString("ERR invalid start ID for the interval")
	}
	return id, ok
}

func xrange(c *executor.Ctx, rev bool) {
	startArg, endArg := c.Args[2], c.Args[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, ok := rangeBound(c, startArg, 0, false)
	if !ok {
		return
	}
	end, ok := rangeBound(c, endArg, math.MaxUint64, true)
	if !ok {
		return
	}
	count := int64(-1)
	for j := 4; j < len(c.Args); j++ {
		if !c.Is(j, "count") || j+1 >= len(c.Args) {
			c.ErrorString(executor.ErrSyntax)
			return
		}
		n, ok := c.Int(j + 1)
		if !ok {
			return
		}
		count = max(n, 0)
		j++
	}
	if count == 0 {
		// Redis answers a COUNT 0 of an existing stream with a null.
		_, found, err := c.DB.XStreamInfo(c.Args[1], storage.StreamInfoWant{})
		switch {
		case !c.OK(err):
		case found:
			c.W.NullArray()
		default:
			c.W.Array(0)
		}
		return
	}
	// The reply goes out as the entries are read, its length known first.
	out := newReplyStream(c, 1)
	_, err := c.DB.XRangeSized(c.Args[1], start, end, rev, max(count, 0), out.begin, func(e storage.StreamEntry) bool {
		writeEntry(c, e)
		return out.wrote(1)
	})
	out.end(err)
}

// XLEN key [id [+|-]]
//
// The ID is Kvrocks's extension: XLEN then counts the entries after it
// (+, the default) or before it (-). As Kvrocks, it reads no argument
// past the direction.
func cmdXLen(c *executor.Ctx) {
	if len(c.Args) == 2 {
		replyLen(c, metadata.TypeStream)
		return
	}
	id, ok := streamID(c, 2)
	if !ok {
		return
	}
	start, end := metadata.StreamID{}, metadata.MaxStreamID
	var inRange bool
	switch {
	case len(c.Args) == 3 || c.Is(3, "+"):
		start, inRange = id.Next()
	case c.Is(3, "-"):
		end, inRange = id.Prev()
	default:
		c.ErrorString(executor.ErrSyntax)
		return
	}
	if !inRange { // nothing lies after the last ID or before the first
		start, end = metadata.MaxStreamID, metadata.StreamID{}
	}
	n, err := c.DB.XCount(c.Args[1], start, end)
	if c.OK(err) {
		c.W.Int(n)
	}
}

// XDEL key id [id ...]
func cmdXDel(c *executor.Ctx) {
	typ, err := c.DB.Type(c.Args[1])
	switch {
	case !c.OK(err):
		return
	case typ == metadata.TypeNone:
		c.W.Int(0)
		return
	case typ != metadata.TypeStream:
		c.ErrorString(executor.ErrWrongType)
		return
	}
	ids := make([]metadata.StreamID, 0, len(c.Args)-2)
	for i := 2; i < len(c.Args); i++ {
		id, ok := streamID(c, i)
		if !ok {
			return
		}
		ids = append(ids, id)
	}
	n, err := c.DB.XDel(c.Args[1], ids)
	if c.OK(err) {
		c.W.Int(n)
	}
}

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
func cmdXSetID(c *executor.Ctx) {
	c.ChangesNoKey()
	id, ok := streamID(c, 2)
	if !ok {
		return
	}
	a := storage.XSetIDArgs{ID: id, EntriesAdded: -1}
	for i := 3; i < len(c.Args); i += 2 {
		more := len(c.Args) - 1 - i
		switch {
		case more > 0 && c.Is(i, "entriesadded"):
			n, ok := c.Int(i + 1)
			if !ok {
				return
			}
			if n < 0 {
				c.ErrorString("ERR entries_added must be positive")
				return
			}
			a.EntriesAdded = n
		case more > 0 && c.Is(i, "maxdeletedid"):
			m, ok := streamID(c, i+1)
			if !ok {
				return
			}
			if id.Compare(m) < 0 {
				c.ErrorString("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
				return
			}
			a.MaxDeleted = m
		default:
			c.ErrorString(executor.ErrSyntax)
			return
		}
	}
	if c.OK(c.DB.XSetID(c.Args[1], a)) {
		c.W.OK()
	}
}

// XINFO STREAM key [FULL [COUNT count]] | XINFO GROUPS key |
// XINFO CONSUMERS key group | XINFO HELP
func cmdXInfo(c *executor.Ctx) { executor.DispatchSub(c) }

var xinfoSubcommands = map[string]*executor.Subcommand{
	"stream":    {Arity: -3, Handler: xinfoStream},
	"groups":    {Arity: 3, Handler: xinfoGroups},
	"consumers": {Arity: 4, Handler: xinfoConsumers},
	"help": executor.Help(
		"XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CONSUMERS <key> <groupname>",
		"    Show consumers of <groupname>.",
		"GROUPS <key>",
		"    Show the stream consumer groups.",
		"STREAM <key> [FULL [COUNT <count>]",
		"    Show information about the stream.",
		"HELP",
		"    Prints this help.",
	),
}

// radixEstimate is what XINFO STREAM reports as radix-tree-keys and
// radix-tree-nodes: Redis's count of listpack nodes and of radix tree
// nodes over them. Basalt has neither; it reports the nodes its
// approximate trimming assumes (storage.trim: entry k of the history in
// node k/100), and one radix node more, which is what Redis reports for
// a stream of one node.
func radixEstimate(info storage.StreamInfo) (keys, nodes int64) {
	if info.Length == 0 {
		return 0, 1
	}
	const perNode = 100
	base := (info.EntriesAdded - info.Length) % perNode
	first := min(perNode-base, info.Length)
	keys = 1 + int64((info.Length-first+perNode-1)/perNode)
	return keys, keys + 1
}

func xinfoStream(c *executor.Ctx) {
	full, count := false, int64(10)
	switch {
	case len(c.Args) == 3:
	case len(c.Args) == 4 && c.Is(3, "full"):
		full = true
	case len(c.Args) == 6 && c.Is(3, "full") && c.Is(4, "count"):
		n, ok := c.Int(5)
		if !ok {
			return
		}
		full, count = true, max(n, 0)
	default:
		c.ErrorString("ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO HELP.")
		return
	}
	info, found, err := c.DB.XStreamInfo(c.Args[2], storage.StreamInfoWant{Ends: !full, Full: full, Count: count})
	switch {
	case !c.OK(err):
		return
	case !found:
		c.ErrorString("ERR no such key")
		return
	}
	keys, nodes := radixEstimate(info)
	if full {
		c.W.Map(9)
	} else {
		c.W.Map(10)
	}
	c.W.BulkString("length")
	c.W.Int(int64(info.Length))
	c.W.BulkString("radix-tree-keys")
	c.W.Int(keys)
	c.W.BulkString("radix-tree-nodes")
	c.W.Int(nodes)
	c.W.BulkString("last-generated-id")
	writeID(c, info.LastGenerated)
	c.W.BulkString("max-deleted-entry-id")
	writeID(c, info.MaxDeleted)
	c.W.BulkString("entries-added")
	c.W.Int(int64(info.EntriesAdded))
	c.W.BulkString("recorded-first-entry-id")
	writeID(c, info.RecordedFirst)
	if !full {
		c.W.BulkString("groups")
		c.W.Int(int64(info.Groups))
		for _, end := range []struct {
			name string
			e    *storage.StreamEntry
		}{{"first-entry", info.FirstEntry}, {"last-entry", info.LastEntry}} {
			c.W.BulkString(end.name)
			if end.e == nil {
				c.W.Null()
			} else {
				writeEntry(c, *end.e)
			}
		}
		return
	}
	c.W.BulkString("entries")
	c.W.Array(len(info.Entries))
	for _, e := range info.Entries {
		writeEntry(c, e)
	}
	c.W.BulkString("groups")
	c.W.Array(len(info.GroupList))
	for _, g := range info.GroupList {
		c.W.Map(7)
		c.W.BulkString("name")
		c.W.Bulk(g.Name)
		c.W.BulkString("last-delivered-id")
		writeID(c, g.LastDelivered)
		writeGroupCounters(c, info, g)
		c.W.BulkString("pel-count")
		c.W.Int(int64(g.Pending))
		c.W.BulkString("pending")
		c.W.Array(len(g.PendingList))
		for _, p := range g.PendingList {
			c.W.Array(4)
			writeID(c, p.ID)
			c.W.Bulk(p.Consumer)
			c.W.Int(p.DeliveryTime)
			c.W.Int(int64(p.DeliveryCount))
		}
		c.W.BulkString("consumers")
		c.W.Array(len(g.ConsumerList))
		for _, cons := range g.ConsumerList {
			c.W.Map(4)
			c.W.BulkString("name")
			c.W.Bulk(cons.Name)
			c.W.BulkString("seen-time")
			c.W.Int(cons.SeenTime)
			c.W.BulkString("pel-count")
			c.W.Int(int64(cons.Pending))
			c.W.BulkString("pending")
			c.W.Array(len(cons.PendingList))
			for _, p := range cons.PendingList {
				c.W.Array(3)
				writeID(c, p.ID)
				c.W.Int(p.DeliveryTime)
				c.W.Int(int64(p.DeliveryCount))
			}
		}
	}
}

// writeGroupCounters replies a group's entries-read and lag, null when
// unknown, as Redis 7.0.
func writeGroupCounters(c *executor.Ctx, info storage.StreamInfo, g storage.StreamGroupInfo) {
	c.W.BulkString("entries-read")
	if g.EntriesRead == -1 {
		c.W.Null()
	} else {
		c.W.Int(g.EntriesRead)
	}
	c.W.BulkString("lag")
	if lag, ok := info.Lag(info.Length, g.StreamGroup); ok {
		c.W.Int(lag)
	} else {
		c.W.Null()
	}
}

func xinfoGroups(c *executor.Ctx) {
	info, found, err := c.DB.XStreamInfo(c.Args[2], storage.StreamInfoWant{Groups: true})
	switch {
	case !c.OK(err):
		return
	case !found:
		c.ErrorString("ERR no such key")
		return
	}
	c.W.Array(len(info.GroupList))
	for _, g := range info.GroupList {
		c.W.Map(6)
		c.W.BulkString("name")
		c.W.Bulk(g.Name)
		c.W.BulkString("consumers")
		c.W.Int(int64(g.Consumers))
		c.W.BulkString("pending")
		c.W.Int(int64(g.Pending))
		c.W.BulkString("last-delivered-id")
		writeID(c, g.LastDelivered)
		writeGroupCounters(c, info, g)
	}
}

func xinfoConsumers(c *executor.Ctx) {
	consumers, found, groupFound, err := c.DB.XConsumers(c.Args[2], c.Args[3])
	switch {
	case !c.OK(err):
		return
	case !found:
		c.ErrorString("ERR no such key")
		return
	case !groupFound:
		c.ErrorString("NOGROUP No such consumer group '" + string(c.Args[3]) + "' for key name '" + string(c.Args[2]) + "'")
		return
	}
	now := time.Now().UnixMilli()
	c.W.Array(len(consumers))
	for _, cons := range consumers {
		c.W.Map(3)
		c.W.BulkString("name")
		c.W.Bulk(cons.Name)
		c.W.BulkString("pending")
		c.W.Int(int64(cons.Pending))
		c.W.BulkString("idle")
		c.W.Int(max(now-cons.SeenTime, 0))
	}
}
