package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	idA = strings.Repeat("a", 40)
	idB = strings.Repeat("b", 40)
	idC = strings.Repeat("c", 40)
	idD = strings.Repeat("d", 40)
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
	if _, err := c.StartMigration(Range{5, 9}, idB); !errors.Is(err, ErrUnknownDestination) {
		t.Errorf("migrate before a topology: %v", err)
	}
	if _, err := c.SetNodes(nodes, 1, false); err != nil {
		t.Fatal(err)
	}
	for dst, want := range map[string]error{idA: ErrMigrateToSelf, idC: ErrMigrateToSlave, idD: ErrUnknownDestination} {
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
	// While a job runs, the other checks come first.
	for dst, want := range map[string]error{idA: ErrMigrateToSelf, idC: ErrMigrateToSlave, idD: ErrUnknownDestination} {
		if _, err := c.StartMigration(Range{20, 30}, dst); !errors.Is(err, want) {
			t.Errorf("second job to %s: %v, want %v", dst[:1], err, want)
		}
	}
	if _, err := c.StartMigration(Range{8000, 8200}, idB); !errors.Is(err, ErrNotOwner) {
		t.Errorf("second job of slots not mine: %v", err)
	}
	select {
	case <-job.Stopped:
		t.Fatal("a new job is stopped")
	default:
	}
	c.StopMigration()
	c.StopMigration() // twice is once
	select {
	case <-job.Stopped:
	default:
		t.Error("StopMigration left the job running")
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
	// Both names of the range: Kvrocks 2.10's and the older one.
	if want := "migrating_slot(s): 5-9\r\nmigrating_slot: 5-9\r\ndestination_node: " + idB + "\r\nmigrating_state: success\r\n"; !strings.HasSuffix(info, want) {
		t.Errorf("CLUSTER INFO lacks %q:\n%s", want, info)
	}
	// Migrated slots are refused before any other check but the
	// destination's.
	for _, tc := range []struct {
		r    Range
		dst  string
		want error
	}{
		{Range{9, 9}, idB, ErrMigrated},
		{Range{0, 5}, idA, ErrMigrated},
		{Range{9, 8200}, idC, ErrMigrated},
		{Range{9, 9}, idD, ErrUnknownDestination},
		{Range{10, 10}, idA, ErrMigrateToSelf},
	} {
		if _, err := c.StartMigration(tc.r, tc.dst); !errors.Is(err, tc.want) {
			t.Errorf("migrate %s to %s after the job: %v, want %v", tc.r, tc.dst[:1], err, tc.want)
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

// TestKvrocksSlotForms checks the slot forms Kvrocks takes in a master's
// line of SETNODES, its field splitting, and that adjacent ranges are
// merged.
func TestKvrocksSlotForms(t *testing.T) {
	for text, want := range map[string]string{
		idA + " h 1 master - 5-":                 "5",
		idA + " h 1 master - -5":                 "5",
		idA + " h 1 master - 1--3":               "1-3",
		idA + " h 1 master - +5-+7":              "5-7",
		idA + " h 1 master - 0-100 101-200 201":  "0-201",
		idA + "  h   1 master  -  9 8 ":          "8-9",
		idA + " h +1 master - 0":                 "0",
		"\n\n" + idA + " h 1 master - 1\n\n\n\n": "1",
	} {
		topo, err := ParseTopology(text, 1)
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		var got []string
		for _, r := range topo.Nodes[0].Slots {
			got = append(got, r.String())
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%q: slots %v, want %s", text, got, want)
		}
	}
	for text, want := range map[string]string{
		idA + " h 1 master - 1-2-3":                           "Slot is out of range",
		idA + " h 1 master - -":                               "Slot is out of range",
		idA + " h 1 master - 1\r\n" + idB + " h 2 master - 2": "Slot is out of range",
		idA + "\th 1 master - 1":                              "Invalid cluster node id",
		idA + " h 1 master - 1\n  \n":                         "Invalid cluster nodes info",
		idA + " h 65536 master - 1":                           "Invalid cluster node port",
	} {
		if _, err := ParseTopology(text, 1); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", text, err, want)
		}
	}
	for arg, want := range map[string]string{
		"1-3  4":                 "[1-3 4]",
		" 5 6 ":                  "[5 6]",
		"9-9":                    "[9]",
		"10--11":                 "[10-11]",
		"+13":                    "[13]",
		"7\t8":                   "Invalid slot id: encounter non-integer characters",
		"-1":                     "Invalid slot range: `-1`. The character '-' can't appear in the first or last position.",
		"14-13":                  "Invalid slot range: `14-13`. The slot range `int1-int2` needs to satisfy the condition (int1 <= int2).",
		"1-2-3":                  "Invalid slot range: `1-2-3`. The slot range should be of the form `int1-int2`.",
		"16384":                  "Invalid slot id: out of numeric range",
		"":                       "No slots to parse.",
		"x":                      "Invalid slot id: not started as an integer",
		"9999999999999999999999": "Invalid slot id: Numerical result out of range",
	} {
		got, err := ParseSlotRanges(arg)
		s := fmt.Sprint(got)
		if err != nil {
			s = err.Error()
		}
		if s != want {
			t.Errorf("ParseSlotRanges(%q) = %s, want %s", arg, s, want)
		}
	}
}

// TestNodesFile checks nodes.conf byte for byte as Kvrocks writes it (the
// expected text is what Kvrocks 2.10 wrote for the same commands), and
// CONFIG SET persist-cluster-nodes-enabled.
func TestNodesFile(t *testing.T) {
	const (
		b91 = "07c37dfeb235213a872192d90877d0cd55635b91"
		b92 = "07c37dfeb235213a872192d90877d0cd55635b92"
		b93 = "07c37dfeb235213a872192d90877d0cd55635b93"
	)
	path := filepath.Join(t.TempDir(), "nodes.conf")
	c, err := Open(path, []string{"127.0.0.1"}, 31001)
	if err != nil {
		t.Fatal(err)
	}
	read := func() string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if err := c.SetNodeID(b91); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "version -1\nid "+b91+"\n" {
		t.Errorf("after SETNODEID:\n%q", got)
	}
	text := b91 + " 127.0.0.1 31001 master - 0-100 101-200 300 301-400\n" +
		b92 + " 127.0.0.1 31002 master - 201-299 8001-16383\n" +
		b93 + " 127.0.0.1 31003 slave " + b91
	if _, err := c.SetNodes(text, 2, false); err != nil {
		t.Fatal(err)
	}
	want := "version 2\nid " + b91 + "\n" +
		"node " + b93 + " 127.0.0.1 31003 slave " + b91 + " \n" +
		"node " + b92 + " 127.0.0.1 31002 master -  201-299 8001-16383\n" +
		"node " + b91 + " 127.0.0.1 31001 master -  0-200 300-400\n"
	if got := read(); got != want {
		t.Errorf("after SETNODES:\n%q\nwant\n%q", got, want)
	}
	if _, err := c.SetSlots([]Range{{150, 150}, {250, 260}}, b92, 3); err != nil {
		t.Fatal(err)
	}
	want = "version 3\nid " + b91 + "\n" +
		"node " + b93 + " 127.0.0.1 31003 slave " + b91 + " \n" +
		"node " + b92 + " 127.0.0.1 31002 master -  150 201-299 8001-16383\n" +
		"node " + b91 + " 127.0.0.1 31001 master -  0-149 151-200 300-400\n"
	if got := read(); got != want {
		t.Errorf("after SETSLOT:\n%q\nwant\n%q", got, want)
	}
	if _, err := c.SetNodes(b91+" 127.0.0.1 31001 master -\n"+b92+" 127.0.0.1 31002 master - 0-16383", 4, false); err != nil {
		t.Fatal(err)
	}
	want = "version 4\nid " + b91 + "\n" +
		"node " + b92 + " 127.0.0.1 31002 master -  0-16383\n" +
		"node " + b91 + " 127.0.0.1 31001 master - \n"
	if got := read(); got != want {
		t.Errorf("a master without slots:\n%q\nwant\n%q", got, want)
	}
	// The file reloads as the same topology. As in Kvrocks, its nodes are
	// inserted in the file's order, so that they are listed in another
	// (Kvrocks 2.10 lists b91 first after a restart, too).
	again, err := Open(path, []string{"127.0.0.1"}, 31001)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := again.NodesText()
	if !regexp.MustCompile("^" + b91 + " 127.0.0.1:31001@41001 myself,master - \\d+ \\d+ 4 connected\n" +
		b92 + " 127.0.0.1:31002@41002 master - \\d+ \\d+ 4 connected 0-16383\n$").MatchString(after) {
		t.Errorf("CLUSTER NODES after reload:\n%s", after)
	}

	// Off removes the file; nothing is written; on writes it at once.
	if err := c.SetPersist(false, path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("nodes.conf after persistence off: %v", err)
	}
	if _, err := c.SetNodes(b91+" 127.0.0.1 31001 master - 0-16383", 5, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("nodes.conf written with persistence off: %v", err)
	}
	if err := c.SetPersist(true, path); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "version 5\nid "+b91+"\nnode "+b91+" 127.0.0.1 31001 master -  0-16383\n" {
		t.Errorf("after persistence on:\n%q", got)
	}
}

// TestImportChecks checks Kvrocks's refusals of CLUSTER IMPORT.
func TestImportChecks(t *testing.T) {
	c, err := Open("", []string{"127.0.0.1"}, 7002)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Import(Range{5, 9}, StateStart, 1); !errors.Is(err, ErrSlaveImport) {
		t.Errorf("import before a topology: %v", err)
	}
	if _, err := c.SetNodes(idA+" 127.0.0.1 7001 master - 0-8191\n"+idB+" 127.0.0.1 7002 master - 8192-16383", 1, false); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r     Range
		state string
		want  string
	}{
		{Range{8000, 8200}, StateStart, "Can't import slot which belongs to me"},
		{Range{5, 9}, StateSuccess, "mismatch slot, importing slot(s): -1, but got: 5-9"},
		{Range{5, 9}, StateError, "mismatch slot, importing slot(s): -1, but got: 5-9"},
		{Range{5, 9}, StateStart, ""},
		{Range{10, 10}, StateStart, "only one importing job is allowed, current importing: 5-9"},
		{Range{5, 5}, StateSuccess, "mismatch slot, importing slot(s): 5-9, but got: 5"},
		{Range{5, 9}, StateSuccess, ""},
		{Range{5, 9}, StateSuccess, ""},
		{Range{5, 9}, StateError, ""},
		{Range{5, 9}, StateStart, ""},
	} {
		err := c.Import(tc.r, tc.state, 1)
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("IMPORT %s %s: %v, want %q", tc.r, tc.state, err, tc.want)
		}
	}
	if _, err := c.SetNodes(idA+" 127.0.0.1 7001 master - 0-16383\n"+idB+" 127.0.0.1 7002 slave "+idA, 2, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Import(Range{5, 9}, StateError, 1); !errors.Is(err, ErrSlaveImport) {
		t.Errorf("import on a slave: %v", err)
	}
}

// TestResetAndReplicas checks what Kvrocks shows of slaves and forgets on
// CLUSTER RESET: a slave's CLUSTER REPLICAS line has no myself flag, and
// a reset node has neither a topology nor an id.
func TestResetAndReplicas(t *testing.T) {
	c, err := Open("", []string{"127.0.0.1"}, 7003)
	if err != nil {
		t.Fatal(err)
	}
	nodes := idA + " 127.0.0.1 7001 master - 0-16383\n" + idC + " 127.0.0.1 7003 slave " + idA
	if _, err := c.SetNodes(nodes, 1, false); err != nil {
		t.Fatal(err)
	}
	if text, _ := c.NodesText(); !strings.Contains(text, idC+" 127.0.0.1:7003@17003 myself,slave "+idA+" ") {
		t.Errorf("CLUSTER NODES on a slave:\n%s", text)
	}
	if text, _ := c.Replicas(idA); !strings.HasPrefix(text, idC+" 127.0.0.1:7003@17003 slave "+idA+" ") {
		t.Errorf("CLUSTER REPLICAS on a slave:\n%s", text)
	}
	if err := c.Reset(); err != nil {
		t.Fatal(err)
	}
	if c.MyID() != "" || c.Version() != -1 {
		t.Errorf("after RESET: id %q, version %d", c.MyID(), c.Version())
	}
	// The next topology finds the node by its address.
	if _, err := c.SetNodes(nodes, 1, false); err != nil || c.MyID() != idC {
		t.Errorf("SETNODES after RESET: id %q, %v", c.MyID(), err)
	}
}

// TestFailFlag: a slave's role may carry Kvrocks 2.16's fail flag, which
// its nodes.conf line keeps; a master's may not, nor another flag.
func TestFailFlag(t *testing.T) {
	m, s := strings.Repeat("a", 40), strings.Repeat("b", 40)
	topo, err := ParseTopology(m+" 127.0.0.1 7000 master - 0-16383\n"+s+" 127.0.0.1 7001 SLAVE,Fail "+m, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := topo.Node(s)
	if !n.Fail || n.Flags() != "slave,fail" || topo.Node(m).Flags() != "master" {
		t.Fatalf("fail %v, flags %q", n.Fail, n.Flags())
	}
	again, err := ParseTopology(topo.String(), 1)
	if err != nil || !again.Node(s).Fail {
		t.Errorf("nodes.conf text %q: %v", topo.String(), err)
	}
	for _, role := range []string{"master,fail", "slave,pfail", "slave,fail,fail", "slave,"} {
		text := m + " 127.0.0.1 7000 master - 0-16383\n" + s + " 127.0.0.1 7001 " + role + " " + m
		if role == "master,fail" {
			text = m + " 127.0.0.1 7000 " + role + " - 0-16383"
		}
		if _, err := ParseTopology(text, 1); err != errNodeRole {
			t.Errorf("%s: %v", role, err)
		}
	}
}
