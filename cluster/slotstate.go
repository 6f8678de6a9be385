//lint:file-ignore ST1005 error texts are Kvrocks's replies, capitals included

package cluster

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Migration states as CLUSTER INFO reports them (migrating_state,
// import_state).
const (
	StateNone    = "none"
	StateStart   = "start"
	StateSuccess = "success"
	StateFail    = "fail"
	// StateError is the failed state of an import.
	StateError = "error"
)

// Errors of CLUSTERX MIGRATE and CLUSTER IMPORT; their texts follow "ERR ".
var (
	ErrMigrating       = errors.New("There is already a migrating job")
	ErrNotOwner        = errors.New("Can't migrate slot which doesn't belong to me")
	ErrMigrated        = errors.New("Can't migrate slot which has been migrated")
	ErrMigrateToSelf   = errors.New("Can't migrate slot to myself")
	ErrNotMasterMyself = errors.New("Slave can't migrate slot")
	ErrResetMigrating  = errors.New("Can't reset cluster while migrating slot")
	ErrResetImporting  = errors.New("Can't reset cluster while importing slot")
	ErrFlushMigrating  = errors.New("Can't flush slots while migrating slot")
	ErrFlushImporting  = errors.New("Can't flush slots while importing slot")
	ErrImportOwnSlot   = errors.New("Can't import slot which belongs to me")
	ErrSlaveImport     = errors.New("Slave can't import slot")
)

// ErrWriteForbidden is the reply to a write on a slot in the last phase of
// its migration.
const ErrWriteForbidden = Redirect("TRYAGAIN Can't write to slot being migrated which is in write forbidden phase")

// slotState is what this node knows about slots moving in or out, beyond
// the topology: guarded by Cluster.mu.
type slotState struct {
	// The latest migration from this node (CLUSTERX MIGRATE).
	migrating      Range
	migratingDst   *Node
	migratingState string // "" before the first migration
	forbidden      bool   // writes to migrating are refused
	// stop is closed to end the running job early (StopMigration).
	stop chan struct{}
	// migrated maps slots this node moved away, until the topology says
	// so, to their new owner.
	migrated map[int]*Node

	// The latest import into this node (CLUSTER IMPORT).
	importing      Range
	importingSrc   string
	importingLink  int64  // the connection importing
	importingState string // "" before the first import
	imported       map[int]bool
}

// Access describes the connection a keyed command comes from.
type Access struct {
	Write bool
	// ReadOnly: the client sent READONLY (a slave serves its reads).
	ReadOnly bool
	// Importing: the connection imports slots into this node (it sent
	// CLUSTER IMPORT ... 0), or sent ASKING before this command.
	Importing bool
}

// Route decides whether this node serves a command on slot: nil, or the
// error reply to send (MOVED, TRYAGAIN, CLUSTERDOWN, READONLY).
func (c *Cluster) Route(slot int, a Access) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	t, self, st := c.topo, c.self, &c.slots
	if t == nil {
		return ErrSlotNotServed
	}
	owner := t.Owner(slot)
	switch {
	case owner != nil && owner == self:
		if dst := st.migrated[slot]; dst != nil {
			return moved(slot, dst)
		}
		if a.Write && st.forbidden && st.migrating.contains(slot) {
			return ErrWriteForbidden
		}
		return nil
	case st.imported[slot]:
		return nil
	case a.Importing && st.importingState == StateStart && st.importing.contains(slot):
		return nil
	case owner == nil:
		return ErrSlotNotServed
	case self != nil && self.Role == Slave && self.MasterID == owner.ID && !a.Write && a.ReadOnly:
		// A slave serves its master's reads to a client that sent
		// READONLY; writes, as every other command, go to the master.
		return nil
	}
	return moved(slot, owner)
}

func moved(slot int, to *Node) error {
	return Redirect("MOVED " + strconv.Itoa(slot) + " " + to.Addr())
}

func (r Range) contains(slot int) bool { return r.From <= slot && slot <= r.To }

