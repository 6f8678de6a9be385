package commands

import (
	"errors"
	"strconv"
	"strings"

	"github.com/basaltdb/basalt/cluster"
	"github.com/basaltdb/basalt/metadata"
)

func init() {
	register(
		&Command{Name: "cluster", Arity: -2, Flags: Admin, Handler: cmdCluster},
		&Command{Name: "clusterx", Arity: -2, Flags: Admin | Exclusive, Handler: cmdClusterX},
		&Command{Name: "readonly", Arity: 1, Flags: Fast, Handler: cmdReadOnly},
		&Command{Name: "readwrite", Arity: 1, Flags: Fast, Handler: cmdReadWrite},
		&Command{Name: "asking", Arity: 1, Flags: Fast, Handler: cmdAsking},
	)
}

const errClusterDisabled = "ERR Cluster mode is not enabled"

// clusterError writes err: routing and CLUSTERDOWN replies as they are,
// others after ERR.
func (c *Ctx) clusterError(err error) {
	var redirect cluster.Redirect
	switch {
	case errors.As(err, &redirect):
		c.ErrorString(redirect.Error())
	case errors.Is(err, cluster.ErrNotInitialized):
		c.ErrorString("CLUSTERDOWN " + err.Error())
	default:
		c.ErrorString("ERR " + err.Error())
	}
}

// CLUSTER INFO | NODES | SLOTS | SHARDS | KEYSLOT key | MYID |
// COUNTKEYSINSLOT slot | GETKEYSINSLOT slot count | REPLICAS node-id |
// RESET [HARD | SOFT]
func cmdCluster(c *Ctx) {
	cl, sub, ok := clusterSub(c)
	if !ok {
		return
	}
	switch {
	case sub == "info" && len(c.Args) == 2:
		c.clusterText(cl.Info())
	case sub == "nodes" && len(c.Args) == 2:
		c.clusterText(cl.NodesText())
	case sub == "slots" && len(c.Args) == 2:
		clusterSlots(c, cl)
	case sub == "shards" && len(c.Args) == 2:
		clusterShards(c, cl)
	case sub == "keyslot" && len(c.Args) == 3:
		c.W.Int(int64(metadata.HashSlot(c.Args[2])))
	case sub == "myid" && len(c.Args) == 2:
		c.W.BulkString(cl.MyID())
	case sub == "countkeysinslot" && len(c.Args) == 3:
		if slot, ok := parseSlot(c, c.Args[2]); ok {
			_, n, err := c.DB.KeysInSlot(slot, 0)
			if c.ok(err) {
				c.W.Int(n)
			}
		}
	case sub == "getkeysinslot" && len(c.Args) == 4:
		slot, ok := parseSlot(c, c.Args[2])
		count, isInt := c.Int(3)
		if !ok || !isInt {
			return
		}
		if count < 0 {
			c.ErrorString("ERR Invalid number of keys")
			return
		}
		keys, _, err := c.DB.KeysInSlot(slot, count)
		if c.ok(err) {
			c.W.Array(len(keys))
			for _, k := range keys {
				c.W.Bulk(k)
			}
		}
	case sub == "replicas" && len(c.Args) == 3:
		lines, err := cl.Replicas(string(c.Args[2]))
		if err != nil {
			c.clusterError(err)
			return
		}
		c.W.Array(len(lines))
		for _, l := range lines {
			c.W.BulkString(l)
		}
	case sub == "reset" && (len(c.Args) == 2 || (len(c.Args) == 3 && (c.is(2, "hard") || c.is(2, "soft")))):
		st, err := c.DB.Stats()
		if !c.ok(err) {
			return
		}
		if st.Keys > 0 {
			c.ErrorString("ERR Can't reset cluster while database is not empty")
			return
		}
		if c.ok(cl.Reset()) {
			c.W.OK()
		}
	default:
		c.ErrorString("ERR CLUSTER command, CLUSTER INFO|NODES|SLOTS|SHARDS|KEYSLOT|MYID|COUNTKEYSINSLOT|GETKEYSINSLOT|REPLICAS|RESET")
	}
}

// clusterSub returns the node's cluster state and the lower-cased
// subcommand, or replies that cluster mode is off.
func clusterSub(c *Ctx) (*cluster.Cluster, string, bool) {
	if c.Env.Cluster == nil {
		c.ErrorString(errClusterDisabled)
		return nil, "", false
	}
	return c.Env.Cluster, strings.ToLower(string(c.Args[1])), true
}

// clusterText replies with a text reply (CLUSTER INFO, NODES) or its error.
func (c *Ctx) clusterText(text string, err error) {
	if err != nil {
		c.clusterError(err)
		return
	}
	c.W.Verbatim(text)
}

