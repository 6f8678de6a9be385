// Package cluster holds the cluster topology a controller pushes to a
// node (CLUSTERX SETNODES/SETSLOT, no gossip), persists it in
// <dir>/nodes.conf, and decides for each keyed command whether this node
// serves it or which redirect to answer.
package cluster

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SlotCount is the number of hash slots.
const SlotCount = 16384

// Roles of a node.
const (
	Master = "master"
	Slave  = "slave"
)

// Range is an inclusive range of slots.
type Range struct{ From, To int }

func (r Range) String() string {
	if r.From == r.To {
		return strconv.Itoa(r.From)
	}
	return strconv.Itoa(r.From) + "-" + strconv.Itoa(r.To)
}

// Node is one node of the topology.
type Node struct {
	ID       string
	Host     string
	Port     int
	Role     string
	Fail     bool    // a slave the controller marked failed (role token slave,fail)
	MasterID string  // a slave's master
	Slots    []Range // a master's slots
}

// Addr is host:port.
func (n *Node) Addr() string { return n.Host + ":" + strconv.Itoa(n.Port) }

// Topology is a versioned set of nodes and the owner of every slot.
type Topology struct {
	Version int64
	Nodes   []*Node
	owner   [SlotCount]*Node
}

// ErrBadTopology matches (errors.Is) every reason a nodes text is refused;
// the errors' texts are Kvrocks's replies after "ERR ".
var ErrBadTopology = errors.New("Invalid cluster nodes info")

// topologyError is a refused nodes text, worded as Kvrocks words it.
type topologyError string

func (e topologyError) Error() string        { return string(e) }
func (e topologyError) Is(target error) bool { return target == ErrBadTopology }

// The reasons, as Kvrocks words them (cluster.cc).
const (
	errNodesInfo   = topologyError("Invalid cluster nodes info")
	errNodeID      = topologyError("Invalid cluster node id")
	errNodePort    = topologyError("Invalid cluster node port")
	errNodeRole    = topologyError("Invalid cluster node role")
	errSlotRange   = topologyError("Slot is out of range")
	errOverlap     = topologyError("Slot distribution is overlapped")
	errNoNewline   = topologyError("Invalid nodes definition: Missing newline between node entries.")
	errDuplicateID = topologyError("Invalid cluster nodes info: a node id appears twice")
	errSlaveMaster = topologyError("Invalid cluster nodes info: a slave's master is not a master of the topology")
	errEmptyNodes  = errNodesInfo
)

// ParseTopology parses the text of CLUSTERX SETNODES (or the node lines of
// nodes.conf) as Kvrocks does: lines split on newlines and fields on
// spaces, empty ones skipped; one node per line, `<id> <host> <port>
// master - <slot|a-b>...` or `<id> <host> <port> slave|replica
// <master-id>`. It checks what Kvrocks checks (ids, ports, roles, ranges,
// overlaps), and also that no id appears twice and that every slave's
// master is a master of the text. The nodes are kept in the order Kvrocks
// lists them (kvrocksOrder), each master's slots as merged ranges.
func ParseTopology(text string, version int64) (*Topology, error) {
	t := &Topology{Version: version}
	var nodes []*Node
	byID := map[string]*Node{}
	for _, line := range splitNonEmpty(text, "\n") {
		n, err := parseNode(splitNonEmpty(line, " "))
		if err != nil {
			return nil, err
		}
		if byID[n.ID] != nil {
			return nil, errDuplicateID
		}
		byID[n.ID] = n
		nodes = append(nodes, n)
		for _, r := range n.Slots {
			for s := r.From; s <= r.To; s++ {
				if t.owner[s] != nil {
					return nil, errOverlap
				}
				t.owner[s] = n
			}
		}
	}
	if len(nodes) == 0 {
		return nil, errEmptyNodes
	}
	for _, n := range nodes {
		if n.Role == Slave {
			if m := byID[n.MasterID]; m == nil || m.Role != Master {
				return nil, errSlaveMaster
			}
		}
	}
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		ids[i] = n.ID
	}
	for _, i := range kvrocksOrder(ids) {
		t.Nodes = append(t.Nodes, nodes[i])
	}
	t.rebuildRanges()
	return t, nil
}