// Job is a migration this node runs, as started by StartMigration.
type Job struct {
	Range Range
	Dst   *Node
	// Stopped is closed when the job must end early (StopMigration).
	Stopped <-chan struct{}
}

// StartMigration checks that this master owns every slot of r, none of
// them migrated away yet, and that dstID is another master, then records
// the job as started. The checks come in Kvrocks's order, so that each
// refusal is the error Kvrocks gives: a destination unknown (or no
// topology at all) first, a running job last.
func (c *Cluster) StartMigration(r Range, dstID string) (Job, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, self, st := c.topo, c.self, &c.slots
	var dst *Node
	if t != nil {
		dst = t.Node(dstID)
	}
	if dst == nil {
		return Job{}, ErrUnknownDestination
	}
	for s := r.From; s <= r.To; s++ {
		if st.migrated[s] != nil {
			return Job{}, ErrMigrated
		}
	}
	for s := r.From; s <= r.To; s++ {
		if t.Owner(s) != self {
			return Job{}, ErrNotOwner
		}
	}
	switch {
	case self == nil || self.Role != Master:
		// A slave owns no slot: this is for a node missing from its
		// topology.
		return Job{}, ErrNotMasterMyself
	case dst.Role != Master:
		return Job{}, ErrMigrateToSlave
	case dst == self:
		return Job{}, ErrMigrateToSelf
	case st.migratingState == StateStart:
		return Job{}, ErrMigrating
	}
	st.migrating, st.migratingDst, st.migratingState, st.forbidden = r, dst, StateStart, false
	st.stop = make(chan struct{})
	return Job{Range: r, Dst: dst, Stopped: st.stop}, nil
}

// StopMigration makes the running job, if any, end as failed at its next
// step, as Kvrocks stops it before FLUSHDB and FLUSHALL: what it would
// still copy is being deleted.
func (c *Cluster) StopMigration() {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := &c.slots
	if st.migratingState != StateStart {
		return
	}
	select {
	case <-st.stop:
	default:
		close(st.stop)
	}
}

// ForbidWrites makes writes to the job's slots fail with TRYAGAIN, and
// returns once no write that started before is still running.
func (c *Cluster) ForbidWrites() {
	c.writes.Lock() // waits for the writes in flight
	defer c.writes.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slots.forbidden = true
}

// BeginWrite and EndWrite bracket every write command in cluster mode, so
// that ForbidWrites can wait for those in flight.
func (c *Cluster) BeginWrite() { c.writes.RLock() }

// EndWrite ends what BeginWrite began.
func (c *Cluster) EndWrite() { c.writes.RUnlock() }

// FinishMigration records the end of the running job: on success its
// slots are answered with MOVED to the destination until the topology
// catches up. Writes are allowed again either way.
func (c *Cluster) FinishMigration(ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := &c.slots
	st.forbidden = false
	if !ok {
		st.migratingState = StateFail
		return
	}
	st.migratingState = StateSuccess
	if st.migrated == nil {
		st.migrated = map[int]*Node{}
	}
	for s := st.migrating.From; s <= st.migrating.To; s++ {
		st.migrated[s] = st.migratingDst
	}
}

// MigrationState returns the state of the latest migration (StateNone
// when there was none).
func (c *Cluster) MigrationState() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.slots.migratingState == "" {
		return StateNone
	}
	return c.slots.migratingState
}

