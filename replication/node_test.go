package replication

import (
	"net"
	"testing"
)

func TestParseSlaveOf(t *testing.T) {
	for _, tc := range []struct {
		in   string
		host string
		port int
		ok   bool
	}{
		{"127.0.0.1 6666", "127.0.0.1", 6666, true},
		{"  host.example   1 ", "host.example", 1, true},
		{"127.0.0.1", "", 0, false},
		{"127.0.0.1 0", "", 0, false},
		{"127.0.0.1 65536", "", 0, false},
		{"127.0.0.1 x", "", 0, false},
		{"a b c", "", 0, false},
	} {
		host, port, err := ParseSlaveOf(tc.in)
		if (err == nil) != tc.ok || host != tc.host || port != tc.port {
			t.Errorf("ParseSlaveOf(%q) = %q %d %v", tc.in, host, port, err)
		}
	}
}

func TestIsSelf(t *testing.T) {
	IsSelf := func(host string, port int, bind []string, myPort int) bool {
		ips, err := net.LookupIP(host)
		return err == nil && isSelf(ips, port, bind, myPort)
	}
	bind := []string{"127.0.0.1"}
	if !IsSelf("127.0.0.1", 6666, bind, 6666) || !IsSelf("localhost", 6666, bind, 6666) {
		t.Error("the node's own address is not itself")
	}
	if IsSelf("127.0.0.1", 6667, bind, 6666) || IsSelf("127.0.0.2", 6666, bind, 6666) {
		t.Error("another address is itself")
	}
	if !IsSelf("127.0.0.5", 6666, []string{"0.0.0.0"}, 6666) {
		t.Error("a wildcard bind does not cover 127.0.0.5")
	}
	if IsSelf("192.0.2.1", 6666, []string{"0.0.0.0"}, 6666) {
		t.Error("a wildcard bind covers a documentation address")
	}
}
