//lint:file-ignore ST1005 error texts are Kvrocks's replies, capitals included

package cluster

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Errors of the topology commands; their texts are Kvrocks's replies
// after "ERR ", which word an unknown node and a slave where a master is
// needed differently per command.
var (
	ErrInvalidVersion = errors.New("Invalid cluster version")
	ErrNotInitialized = errors.New("The cluster is not initialized")
	// SETSLOT
	ErrUnknownNode = errors.New("No this node in the cluster")
	// CLUSTERX MIGRATE
	ErrUnknownDestination = errors.New("Can't find the destination node id")
	ErrMigrateToSlave     = errors.New("Can't migrate slot to a slave")
	// CLUSTER REPLICAS and SETSLOT
	ErrInvalidNodeID = errors.New("Invalid cluster node id")
	ErrNodeNotMaster = errors.New("The node isn't a master")
)

// Cluster is this node's view of the cluster. It is safe for concurrent
// use.
type Cluster struct {
	path  string   // nodes.conf, "" when not persisted
	binds []string // this node's bind hosts
	port  int

	mu    sync.RWMutex
	myID  string
	topo  *Topology // nil before the first SETNODES
	self  *Node     // this node in topo, or nil
	slots slotState

	// writes is held shared by write commands and exclusively to forbid
	// writes; see ForbidWrites.
	writes sync.RWMutex

	// Usage is what CLUSTER SLOT-STATS counts per slot.
	Usage SlotStats
}

// Open returns the cluster state of a node listening on binds:port,
// restored from nodesFile when it exists ("" to persist nothing).
func Open(nodesFile string, binds []string, port int) (*Cluster, error) {
	c := &Cluster{path: nodesFile, binds: binds, port: port}
	if nodesFile == "" {
		return c, nil
	}
	text, err := os.ReadFile(nodesFile)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if err := c.load(string(text)); err != nil {
		return nil, fmt.Errorf("cluster: %s: %w", nodesFile, err)
	}
	return c, nil
}

// load parses nodes.conf: version, id and node lines.
func (c *Cluster) load(text string) error {
	version := int64(-1)
	var nodes []string
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, _ := strings.Cut(line, " ")
		switch key {
		case "version":
			v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil {
				return fmt.Errorf("line %d: bad version %q", i+1, value)
			}
			version = v
		case "id":
			c.myID = strings.TrimSpace(value)
		case "node":
			nodes = append(nodes, value)
		default:
			return fmt.Errorf("line %d: unknown key %q", i+1, key)
		}
	}
	if version < 0 {
		return nil
	}
	t, err := ParseTopology(strings.Join(nodes, "\n"), version)
	if err != nil {
		return err
	}
	c.install(t, false)
	return nil
}

// save writes nodes.conf atomically (temporary file and rename), byte for
// byte as Kvrocks writes it: the version (-1 before the first topology),
// the id (empty before this node has one) and a line per node.
func (c *Cluster) save() error {
	if c.path == "" {
		return nil
	}
	var b strings.Builder
	version := int64(-1)
	if c.topo != nil {
		version = c.topo.Version
	}
	fmt.Fprintf(&b, "version %d\nid %s\n", version, c.myID)
	if c.topo != nil {
		for _, n := range c.topo.Nodes {
			b.WriteString("node " + n.line() + "\n")
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".nodes-conf-*")
	if err != nil {
		return fmt.Errorf("cluster: save nodes.conf: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(b.String()); err != nil {
		tmp.Close()
		return fmt.Errorf("cluster: save nodes.conf: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cluster: save nodes.conf: %w", err)
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		return fmt.Errorf("cluster: save nodes.conf: %w", err)
	}
	return nil
}

// SetPersist turns the persistence of the topology on or off while the
// server runs (CONFIG SET persist-cluster-nodes-enabled), as Kvrocks does:
// on writes the topology to path at once, off removes the file at path so
// that no stale topology is loaded later.
func (c *Cluster) SetPersist(on bool, path string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if on {
		c.path = path
		return c.save()
	}
	c.path = ""
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cluster: %w", err)
	}
	return nil
}

// install makes t the topology and finds this node in it by id. As in
// Kvrocks, a node without an id yet, or told with force, first looks for
// itself by address (port and bind host, in the order nodes are listed)
// and adopts that node's id.
func (c *Cluster) install(t *Topology, force bool) {
	c.topo = t
	if c.myID == "" || force {
		for _, n := range t.Nodes {
			if n.Port == c.port && matchListeningIP(c.binds, n.Host) {
				c.myID = n.ID
				break
			}
		}
	}
	c.self = t.Node(c.myID)
}

// matchListeningIP reports whether host is one this node listens on: a
// bind address, or, with a wildcard bind, any address of the machine (as
// Kvrocks's MatchListeningIP).
func matchListeningIP(binds []string, host string) bool {
	if slices.Contains(binds, host) {
		return true
	}
	if !slices.Contains(binds, "0.0.0.0") && !slices.Contains(binds, "::") {
		return false
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if ipNet, ok := a.(*net.IPNet); ok && ipNet.IP.String() == host {
			return true
		}
	}
	return false
}

// Version returns the topology version, -1 before the first SETNODES.
func (c *Cluster) Version() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.topo == nil {
		return -1
	}
	return c.topo.Version
}

