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

// ErrBadTopology wraps every reason a nodes text is refused.
var ErrBadTopology = errors.New("invalid cluster nodes info")

func badTopology(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadTopology, fmt.Sprintf(format, args...))
}

// ParseTopology parses the text of CLUSTERX SETNODES (or the node lines of
// nodes.conf): one node per line, `<id> <host> <port> master - <slot|a-b>...`
// or `<id> <host> <port> slave|replica <master-id>`. It checks ids, ports,
// ranges, that masters' slots do not overlap and that every slave's master
// is a master of the text.
func ParseTopology(text string, version int64) (*Topology, error) {
	t := &Topology{Version: version}
	byID := map[string]*Node{}
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		n, err := parseNode(fields)
		if err != nil {
			return nil, err
		}
		if byID[n.ID] != nil {
			return nil, badTopology("node id %s appears twice", n.ID)
		}
		byID[n.ID] = n
		t.Nodes = append(t.Nodes, n)
		for _, r := range n.Slots {
			for s := r.From; s <= r.To; s++ {
				if t.owner[s] != nil {
					return nil, badTopology("slot %d is assigned to %s and %s", s, t.owner[s].ID, n.ID)
				}
				t.owner[s] = n
			}
		}
	}
	if len(t.Nodes) == 0 {
		return nil, badTopology("no node")
	}
	for _, n := range t.Nodes {
		if n.Role == Slave {
			if m := byID[n.MasterID]; m == nil || m.Role != Master {
				return nil, badTopology("the master %s of slave %s is not a master of the topology", n.MasterID, n.ID)
			}
		}
	}
	return t, nil
}

func parseNode(f []string) (*Node, error) {
	if len(f) < 5 {
		return nil, badTopology("a node line needs at least 5 fields: %q", strings.Join(f, " "))
	}
	n := &Node{ID: f[0], Host: f[1]}
	if err := checkNodeID(n.ID); err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(f[2])
	if err != nil || port < 1 || port > 65535 {
		return nil, badTopology("invalid port %q of node %s", f[2], n.ID)
	}
	n.Port = port
	switch strings.ToLower(f[3]) {
	case "master":
		n.Role = Master
		if f[4] != "-" {
			return nil, badTopology("a master's fifth field must be -, got %q", f[4])
		}
		for _, s := range f[5:] {
			if len(s) == 40 && checkNodeID(s) == nil {
				return nil, badTopology("Missing newline between node entries")
			}
			r, err := ParseRange(s)
			if err != nil {
				return nil, err
			}
			n.Slots = append(n.Slots, r)
		}
	case "slave", "replica":
		n.Role = Slave
		if len(f) != 5 {
			return nil, badTopology("a slave line has exactly 5 fields: %q", strings.Join(f, " "))
		}
		if err := checkNodeID(f[4]); err != nil {
			return nil, err
		}
		n.MasterID = f[4]
	default:
		return nil, badTopology("invalid role %q of node %s", f[3], n.ID)
	}
	return n, nil
}

func checkNodeID(id string) error {
	if len(id) != 40 {
		return badTopology("invalid node id %q: it must have 40 characters", id)
	}
	return nil
}

// ParseRange parses a slot or an inclusive range a-b (a < b).
func ParseRange(s string) (Range, error) {
	from, to, isRange := strings.Cut(s, "-")
	a, errA := strconv.Atoi(from)
	b := a
	var errB error
	if isRange {
		b, errB = strconv.Atoi(to)
	}
	switch {
	case errA != nil || errB != nil:
		return Range{}, badTopology("invalid slot range %q", s)
	case a < 0 || b >= SlotCount:
		return Range{}, badTopology("slot range %q is out of 0-16383", s)
	case isRange && a >= b:
		return Range{}, badTopology("invalid slot range %q: the start must be below the end", s)
	}
	return Range{a, b}, nil
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

func (n *Node) line() string {
	if n.Role == Slave {
		return fmt.Sprintf("%s %s %d slave %s", n.ID, n.Host, n.Port, n.MasterID)
	}
	parts := []string{n.ID, n.Host, strconv.Itoa(n.Port), "master", "-"}
	for _, r := range n.Slots {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, " ")
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
