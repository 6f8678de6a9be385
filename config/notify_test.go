package config

import "testing"

// TestNotifyEvents: notify-keyspace-events parses every class letter and
// renders in Redis 7.0's order, A standing for all the classes (n too is
// then left out, as Redis leaves it out).
func TestNotifyEvents(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{"", ""},
		{"KEA", "AKE"},
		{"AKE", "AKE"},
		{"Kg", "gK"},
		{"E$lshzxet", "$lshzxetE"},
		{"g$lshzxetd", "A"},
		{"KEAmn", "AKEm"},
		{"n", "n"},
		{"tK", "tK"},
		{"ddKK", "dK"},
		{"mE", "Em"},
	} {
		var n NotifyEvents
		if err := n.set(tc.in); err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if got := n.String(); got != tc.out {
			t.Errorf("%q renders %q, want %q", tc.in, got, tc.out)
		}
	}
	var n NotifyEvents
	n.set("KEA")
	for _, bad := range []string{"Q", "a", "k", "KEA!", "\x00"} {
		if err := n.set(bad); err != errNotifyClass {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if n.String() != "AKE" {
		t.Errorf("a refused value changed the setting: %q", n.String())
	}
}
