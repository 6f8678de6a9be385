package cluster

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

var (
	idA = strings.Repeat("a", 40)
	idB = strings.Repeat("b", 40)
	idC = strings.Repeat("c", 40)
)

func TestParseTopology(t *testing.T) {
	good := idA + " 127.0.0.1 7001 master - 0-8000 8001\n" + idB + " 127.0.0.1 7002 master - 8002-16383\n\n" + idC + " 127.0.0.1 7003 slave " + idA + "\n"
	topo, err := ParseTopology(good, 3)
	if err != nil {
		t.Fatal(err)
	}
	if topo.Owner(8001).ID != idA || topo.Owner(16383).ID != idB || topo.Node(idC).MasterID != idA {
		t.Fatalf("owners wrong: %v %v", topo.Owner(8001).ID, topo.Owner(16383).ID)
	}
	for name, text := range map[string]string{
		"overlap":         idA + " h 1 master - 0-100\n" + idB + " h 2 master - 100-200",
		"short id":        "abc h 1 master - 0-100",
		"5-5":             idA + " h 1 master - 5-5",
		"out of range":    idA + " h 1 master - 16384",
		"missing newline": idA + " h 1 master - 0-100 " + idB + " h 2 master - 200",
		"bad port":        idA + " h x master - 1",
		"bad role":        idA + " h 1 leader - 1",
		"slave fields":    idA + " h 1 master - 1\n" + idB + " h 2 slave " + idA + " 5",
		"slave of nobody": idB + " h 2 slave " + idC,
		"duplicate id":    idA + " h 1 master - 1\n" + idA + " h 2 master - 2",
		"empty":           " \n\n",
	} {
		if _, err := ParseTopology(text, 1); !errors.Is(err, ErrBadTopology) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ParseTopology(idA+" h 1 master - 0-100 "+idB, 1); err == nil || !strings.Contains(err.Error(), "Missing newline between node entries") {
		t.Errorf("a node id among the slots: %v", err)
	}
}

func TestVersionsAndPersistence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodes.conf")
	c, err := Open(path, []string{"127.0.0.1"}, 7002)
	if err != nil {
		t.Fatal(err)
	}
	if c.Version() != -1 {
		t.Fatalf("version before SETNODES = %d", c.Version())
	}
	nodes := idA + " 127.0.0.1 7001 master - 0-8191\n" + idB + " 127.0.0.1 7002 master - 8192-16383"
	if _, err := c.SetNodes(nodes, 2, false); err != nil {
		t.Fatal(err)
	}
	if c.MyID() != idB {
		t.Fatalf("the node did not find itself by address: %s", c.MyID())
	}
	if _, err := c.SetNodes(nodes, 1, false); !errors.Is(err, ErrInvalidVersion) {
		t.Errorf("lower version: %v", err)
	}
	if _, err := c.SetNodes("garbage", 9, false); err == nil || c.Version() != 2 {
		t.Errorf("malformed SETNODES: %v, version %d", err, c.Version())
	}
	if _, err := c.SetSlots([]Range{{0, 10}}, idB, 4); !errors.Is(err, ErrInvalidVersion) {
		t.Errorf("SETSLOT skipping a version: %v", err)
	}
	if _, err := c.SetSlots([]Range{{0, 10}}, idB, 3); err != nil {
		t.Fatal(err)
	}
	if err := c.Route(5, Access{Write: true}); err != nil {
		t.Errorf("slot 5 after SETSLOT to me: %v", err)
	}
	if err := c.Route(100, Access{}); err == nil || err.Error() != "MOVED 100 127.0.0.1:7001" {
		t.Errorf("slot 100: %v", err)
	}

	again, err := Open(path, []string{"127.0.0.1"}, 7002)
	if err != nil {
		t.Fatal(err)
	}
	if again.Version() != 3 || again.MyID() != idB || again.Route(5, Access{Write: true}) != nil {
		t.Fatalf("after reload: version %d id %s", again.Version(), again.MyID())
	}
	text, _ := again.NodesText()
	if !strings.Contains(text, idB+" 127.0.0.1:7002@17002 myself,master - ") || !strings.Contains(text, " 3 connected 0-10 8192-16383\n") {
		t.Errorf("CLUSTER NODES:\n%s", text)
	}
	if strings.Contains(text, "  ") || strings.Contains(text, " \n") {
		t.Errorf("CLUSTER NODES has double or trailing spaces:\n%q", text)
	}
}

