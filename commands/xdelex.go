package commands

import (
	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/num"
	"github.com/basaltdb/basalt/storage"
)

// XDELEX and XACKDEL (Redis 8.2): deletions of stream entries that say
// what becomes of the consumer groups' references to them.

func init() {
	executor.Register(
		&executor.Command{Name: "xdelex", Arity: -5, Flags: executor.Write | executor.Fast | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdXDelEx,
			Events: &executor.KeyEvents{Class: config.NotifyStream, Event: "xdel", Shape: executor.OnShrunk},
			Meta: &executor.Meta{
				KeySpecs: []executor.KeySpec{{Flags: []string{"RW", "delete"}, BeginSearch: "index", Index: 1, FindKeys: "range", LastKey: 0, KeyStep: 1}},
				Doc: doc("summary", "Deletes stream entries, and what the consumer groups hold of them as the policy says", "since", "8.2.0",
					"group", "stream", "complexity", "O(1) for each ID, O(G) with DELREF or ACKED where G is the number of groups",
					"arguments", docArgs(docKey("key", 0), refPolicyDoc(), idsDoc())),
			}},
		&executor.Command{Name: "xackdel", Arity: -6, Flags: executor.Write | executor.Fast | executor.NoDBSizeCheck, FirstKey: 1, LastKey: 1, Handler: cmdXAckDel,
			Events: &executor.KeyEvents{Class: config.NotifyStream, Event: "xdel", Shape: executor.OnShrunk},
			Meta: &executor.Meta{
				KeySpecs: []executor.KeySpec{{Flags: []string{"RW", "update", "delete"}, BeginSearch: "index", Index: 1, FindKeys: "range", LastKey: 0, KeyStep: 1}},
				Doc: doc("summary", "Acknowledges stream entries in a consumer group and deletes them as the policy says", "since", "8.2.0",
					"group", "stream", "complexity", "O(1) for each ID, O(G) with DELREF or ACKED where G is the number of groups",
					"arguments", docArgs(docKey("key", 0), docString("group"), refPolicyDoc(), idsDoc())),
			}},
	)
}

func refPolicyDoc() []any {
	return optional(append(doc("name", "condition", "type", "oneof"), "$arguments", docArgs(
		docToken("keepref", "KEEPREF"), docToken("delref", "DELREF"), docToken("acked", "ACKED"))))
}

func idsDoc() []any {
	return append(doc("name", "ids", "type", "block", "token", "IDS"), "$arguments", docArgs(
		doc("name", "numids", "type", "integer"), multiple(doc("name", "id", "type", "string"))))
}

// XDELEX key [KEEPREF | DELREF | ACKED] IDS numids id [id ...]
func cmdXDelEx(c *executor.Ctx) { deleteEntries(c, nil, 2) }

// XACKDEL key group [KEEPREF | DELREF | ACKED] IDS numids id [id ...]
func cmdXAckDel(c *executor.Ctx) { deleteEntries(c, c.Args[2], 3) }

// deleteEntries runs XDELEX, or XACKDEL acknowledging in group, whose
// options start at argument from.
func deleteEntries(c *executor.Ctx, group []byte, from int) {
	policy, ids, ok := parseEntryDeletion(c, from)
	if !ok {
		return
	}
	res, err := c.DB.XDelEx(c.Args[1], group, policy, ids)
	if !c.OK(err) {
		return
	}
	c.W.Array(len(res))
	for _, r := range res {
		c.W.Int(r)
	}
}

// parseEntryDeletion reads [KEEPREF | DELREF | ACKED] IDS numids id ...
// from argument i, with Redis 8.2's errors; ok is false when it replied.
func parseEntryDeletion(c *executor.Ctx, i int) (policy storage.StreamRefPolicy, ids []metadata.StreamID, ok bool) {
	policySet := false
	for ; i < len(c.Args) && !c.Is(i, "ids"); i++ {
		p, known := refPolicyAt(c, i)
		if !known || policySet {
			c.ErrorString(executor.ErrSyntax)
			return 0, nil, false
		}
		policy, policySet = p, true
	}
	if i+1 >= len(c.Args) {
		c.ErrorString(executor.ErrSyntax)
		return 0, nil, false
	}
	n, isInt := num.ParseInt(c.Args[i+1])
	left := int64(len(c.Args) - i - 2)
	switch {
	case !isInt || n <= 0:
		c.ErrorString("ERR Number of IDs must be a positive integer")
		return 0, nil, false
	case n > left:
		c.ErrorString("ERR The `numids` parameter must match the number of arguments")
		return 0, nil, false
	case n < left:
		c.ErrorString(executor.ErrSyntax)
		return 0, nil, false
	}
	ids = make([]metadata.StreamID, 0, n)
	for j := i + 2; j < len(c.Args); j++ {
		id, ok := streamID(c, j)
		if !ok {
			return 0, nil, false
		}
		ids = append(ids, id)
	}
	return policy, ids, true
}

// refPolicyAt recognises KEEPREF, DELREF or ACKED at argument i.
func refPolicyAt(c *executor.Ctx, i int) (storage.StreamRefPolicy, bool) {
	switch {
	case c.Is(i, "keepref"):
		return storage.KeepRef, true
	case c.Is(i, "delref"):
		return storage.DelRef, true
	case c.Is(i, "acked"):
		return storage.Acked, true
	}
	return 0, false
}