// Import records a CLUSTER IMPORT received on connection link:
// StateStart, StateSuccess or StateError, after Kvrocks's checks: only a
// master imports, never its own slots, one range at a time, and the end
// of an import names the range it started with.
func (c *Cluster) Import(r Range, state string, link int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.self == nil || c.self.Role != Master {
		return ErrSlaveImport
	}
	for s := r.From; s <= r.To; s++ {
		if c.topo.Owner(s) == c.self {
			return ErrImportOwnSlot
		}
	}
	st := &c.slots
	current := "-1" // as Kvrocks names the range before the first import
	if st.importingState != "" {
		current = st.importing.String()
	}
	switch {
	case state == StateStart && st.importingState == StateStart:
		return fmt.Errorf("only one importing job is allowed, current importing: %s", current)
	case state != StateStart && (st.importingState == "" || st.importing != r):
		return fmt.Errorf("mismatch slot, importing slot(s): %s, but got: %s", current, r)
	case state == StateStart:
		src := ""
		if owner := c.topo.Owner(r.From); owner != nil {
			src = owner.ID
		}
		st.importing, st.importingSrc, st.importingLink = r, src, link
	case state == StateSuccess:
		if st.imported == nil {
			st.imported = map[int]bool{}
		}
		for s := r.From; s <= r.To; s++ {
			st.imported[s] = true
		}
	}
	st.importingState = state
	return nil
}

// ImportBroken is called when importing connection link closes: an import
// it was running failed. It reports whether the import's data must be
// deleted, and which range.
func (c *Cluster) ImportBroken(link int64) (Range, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := &c.slots
	if st.importingState != StateStart || st.importingLink != link || (c.self != nil && c.self.Role == Slave) {
		return Range{}, false
	}
	st.importingState = StateError
	return st.importing, true
}

// Busy returns why the topology cannot be reset now (ErrResetMigrating,
// ErrResetImporting), or nil.
func (c *Cluster) Busy() error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.slots.busy()
}

// FlushBusy returns why CLUSTERX FLUSHSLOTS cannot run now
// (ErrFlushMigrating, ErrFlushImporting), or nil: as in Kvrocks 2.16, not
// while slots move.
func (c *Cluster) FlushBusy() error {
	switch c.Busy() {
	case ErrResetMigrating:
		return ErrFlushMigrating
	case ErrResetImporting:
		return ErrFlushImporting
	}
	return nil
}

func (st *slotState) busy() error {
	switch {
	case st.migratingState == StateStart:
		return ErrResetMigrating
	case st.importingState == StateStart:
		return ErrResetImporting
	}
	return nil
}

// settle is called with a new topology installed: the slots this node
// migrated away and no longer owns are returned for deletion, and both
// slot sets are cleared (the topology now says where the slots are).
func (c *Cluster) settle() []Range {
	st := &c.slots
	var gone []Range
	for s := 0; s < SlotCount; s++ {
		if st.migrated[s] != nil && (c.self == nil || c.topo.Owner(s) != c.self) {
			gone = appendSlot(gone, s)
		}
	}
	st.migrated, st.imported = nil, nil
	return gone
}

// appendSlot adds slot to ranges built in ascending order.
func appendSlot(ranges []Range, slot int) []Range {
	if n := len(ranges); n > 0 && ranges[n-1].To == slot-1 {
		ranges[n-1].To = slot
		return ranges
	}
	return append(ranges, Range{slot, slot})
}

// infoLines returns CLUSTER INFO's migration and import lines, with the
// blank after the colon that Kvrocks writes.
func (st *slotState) infoLines() []string {
	var lines []string
	if st.migratingState != "" {
		// Kvrocks 2.10 names the range migrating_slot(s); older Kvrocks,
		// which the older controllers read, migrating_slot: both, so that
		// either controller follows the job to its end.
		lines = append(lines,
			"migrating_slot(s): "+st.migrating.String(),
			"migrating_slot: "+st.migrating.String(),
			"destination_node: "+st.migratingDst.ID,
			"migrating_state: "+st.migratingState)
	}
	if st.importingState != "" {
		lines = append(lines,
			"importing_slot(s): "+st.importing.String(),
			"import_state: "+st.importingState)
	}
	return lines
}

// nodesSuffix returns what the myself line of CLUSTER NODES shows of a
// running migration or import.
func (st *slotState) nodesSuffix() string {
	var b strings.Builder
	if st.migratingState == StateStart {
		b.WriteString(" [" + st.migrating.String() + "->-" + st.migratingDst.ID + "]")
	}
	if st.importingState == StateStart {
		b.WriteString(" [" + st.importing.String() + "-<-" + st.importingSrc + "]")
	}
	return b.String()
}