func parseSlot(c *Ctx, arg []byte) (uint16, bool) {
	n, err := strconv.Atoi(string(arg))
	if err != nil || n < 0 || n >= cluster.SlotCount {
		c.ErrorString("ERR Invalid slot")
		return 0, false
	}
	return uint16(n), true
}

// clusterSlots writes CLUSTER SLOTS: [start, end, [host, port, id], replicas...].
func clusterSlots(c *Ctx, cl *cluster.Cluster) {
	groups, err := cl.Slots()
	if err != nil {
		c.clusterError(err)
		return
	}
	c.W.Array(len(groups))
	for _, g := range groups {
		c.W.Array(3 + len(g.Slaves))
		c.W.Int(int64(g.Range.From))
		c.W.Int(int64(g.Range.To))
		for _, n := range append([]*cluster.Node{g.Master}, g.Slaves...) {
			c.W.Array(3)
			c.W.BulkString(n.Host)
			c.W.Int(int64(n.Port))
			c.W.BulkString(n.ID)
		}
	}
}

// clusterShards writes CLUSTER SHARDS: per master, its slots and nodes.
func clusterShards(c *Ctx, cl *cluster.Cluster) {
	t, _ := cl.Snapshot()
	if t == nil {
		c.clusterError(cluster.ErrNotInitialized)
		return
	}
	var masters []*cluster.Node
	for _, n := range t.Nodes {
		if n.Role == cluster.Master {
			masters = append(masters, n)
		}
	}
	c.W.Array(len(masters))
	for _, m := range masters {
		c.W.Map(2)
		c.W.BulkString("slots")
		c.W.Array(2 * len(m.Slots))
		for _, r := range m.Slots {
			c.W.Int(int64(r.From))
			c.W.Int(int64(r.To))
		}
		c.W.BulkString("nodes")
		var members []*cluster.Node
		for _, n := range t.Nodes {
			if n == m || (n.Role == cluster.Slave && n.MasterID == m.ID) {
				members = append(members, n)
			}
		}
		c.W.Array(len(members))
		for _, n := range members {
			c.W.Map(5)
			c.W.BulkString("id")
			c.W.BulkString(n.ID)
			c.W.BulkString("ip")
			c.W.BulkString(n.Host)
			c.W.BulkString("port")
			c.W.Int(int64(n.Port))
			c.W.BulkString("role")
			c.W.BulkString(n.Role)
			c.W.BulkString("health")
			c.W.BulkString("online")
		}
	}
}

// CLUSTERX VERSION | MYID | SETNODEID id | SETNODES "nodes" version [FORCE] |
// SETSLOT slot|a-b [slot|a-b ...] NODE id version
func cmdClusterX(c *Ctx) {
	cl, sub, ok := clusterSub(c)
	if !ok {
		return
	}
	switch {
	case sub == "version" && len(c.Args) == 2:
		c.W.BulkString(strconv.FormatInt(cl.Version(), 10))
	case sub == "myid" && len(c.Args) == 2:
		c.W.BulkString(cl.MyID())
	case sub == "setnodeid" && len(c.Args) == 3:
		c.clusterOK(cl.SetNodeID(string(c.Args[2])))
	case sub == "setnodes" && (len(c.Args) == 4 || (len(c.Args) == 5 && c.is(4, "force"))):
		version, ok := c.Int(3)
		if ok {
			c.clusterOK(cl.SetNodes(string(c.Args[2]), version, len(c.Args) == 5))
		}
	case sub == "setslot" && len(c.Args) >= 6 && c.is(len(c.Args)-3, "node"):
		version, ok := c.Int(len(c.Args) - 1)
		if !ok {
			return
		}
		var ranges []cluster.Range
		for _, a := range c.Args[2 : len(c.Args)-3] {
			r, err := cluster.ParseRange(string(a))
			if err != nil {
				c.clusterError(err)
				return
			}
			ranges = append(ranges, r)
		}
		c.clusterOK(cl.SetSlots(ranges, string(c.Args[len(c.Args)-2]), version))
	default:
		c.ErrorString("ERR CLUSTERX command, CLUSTERX VERSION|MYID|SETNODEID|SETNODES|SETSLOT")
	}
}

func (c *Ctx) clusterOK(err error) {
	if err != nil {
		c.clusterError(err)
		return
	}
	c.W.OK()
}

// READONLY
func cmdReadOnly(c *Ctx) {
	c.Client.ReadOnly = true
	c.W.OK()
}

// READWRITE
func cmdReadWrite(c *Ctx) {
	c.Client.ReadOnly = false
	c.W.OK()
}

// ASKING
//
// Basalt never answers ASK, so ASKING has nothing to enable.
func cmdAsking(c *Ctx) { c.W.OK() }
