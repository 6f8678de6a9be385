package commands

import (
	"strings"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

// TestJSONCorruptStored: every JSON command on a stored value that does
// not decode (corruptJSON) answers an error reply, logs nothing and
// leaves the value as it was; JSON.MGET fails as a whole.
func TestJSONCorruptStored(t *testing.T) {
	h := newFuzzHarness(t)
	h.seed(t, false)
	calls := [][]string{
		{"json.get", "K"}, {"json.get", "K", "$..*"}, {"json.set", "K", "$", "1"}, {"json.set", "K", "$.a", "1"},
		{"json.del", "K"}, {"json.forget", "K", "$.a"}, {"json.type", "K"}, {"json.merge", "K", "$", "{}"},
		{"json.clear", "K"}, {"json.toggle", "K"}, {"json.numincrby", "K", "$", "1"}, {"json.nummultby", "K", "$", "2"},
		{"json.strappend", "K", `"x"`}, {"json.strlen", "K"}, {"json.arrappend", "K", "$", "1"},
		{"json.arrindex", "K", "$", "1"}, {"json.arrinsert", "K", "$", "0", "1"}, {"json.arrlen", "K"},
		{"json.arrpop", "K"}, {"json.arrtrim", "K", "$", "0", "1"}, {"json.objkeys", "K"}, {"json.objlen", "K"},
		{"json.resp", "K"}, {"json.debug", "memory", "K"}, {"json.info", "K"},
		{"json.mget", "j", "K", "$"}, {"json.mset", "j", "$", "1", "K", "$", "1"},
	}
	const want = "-ERR Corruption: the stored JSON value cannot be decoded\r\n"
	for key := range corruptJSON {
		for _, call := range calls {
			a := make([]string, len(call))
			for i, w := range call {
				a[i] = strings.ReplaceAll(w, "K", key)
			}
			h.env.Dispatch(h.setup.Ctx, args(a...))
			if got := string(h.setup.W.Bytes()); got != want {
				t.Errorf("%q: %q, want %q", a, got, want)
			}
			h.setup.W.Reset()
		}
		h.env.Dispatch(h.setup.Ctx, args("type", key))
		if got := string(h.setup.W.Bytes()); got != "+"+metadata.TypeJSON.String()+"\r\n" {
			t.Errorf("TYPE %s after the commands: %q", key, got)
		}
		h.setup.W.Reset()
	}
	if logged := h.logs.take(); len(logged) > 0 {
		t.Errorf("logged:\n%s", strings.Join(logged, "\n"))
	}
}