func parseNode(f []string) (*Node, error) {
	if len(f) < 5 {
		return nil, errNodesInfo
	}
	n := &Node{ID: f[0], Host: f[1]}
	if len(n.ID) != 40 {
		return nil, errNodeID
	}
	port, err := ParseInt(f[2], 0, 65535)
	if err != nil {
		return nil, errNodePort
	}
	n.Port = int(port)
	role, flag, flagged := strings.Cut(strings.ToLower(f[3]), ",")
	if flagged {
		// Kvrocks 2.16 (PR #3386): a slave's role may carry the fail
		// flag; nothing else follows a role.
		if role == Master || flag != "fail" {
			return nil, errNodeRole
		}
		n.Fail = true
	}
	switch role {
	case "master":
		n.Role = Master
		if f[4] != "-" {
			return nil, errNodeID
		}
		for _, s := range f[5:] {
			if isNodeID(s) {
				return nil, errNoNewline
			}
			r, err := parseNodeSlots(s)
			if err != nil {
				return nil, err
			}
			n.Slots = append(n.Slots, r)
		}
	case "slave", "replica":
		n.Role = Slave
		if len(f[4]) != 40 {
			return nil, errNodeID
		}
		if len(f) != 5 {
			return nil, errNodesInfo
		}
		n.MasterID = f[4]
	default:
		return nil, errNodeRole
	}
	return n, nil
}

// parseNodeSlots parses a slot or a range a-b (a < b) of a master's line
// as Kvrocks does: the parts between dashes, empty ones skipped, so that
// "5-" and "-5" are slot 5 and "1--3" is 1-3.
func parseNodeSlots(s string) (Range, error) {
	bounds := splitNonEmpty(s, "-")
	if len(bounds) == 0 || len(bounds) > 2 {
		return Range{}, errSlotRange
	}
	a, err := ParseInt(bounds[0], 0, SlotCount-1)
	if err != nil {
		return Range{}, errSlotRange
	}
	if len(bounds) == 1 {
		return Range{int(a), int(a)}, nil
	}
	b, err := ParseInt(bounds[1], 0, SlotCount-1)
	if err != nil || a >= b {
		return Range{}, errSlotRange
	}
	return Range{int(a), int(b)}, nil
}

// isNodeID reports whether s looks like a node id: 40 hex digits.
func isNodeID(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}

// checkNodeID checks the length of a node id, the one check Kvrocks makes.
func checkNodeID(id string) error {
	if len(id) != 40 {
		return errNodeID
	}
	return nil
}

// Owner returns the master serving slot, or nil.
func (t *Topology) Owner(slot int) *Node { return t.owner[slot] }

// Node returns the node with id, or nil.
func (t *Topology) Node(id string) *Node {
	for _, n := range t.Nodes {
		if n.ID == id {
			return n
		}
	}
	return nil
}

// String renders the topology in SETNODES form, one node per line.
func (t *Topology) String() string {
	var b strings.Builder
	for _, n := range t.Nodes {
		b.WriteString(n.line())
		b.WriteByte('\n')
	}
	return b.String()
}

// line renders a node as Kvrocks writes it in nodes.conf (without the
// "node " key): id, host, port, role, the master's id or "-", and the
// slots, each after a space, after one more space, so that a slave's line
// and a master's without slots end in a space.
func (n *Node) line() string {
	master := "-"
	if n.Role == Slave {
		master = n.MasterID
	}
	var slots strings.Builder
	for _, r := range n.Slots {
		slots.WriteString(" " + r.String())
	}
	return fmt.Sprintf("%s %s %d %s %s %s", n.ID, n.Host, n.Port, n.Flags(), master, slots.String())
}

// Flags is the node's role with its fail flag after it (slave,fail), as
// CLUSTER NODES and nodes.conf write it.
func (n *Node) Flags() string {
	if n.Fail {
		return n.Role + ",fail"
	}
	return n.Role
}

// rebuildRanges recomputes every master's ranges from the slot owners,
// after SETSLOT moved slots between masters.
func (t *Topology) rebuildRanges() {
	for _, n := range t.Nodes {
		n.Slots = nil
	}
	for s := 0; s < SlotCount; {
		n := t.owner[s]
		e := s
		for e+1 < SlotCount && t.owner[e+1] == n {
			e++
		}
		if n != nil {
			n.Slots = append(n.Slots, Range{s, e})
		}
		s = e + 1
	}
}
