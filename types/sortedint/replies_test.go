package sortedint

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// memKey is a sortedint key of memDB: its ids and its metadata's size.
type memKey struct {
	store *memStore
	size  uint64
}

// memDB runs the sortedint commands over keys in memory, as a handler
// would over the engine: parse, read the key, one package call, reply.
type memDB map[string]*memKey

func (db memDB) do(args [][]byte) string {
	name, key, rest := strings.ToUpper(string(args[0])), string(args[1]), args[2:]
	k := db[key]
	switch name {
	case "SICARD":
		if k == nil {
			return ":0"
		}
		return fmt.Sprintf(":%d", k.size)
	case "SIADD", "SIREM":
		ids, err := ParseIDs(rest)
		if err != nil {
			return errorReply(err)
		}
		if k == nil {
			if name == "SIREM" {
				return ":0"
			}
			k = &memKey{store: newMemStore()}
		}
		var ch Change
		if name == "SIADD" {
			ch, err = planAdd(k.store, k.size, ids)
		} else {
			ch, err = planRemove(k.store, k.size, ids)
		}
		if err != nil {
			return errorReply(err)
		}
		k.store.apply(ch, name == "SIADD")
		k.size = ch.Size
		if k.size == 0 {
			delete(db, key) // Basalt deletes a collection it empties
		} else {
			db[key] = k
		}
		return fmt.Sprintf(":%d", len(ch.IDs))
	case "SIEXISTS":
		ids, err := ParseIDs(rest)
		if err != nil {
			return errorReply(err)
		}
		found := make([]bool, len(ids))
		if k != nil {
			if found, err = exists(k.store, ids); err != nil {
				return errorReply(err)
			}
		}
		var out []string
		for _, f := range found {
			out = append(out, map[bool]string{true: ":1", false: ":0"}[f])
		}
		return "[" + strings.Join(out, " ") + "]"
	case "SIRANGE", "SIREVRANGE":
		q, err := ParseRange(rest, name == "SIREVRANGE")
		if err != nil {
			return errorReply(err)
		}
		return db.walk(k, q.Walk)
	case "SIRANGEBYVALUE", "SIREVRANGEBYVALUE":
		q, err := ParseValueRange(rest, name == "SIREVRANGEBYVALUE")
		if err != nil {
			return errorReply(err)
		}
		return db.walk(k, q.Walk)
	}
	return "-ERR unknown command"
}

func (db memDB) walk(k *memKey, walk func(Store, func(uint64) bool) error) string {
	var out []string
	if k != nil {
		err := walk(k.store, func(id uint64) bool {
			out = append(out, strconv.FormatUint(id, 10))
			return true
		})
		if err != nil {
			return errorReply(err)
		}
	}
	return "[" + strings.Join(out, " ") + "]"
}

func errorReply(err error) string {
	if text, ok := ReplyText(err); ok {
		return "-" + text
	}
	return "-ERR " + err.Error()
}

// splitArgs splits a command line into words and "double quoted" strings
// with Go escapes.
func splitArgs(s string) ([][]byte, error) {
	var out [][]byte
	for {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			return out, nil
		}
		if s[0] != '"' {
			end := strings.IndexByte(s, ' ')
			if end < 0 {
				end = len(s)
			}
			out, s = append(out, []byte(s[:end])), s[end:]
			continue
		}
		quoted, err := strconv.QuotedPrefix(s)
		if err != nil {
			return nil, err
		}
		word, _ := strconv.Unquote(quoted)
		out, s = append(out, []byte(word)), s[len(quoted):]
	}
}

// TestKvrocksReplies replays the replies the real Kvrocks gave
// (testdata/kvrocks_replies.txt) on the package's functions.
func TestKvrocksReplies(t *testing.T) {
	data, err := os.ReadFile("testdata/kvrocks_replies.txt")
	if err != nil {
		t.Fatal(err)
	}
	db := memDB{}
	cases := 0
	for n, line := range strings.Split(string(data), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		cmd, want, ok := strings.Cut(line, " => ")
		if !ok {
			t.Fatalf("line %d: no ' => ' in %q", n+1, line)
		}
		want, _, _ = strings.Cut(want, "  #")
		args, err := splitArgs(cmd)
		if err != nil || len(args) < 2 {
			t.Fatalf("line %d: %q: %v", n+1, cmd, err)
		}
		if got := db.do(args); got != want {
			t.Errorf("line %d: %s\n got %s\nwant %s", n+1, cmd, got, want)
		}
		cases++
	}
	t.Logf("%d commands replayed", cases)
}
