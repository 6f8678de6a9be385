package commands

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/basaltdb/basalt/cluster"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/num"
)

// CLUSTER SLOT-STATS (Redis 8.2) reports, for the slots this node's shard
// serves, their key-count: counted by a walk of the slots' keys (Basalt
// keeps no per-slot counter), which ORDERBY does over every slot of the
// shard. With cluster-slot-stats-enabled it adds cpu-usec,
// network-bytes-in and network-bytes-out, which each command with keys
// counts to its slot while the option is on (executor.countSlotUsage).
// memory-bytes, always there, is 0: RocksDB holds no slot's keys in a
// memory of its own to measure.

func init() {
	clusterSubcommands["slot-stats"] = &executor.Subcommand{Arity: -2, Handler: clusterSlotStats,
		Meta: &executor.Meta{Flags: []string{"readonly", "loading", "stale"},
			Doc: doc("summary", "Returns an array of slot usage statistics for slots assigned to the current shard", "since", "8.2.0",
				"group", "cluster", "complexity", "O(N) where N is the number of keys of the slots reported",
				"arguments", docArgs(append(doc("name", "filter", "type", "oneof"), "$arguments", docArgs(
					append(doc("name", "slotsrange", "type", "block", "token", "SLOTSRANGE"), "$arguments", docArgs(
						doc("name", "start-slot", "type", "integer"), doc("name", "end-slot", "type", "integer"))),
					append(doc("name", "orderby", "type", "block", "token", "ORDERBY"), "$arguments", docArgs(
						doc("name", "metric", "type", "string"),
						optional(doc("name", "limit", "type", "integer", "token", "LIMIT")),
						optional(append(doc("name", "order", "type", "oneof"), "$arguments", docArgs(
							docToken("asc", "ASC"), docToken("desc", "DESC")))))))))),
		}}
}

// slotStat is one slot's line of CLUSTER SLOT-STATS.
type slotStat struct {
	slot, keys int64
	cluster.SlotUsage
}

// slotMetrics are the metrics of a line, in Redis's order: those counted
// only with cluster-slot-stats-enabled are shown only then, and ORDERBY
// takes every metric but key-count only then.
var slotMetrics = []struct {
	name    string
	counted bool
	value   func(s *slotStat) int64
}{
	{"key-count", false, func(s *slotStat) int64 { return s.keys }},
	{"memory-bytes", false, func(*slotStat) int64 { return 0 }},
	{"cpu-usec", true, func(s *slotStat) int64 { return s.CPUUsec }},
	{"network-bytes-in", true, func(s *slotStat) int64 { return s.NetIn }},
	{"network-bytes-out", true, func(s *slotStat) int64 { return s.NetOut }},
}

// CLUSTER SLOT-STATS SLOTSRANGE start-slot end-slot | ORDERBY metric [LIMIT limit] [ASC | DESC]
func clusterSlotStats(c *executor.Ctx) {
	var stats []slotStat
	var ok bool
	switch {
	case len(c.Args) == 5 && c.Is(2, "slotsrange"):
		stats, ok = slotStatsRange(c)
	case len(c.Args) >= 4 && c.Is(2, "orderby"):
		stats, ok = slotStatsOrdered(c)
	default:
		c.ErrorString("ERR unknown subcommand or wrong number of arguments for '" + executor.Abbreviate(c.Args[1]) + "'. Try CLUSTER HELP.")
	}
	if !ok {
		return
	}
	enabled := c.Env.Config.Redis.ClusterSlotStatsEnabled.Get()
	shown := 0
	for _, m := range slotMetrics {
		if enabled || !m.counted {
			shown++
		}
	}
	c.W.Array(len(stats))
	for i := range stats {
		c.W.Array(2)
		c.W.Int(stats[i].slot)
		c.W.Map(shown)
		for _, m := range slotMetrics[:shown] {
			c.W.BulkString(m.name)
			c.W.Int(m.value(&stats[i]))
		}
	}
}

// slotStatsRange reads SLOTSRANGE's slots and returns their stats, by slot.
func slotStatsRange(c *executor.Ctx) ([]slotStat, bool) {
	var bounds [2]int64
	for i := range bounds {
		n, ok := num.ParseInt(c.Args[3+i])
		if !ok || n < 0 || n >= cluster.SlotCount {
			c.ErrorString("ERR Invalid or out of range slot")
			return nil, false
		}
		bounds[i] = n
	}
	if bounds[0] > bounds[1] {
		c.ErrorString("ERR Start slot number " + strconv.FormatInt(bounds[0], 10) + " is greater than end slot number " + strconv.FormatInt(bounds[1], 10))
		return nil, false
	}
	return shardSlotStats(c, bounds[0], bounds[1])
}

// slotStatsOrdered reads ORDERBY's metric and options and returns the
// stats of every slot of the shard in that order (ties by slot), cut to
// LIMIT.
func slotStatsOrdered(c *executor.Ctx) ([]slotStat, bool) {
	metric := -1
	for i, m := range slotMetrics {
		if c.Is(3, m.name) && (i == 0 || c.Env.Config.Redis.ClusterSlotStatsEnabled.Get()) {
			metric = i
		}
	}
	if metric < 0 {
		c.ErrorString("ERR Unrecognized sort metric for ORDERBY.")
		return nil, false
	}
	limit, asc := int64(cluster.SlotCount), false
	limitSet, orderSet := false, false
	for i := 4; i < len(c.Args); i++ {
		switch {
		case c.Is(i, "limit") && i+1 < len(c.Args):
			if limitSet {
				c.ErrorString("ERR Multiple filters of the same type are disallowed.")
				return nil, false
			}
			i++
			n, ok := num.ParseInt(c.Args[i])
			if !ok || n < 1 || n > cluster.SlotCount {
				c.ErrorString("ERR Limit has to lie in between 1 and 16384 (maximum number of slots).")
				return nil, false
			}
			limit, limitSet = n, true
		case c.Is(i, "asc"), c.Is(i, "desc"):
			if orderSet {
				c.ErrorString("ERR Multiple filters of the same type are disallowed.")
				return nil, false
			}
			asc, orderSet = c.Is(i, "asc"), true
		default:
			c.ErrorString(executor.ErrSyntax)
			return nil, false
		}
	}
	stats, ok := shardSlotStats(c, 0, cluster.SlotCount-1)
	if !ok {
		return nil, false
	}
	value := slotMetrics[metric].value
	slices.SortStableFunc(stats, func(a, b slotStat) int {
		if asc {
			return cmp.Compare(value(&a), value(&b))
		}
		return cmp.Compare(value(&b), value(&a))
	})
	return stats[:min(int64(len(stats)), limit)], true
}

// shardSlotStats returns the stats of the slots from..to the shard serves,
// by slot.
func shardSlotStats(c *executor.Ctx, from, to int64) ([]slotStat, bool) {
	counts, err := c.DB.SlotKeyCounts(uint16(from), uint16(to))
	if !c.OK(err) {
		return nil, false
	}
	owned := c.Env.Cluster.ShardSlots()
	var stats []slotStat
	for slot := from; slot <= to; slot++ {
		if owned[slot] {
			stats = append(stats, slotStat{slot: slot, keys: counts[slot-from], SlotUsage: c.Env.Cluster.Usage.Usage(int(slot))})
		}
	}
	return stats, true
}