func TestMigrationStates(t *testing.T) {
	c, err := Open("", []string{"127.0.0.1"}, 7001)
	if err != nil {
		t.Fatal(err)
	}
	nodes := idA + " 127.0.0.1 7001 master - 0-8191\n" + idB + " 127.0.0.1 7002 master - 8192-16383\n" + idC + " 127.0.0.1 7003 slave " + idB
	if _, err := c.SetNodes(nodes, 1, false); err != nil {
		t.Fatal(err)
	}
	for dst, want := range map[string]error{idA: ErrMigrateToSelf, idC: ErrMigrateToSlave, strings.Repeat("d", 40): ErrUnknownDestination} {
		if _, err := c.StartMigration(Range{5, 9}, dst); !errors.Is(err, want) {
			t.Errorf("migrate to %s: %v, want %v", dst[:1], err, want)
		}
	}
	if _, err := c.StartMigration(Range{8000, 8200}, idB); !errors.Is(err, ErrNotOwner) {
		t.Errorf("migrate slots not mine: %v", err)
	}
	if c.MigrationState() != StateNone {
		t.Fatalf("state before any job: %s", c.MigrationState())
	}
	job, err := c.StartMigration(Range{5, 9}, idB)
	if err != nil || job.Dst.ID != idB {
		t.Fatalf("start: %v", err)
	}
	if _, err := c.StartMigration(Range{20, 30}, idB); !errors.Is(err, ErrMigrating) {
		t.Errorf("second job: %v", err)
	}
	if text, _ := c.NodesText(); !strings.Contains(text, " 0-8191 [5-9->-"+idB+"]\n") {
		t.Errorf("CLUSTER NODES while migrating:\n%s", text)
	}
	if c.Reset() == nil {
		t.Errorf("RESET accepted while migrating")
	}
	c.ForbidWrites()
	if err := c.Route(7, Access{Write: true}); err != ErrWriteForbidden {
		t.Errorf("write in forbidden phase: %v", err)
	}
	if err := c.Route(7, Access{}); err != nil || c.Route(10, Access{Write: true}) != nil {
		t.Errorf("read in forbidden phase, or write outside the range: %v", err)
	}
	c.FinishMigration(true)
	if err := c.Route(7, Access{}); err == nil || err.Error() != "MOVED 7 127.0.0.1:7002" {
		t.Errorf("migrated slot: %v", err)
	}
	info, _ := c.Info()
	for _, line := range []string{"migrating_slot(s): 5-9\r\n", "destination_node: " + idB + "\r\n", "migrating_state: success\r\n"} {
		if !strings.Contains(info, line) {
			t.Errorf("CLUSTER INFO lacks %q:\n%s", line, info)
		}
	}
	moved := idA + " 127.0.0.1 7001 master - 0-4 10-8191\n" + idB + " 127.0.0.1 7002 master - 5-9 8192-16383"
	gone, err := c.SetNodes(moved, 2, false)
	if err != nil || len(gone) != 1 || gone[0] != (Range{5, 9}) {
		t.Fatalf("SETNODES after migration: ranges to delete %v, %v", gone, err)
	}
	if err := c.Route(7, Access{}); err == nil || err.Error() != "MOVED 7 127.0.0.1:7002" {
		t.Errorf("slot after SETNODES: %v", err)
	}
}

func TestImportStates(t *testing.T) {
	c, err := Open("", []string{"127.0.0.1"}, 7002)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetNodes(idA+" 127.0.0.1 7001 master - 0-8191\n"+idB+" 127.0.0.1 7002 master - 8192-16383", 1, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Import(Range{5, 9}, StateStart, 1); err != nil {
		t.Fatal(err)
	}
	if c.Route(7, Access{Write: true}) == nil {
		t.Errorf("an ordinary client may write an importing slot")
	}
	if err := c.Route(7, Access{Write: true, Importing: true}); err != nil {
		t.Errorf("the importing link may not write: %v", err)
	}
	if text, _ := c.NodesText(); !strings.Contains(text, " 8192-16383 [5-9-<-"+idA+"]\n") {
		t.Errorf("CLUSTER NODES while importing:\n%s", text)
	}
	if _, drop := c.ImportBroken(2); drop {
		t.Errorf("another connection's close broke the import")
	}
	if r, drop := c.ImportBroken(1); !drop || r != (Range{5, 9}) {
		t.Errorf("broken import: %v %v", r, drop)
	}
	if info, _ := c.Info(); !strings.Contains(info, "import_state: error\r\n") {
		t.Errorf("CLUSTER INFO after a broken import:\n%s", info)
	}
	if err := c.Import(Range{5, 9}, StateStart, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.Import(Range{5, 9}, StateSuccess, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.Route(7, Access{Write: true}); err != nil {
		t.Errorf("imported slot before the topology says so: %v", err)
	}
	if _, drop := c.ImportBroken(1); drop {
		t.Errorf("a finished import was dropped")
	}
}