// MyID returns this node's id: empty until CLUSTERX SETNODEID gives one
// or a topology names this node's address, as in Kvrocks.
func (c *Cluster) MyID() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.myID
}

// SetNodeID sets this node's id.
func (c *Cluster) SetNodeID(id string) error {
	if err := checkNodeID(id); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.myID = id
	if c.topo != nil {
		c.self = c.topo.Node(id)
	}
	return c.save()
}

// SetNodes replaces the whole topology. A lower version is refused; the
// same version changes nothing unless force, which also makes the node
// find itself by address. It returns the slots this node had migrated
// away, whose data the caller must now delete.
func (c *Cluster) SetNodes(text string, version int64, force bool) ([]Range, error) {
	if version < 0 {
		return nil, ErrInvalidVersion
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// As Kvrocks, the version is checked before the text is read.
	if c.topo != nil && !force {
		if version < c.topo.Version {
			return nil, ErrInvalidVersion
		}
		if version == c.topo.Version {
			return nil, nil
		}
	}
	t, err := ParseTopology(text, version)
	if err != nil {
		return nil, err
	}
	c.install(t, force)
	return c.settle(), c.save()
}

// SetSlots gives ranges to master nodeID; version must be the current one
// plus one. It returns the slots of ranges this node had migrated away,
// whose data the caller must now delete.
func (c *Cluster) SetSlots(ranges []Range, nodeID string, version int64) ([]Range, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.topo == nil {
		return nil, ErrNotInitialized
	}
	if version != c.topo.Version+1 {
		return nil, ErrInvalidVersion
	}
	n := c.topo.Node(nodeID)
	if n == nil {
		return nil, ErrUnknownNode
	}
	if n.Role != Master {
		return nil, ErrNodeNotMaster
	}
	var gone []Range
	for _, r := range ranges {
		for s := r.From; s <= r.To; s++ {
			c.topo.owner[s] = n
			if c.slots.migrated[s] != nil && n != c.self {
				gone = appendSlot(gone, s)
			}
			delete(c.slots.migrated, s)
			delete(c.slots.imported, s)
		}
	}
	c.topo.rebuildRanges()
	c.topo.Version = version
	return gone, c.save()
}

// Reset forgets the topology and this node's id, as Kvrocks does, and
// removes nodes.conf. It is refused while a migration or an import runs.
func (c *Cluster) Reset() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.slots.busy(); err != nil {
		return err
	}
	c.topo, c.self, c.slots, c.myID = nil, nil, slotState{}, ""
	if c.path == "" {
		return nil
	}
	if err := os.Remove(c.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cluster: %w", err)
	}
	return nil
}

// Snapshot returns the current topology and this node in it (either may be
// nil). The topology must not be modified.
func (c *Cluster) Snapshot() (*Topology, *Node) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.topo, c.self
}

// ShardSlots reports, by slot, whether this node's shard serves it: the
// node's own slots for a master, its master's for a replica; none before
// a topology names the node.
func (c *Cluster) ShardSlots() []bool {
	owned := make([]bool, SlotCount)
	topo, self := c.Snapshot()
	if topo == nil || self == nil {
		return owned
	}
	master := self.ID
	if self.Role == Slave {
		master = self.MasterID
	}
	for slot := range owned {
		n := topo.Owner(slot)
		owned[slot] = n != nil && n.ID == master
	}
	return owned
}

