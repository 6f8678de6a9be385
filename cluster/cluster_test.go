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
	if err := c.SetNodes(nodes, 2, false); err != nil {
		t.Fatal(err)
	}
	if c.MyID() != idB {
		t.Fatalf("the node did not find itself by address: %s", c.MyID())
	}
	if err := c.SetNodes(nodes, 1, false); !errors.Is(err, ErrInvalidVersion) {
		t.Errorf("lower version: %v", err)
	}
	if err := c.SetNodes("garbage", 9, false); err == nil || c.Version() != 2 {
		t.Errorf("malformed SETNODES: %v, version %d", err, c.Version())
	}
	if err := c.SetSlots([]Range{{0, 10}}, idB, 4); !errors.Is(err, ErrInvalidVersion) {
		t.Errorf("SETSLOT skipping a version: %v", err)
	}
	if err := c.SetSlots([]Range{{0, 10}}, idB, 3); err != nil {
		t.Fatal(err)
	}
	if err := c.Route(5, true, false); err != nil {
		t.Errorf("slot 5 after SETSLOT to me: %v", err)
	}
	if err := c.Route(100, false, false); err == nil || err.Error() != "MOVED 100 127.0.0.1:7001" {
		t.Errorf("slot 100: %v", err)
	}

	again, err := Open(path, []string{"127.0.0.1"}, 7002)
	if err != nil {
		t.Fatal(err)
	}
	if again.Version() != 3 || again.MyID() != idB || again.Route(5, true, false) != nil {
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