// Info renders CLUSTER INFO.
func (c *Cluster) Info() (string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	t := c.topo
	if t == nil {
		return "", ErrNotInitialized
	}
	assigned, size := 0, 0
	for _, n := range t.Nodes {
		if n.Role == Master && len(n.Slots) > 0 {
			size++
		}
		for _, r := range n.Slots {
			assigned += r.To - r.From + 1
		}
	}
	lines := []string{
		"cluster_state:ok",
		"cluster_slots_assigned:" + strconv.Itoa(assigned),
		"cluster_slots_ok:" + strconv.Itoa(assigned),
		"cluster_slots_pfail:0",
		"cluster_slots_fail:0",
		"cluster_known_nodes:" + strconv.Itoa(len(t.Nodes)),
		"cluster_size:" + strconv.Itoa(size),
		"cluster_current_epoch:" + strconv.FormatInt(t.Version, 10),
		"cluster_my_epoch:" + strconv.FormatInt(t.Version, 10),
	}
	if c.self == nil || c.self.Role == Master {
		lines = append(lines, c.slots.infoLines()...)
	}
	return strings.Join(lines, "\r\n") + "\r\n", nil
}

// NodesText renders CLUSTER NODES: one line per node, fields separated by
// one space, lines ending in \n.
func (c *Cluster) NodesText() (string, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	t, self := c.topo, c.self
	if t == nil {
		return "", ErrNotInitialized
	}
	var b strings.Builder
	for _, n := range t.Nodes {
		b.WriteString(nodesLine(t, n, n == self))
		if n == self {
			b.WriteString(c.slots.nodesSuffix())
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// Replicas renders the CLUSTER NODES lines of master id's slaves, each
// ending in \n, as Kvrocks's CLUSTER REPLICAS: without the myself flag,
// even on one of those slaves.
func (c *Cluster) Replicas(id string) (string, error) {
	t, _ := c.Snapshot()
	if t == nil {
		return "", ErrNotInitialized
	}
	switch m := t.Node(id); {
	case m == nil:
		return "", ErrInvalidNodeID
	case m.Role != Master:
		return "", ErrNodeNotMaster
	}
	var b strings.Builder
	for _, n := range t.Nodes {
		if n.Role == Slave && n.MasterID == id {
			b.WriteString(nodesLine(t, n, false) + "\n")
		}
	}
	return b.String(), nil
}

func nodesLine(t *Topology, n *Node, myself bool) string {
	now := time.Now().UnixMilli()
	flags, master := n.Flags(), "-"
	if myself {
		flags = "myself," + flags
	}
	if n.Role == Slave {
		master = n.MasterID
	}
	parts := []string{n.ID, n.Addr() + "@" + strconv.Itoa(n.Port+10000), flags, master,
		strconv.FormatInt(now-1, 10), strconv.FormatInt(now, 10), strconv.FormatInt(t.Version, 10), "connected"}
	for _, r := range n.Slots {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, " ")
}

// SlotGroup is one row of CLUSTER SLOTS: a range, its master, its slaves.
type SlotGroup struct {
	Range  Range
	Master *Node
	Slaves []*Node
}

// Slots returns the rows of CLUSTER SLOTS, by ascending range.
func (c *Cluster) Slots() ([]SlotGroup, error) {
	t, _ := c.Snapshot()
	if t == nil {
		return nil, ErrNotInitialized
	}
	var out []SlotGroup
	for _, m := range t.Nodes {
		if m.Role != Master {
			continue
		}
		var slaves []*Node
		for _, n := range t.Nodes {
			if n.Role == Slave && n.MasterID == m.ID {
				slaves = append(slaves, n)
			}
		}
		for _, r := range m.Slots {
			out = append(out, SlotGroup{r, m, slaves})
		}
	}
	slices.SortFunc(out, func(a, b SlotGroup) int { return a.Range.From - b.Range.From })
	return out, nil
}

// Redirect is an error whose text is the whole reply, without "ERR".
type Redirect string

func (r Redirect) Error() string { return string(r) }

// The routing replies.
const (
	ErrSlotNotServed = Redirect("CLUSTERDOWN Hash slot not served")
	ErrCrossSlot     = Redirect("CROSSSLOT Attempted to access keys that don't hash to the same slot")
)
