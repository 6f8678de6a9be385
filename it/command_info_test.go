package it

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/basaltdb/basalt/internal/cmdsample"
)

// TestCommandAgainstRedis compares, for every command Basalt shares with
// redis-server 7.0, what COMMAND says of it: COMMAND INFO (arity, flags,
// first/last/step, ACL categories, tips, key specifications, and the same
// for each subcommand), COMMAND DOCS, and COMMAND GETKEYS and
// GETKEYSANDFLAGS on sample calls written from the documentation. Cluster
// clients route by these. Every difference is listed with its reason in
// testdata/command_differences.txt ("command | item | reason", the fields
// separated by " | ", * matching any text); a listed difference that no
// longer occurs fails the test.
func TestCommandAgainstRedis(t *testing.T) {
	b, r := startBasalt(t), startRedis(t)
	bc, rc := cmdConn(t, b), cmdConn(t, r)
	listed := cmdParseDifferences(t, filepath.Join("testdata", "command_differences.txt"))

	basaltNames, redisNames := cmdList(t, bc, "COMMAND", "LIST"), cmdList(t, rc, "COMMAND", "LIST")
	var shared []string
	for name := range basaltNames {
		if redisNames[name] && !strings.Contains(name, "|") {
			shared = append(shared, name)
		}
	}
	sort.Strings(shared)
	if len(shared) < 150 {
		t.Fatalf("only %d commands shared with Redis", len(shared))
	}

	diffs := map[string][2]string{} // "command | item" -> redis, basalt
	note := func(cmd, item, redis, basalt string) {
		if redis != basalt {
			diffs[cmd+" | "+item] = [2]string{redis, basalt}
		}
	}
	samples := 0
	for _, name := range shared {
		ri, bi := cmdDo(t, rc, "COMMAND", "INFO", name), cmdDo(t, bc, "COMMAND", "INFO", name)
		rItems, bItems := cmdInfoItems(ri.elems[0]), cmdInfoItems(bi.elems[0])
		for item, rv := range rItems {
			if sub, _, ok := strings.Cut(item, "/"); ok && bItems["subcommand "+sub] == "" {
				continue // a subcommand Basalt lacks: one difference, below
			}
			bv, ok := bItems[item]
			if !ok {
				bv = "(absent)"
			}
			note(name, item, rv, bv)
		}
		for item, bv := range bItems {
			if sub, _, ok := strings.Cut(item, "/"); ok && rItems["subcommand "+sub] == "" {
				continue // a subcommand Redis lacks: one difference
			}
			if _, ok := rItems[item]; !ok {
				note(name, item, "(absent)", bv)
			}
		}

		rd, bd := cmdDo(t, rc, "COMMAND", "DOCS", name), cmdDo(t, bc, "COMMAND", "DOCS", name)
		rDocs, bDocs := cmdDocsItems(name, rd), cmdDocsItems(name, bd)
		for item, bv := range bDocs {
			if rv, ok := rDocs[item]; ok {
				note(name, item, rv, bv)
			}
		}

		// GETKEYS on sample calls of the command and its subcommands.
		docs := map[string]*kvdReply{name: cmdMapValue(rd, name)}
		if subs := cmdMapValue(docs[name], "subcommands"); subs != nil {
			for i := 0; i+1 < len(subs.elems); i += 2 {
				sub := subs.elems[i].str
				if bItems[sub+"/arity"] != "" {
					docs[sub] = subs.elems[i+1]
				}
			}
		}
		for full, d := range docs {
			prefix := strings.Split(full, "|")
			if len(prefix) == 1 && len(docs) > 1 {
				continue // a container: its subcommands have the keys
			}
			tree, _ := cmdTree(d).([]any)
			for _, sample := range cmdsample.Samples(cmdsample.Parse(tree)) {
				call := append(append([]string{}, prefix...), sample...)
				for _, sub := range []string{"GETKEYS", "GETKEYSANDFLAGS"} {
					args := append([]string{"COMMAND", sub}, call...)
					note(name, strings.ToLower(sub)+": "+strings.Join(call, " "), cmdDo(t, rc, args...).render(), cmdDo(t, bc, args...).render())
				}
				samples++
			}
		}
	}

	// Errors and help, word for word.
	for _, args := range [][]string{
		{"COMMAND", "HELP"}, {"COMMAND", "GETKEYS"}, {"COMMAND", "GETKEYS", "foo", "a"}, {"COMMAND", "GETKEYS", "get"},
		{"COMMAND", "GETKEYS", "get", "a", "b"}, {"COMMAND", "GETKEYS", "ping", "x"}, {"COMMAND", "GETKEYS", "object", "encoding"},
		{"COMMAND", "GETKEYS", "object", "foo", "k"}, {"COMMAND", "GETKEYS", "client", "list"}, {"COMMAND", "GETKEYS", "zunionstore", "d", "5", "a", "b"},
		{"COMMAND", "GETKEYS", "zunionstore", "d", "0", "a"}, {"COMMAND", "GETKEYS", "lmpop", "3", "a", "b", "left"}, {"COMMAND", "GETKEYS", "blmpop", "0", "2", "a", "b", "left"},
		{"COMMAND", "GETKEYS", "spublish", "ch", "m"}, {"COMMAND", "GETKEYSANDFLAGS", "set", "a", "b", "get"}, {"COMMAND", "LIST", "x"},
		{"COMMAND", "LIST", "FILTERBY"}, {"COMMAND", "LIST", "FILTERBY", "foo", "x"}, {"COMMAND", "LIST", "FILTERBY", "aclcat", "nosuch"},
		{"COMMAND", "DOCS", "nosuch"}, {"COMMAND", "INFO", "nosuch", "get"}, {"COMMAND", "COUNT", "x"}, {"COMMAND", "FOO"},
		{"COMMAND", "INFO", "config|get"}, {"COMMAND", "DOCS", "config|get"},
	} {
		note("command", strings.Join(args[1:], " "), cmdDo(t, rc, args...).render(), cmdDo(t, bc, args...).render())
	}

	// COMMAND LIST FILTERBY: what Redis lists, of what Basalt has.
	cats := cmdDo(t, rc, "ACL", "CAT")
	// Patterns meet subcommands as "container|sub": a container's
	// pattern lists it with its subcommands, and one with "|" them alone.
	filters := [][]string{{"PATTERN", "x*"}, {"PATTERN", "*|*"}, {"PATTERN", "Z?ADD"}, {"PATTERN", "client*"},
		{"PATTERN", "config|*"}, {"PATTERN", "*get*"}, {"PATTERN", "XINFO|S*"}, {"MODULE", "json"}}
	for _, cat := range cats.elems {
		filters = append(filters, []string{"ACLCAT", cat.str})
	}
	for _, f := range filters {
		args := append([]string{"COMMAND", "LIST", "FILTERBY"}, f...)
		want, got := cmdList(t, rc, args...), cmdList(t, bc, args...)
		for name := range want {
			if !basaltNames[name] {
				delete(want, name)
			}
		}
		for name := range got {
			if !redisNames[name] {
				delete(got, name)
			}
		}
		note("command", "list filterby "+strings.Join(f, " "), cmdSet(want), cmdSet(got))
	}

	var unlisted []string
	for key, d := range diffs {
		found := false
		for _, l := range listed {
			if kvdGlob(l.line, key) {
				l.seen, found = true, true
			}
		}
		if !found {
			unlisted = append(unlisted, key)
			t.Errorf("unlisted difference %s\n  redis:  %s\n  basalt: %s", key, d[0], d[1])
		}
	}
	for _, l := range listed {
		if !l.seen {
			t.Errorf("command_differences.txt:%d: listed difference no longer occurs (remove it): %s", l.lineN, l.line)
		}
	}
	if len(unlisted) > 0 {
		sort.Strings(unlisted)
		t.Logf("fix these, or list them in command_differences.txt with a reason:\n%s", strings.Join(unlisted, " | \n")+" | ")
	}
	t.Logf("compared %d commands (and their subcommands) with Redis, %d sample calls; %d differences, %d listed",
		len(shared), samples, len(diffs), len(listed))
}

// cmdDifference is a listed difference: "command | item" as a pattern.
type cmdDifference struct {
	line   string
	lineN  int
	reason string
	seen   bool
}

func cmdParseDifferences(t *testing.T, path string) []*cmdDifference {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []*cmdDifference
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, " | ", 3)
		if len(parts) != 3 || strings.TrimSpace(parts[2]) == "" {
			t.Fatalf("%s:%d: want \"command | item | reason\", got %q", path, i+1, line)
		}
		out = append(out, &cmdDifference{line: strings.TrimSpace(parts[0]) + " | " + strings.TrimSpace(parts[1]),
			lineN: i + 1, reason: strings.TrimSpace(parts[2])})
	}
	return out
}

// cmdConn connects to a server in RESP3.
func cmdConn(t *testing.T, p *proc) *kvdConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", p.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	c := &kvdConn{c: nc, r: bufio.NewReader(nc)}
	if r := cmdDo(t, c, "HELLO", "3"); r.kind != '%' {
		t.Fatalf("HELLO 3: %s", r.render())
	}
	return c
}

func cmdDo(t *testing.T, c *kvdConn, args ...string) *kvdReply {
	t.Helper()
	r, err := c.do(args)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return r
}

// cmdList returns the names an array reply lists.
func cmdList(t *testing.T, c *kvdConn, args ...string) map[string]bool {
	t.Helper()
	r := cmdDo(t, c, args...)
	if r.kind != '*' {
		t.Fatalf("%v: %s", args, r.render())
	}
	out := map[string]bool{}
	for _, e := range r.elems {
		out[e.str] = true
	}
	return out
}

func cmdSet(m map[string]bool) string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// cmdInfoItems splits a COMMAND INFO entry into items: "arity", "flags",
// "keys" (first last step), "acl", "tips", "key_specs", "subcommands"
// (their names) and the same for each subcommand as "<name>/item".
func cmdInfoItems(e *kvdReply) map[string]string {
	items := map[string]string{}
	if e.kind != '*' || len(e.elems) != 10 {
		items["reply"] = e.render()
		return items
	}
	prefix := ""
	if name := e.elems[0].str; strings.Contains(name, "|") {
		prefix = name + "/"
	}
	items[prefix+"arity"] = e.elems[1].render()
	items[prefix+"flags"] = e.elems[2].render()
	items[prefix+"keys"] = e.elems[3].render() + " " + e.elems[4].render() + " " + e.elems[5].render()
	items[prefix+"acl"] = e.elems[6].render()
	items[prefix+"tips"] = e.elems[7].render()
	items[prefix+"key_specs"] = e.elems[8].render()
	for _, sub := range e.elems[9].elems {
		items["subcommand "+sub.elems[0].str] = "present"
		for k, v := range cmdInfoItems(sub) {
			items[k] = v
		}
	}
	return items
}

// cmdDocsItems splits COMMAND DOCS of one command into "docs" (without
// subcommands) and "<subcommand>/docs".
func cmdDocsItems(name string, r *kvdReply) map[string]string {
	items := map[string]string{}
	d := cmdMapValue(r, name)
	if d == nil {
		items["docs"] = r.render()
		return items
	}
	top := &kvdReply{kind: d.kind}
	for i := 0; i+1 < len(d.elems); i += 2 {
		if d.elems[i].str == "subcommands" {
			for j := 0; j+1 < len(d.elems[i+1].elems); j += 2 {
				items[d.elems[i+1].elems[j].str+"/docs"] = d.elems[i+1].elems[j+1].render()
			}
			continue
		}
		top.elems = append(top.elems, d.elems[i], d.elems[i+1])
	}
	items["docs"] = top.render()
	return items
}

// cmdMapValue returns the value of key in a map reply, nil if absent.
func cmdMapValue(m *kvdReply, key string) *kvdReply {
	if m == nil || m.kind != '%' {
		return nil
	}
	for i := 0; i+1 < len(m.elems); i += 2 {
		if m.elems[i].str == key {
			return m.elems[i+1]
		}
	}
	return nil
}

// cmdTree turns a reply into the typed tree cmdsample reads.
func cmdTree(r *kvdReply) any {
	switch r.kind {
	case '$':
		return "$" + r.str
	case '+':
		return "+" + r.str
	case ':':
		n, _ := strconv.ParseFloat(r.str, 64)
		return n
	case '*', '~', '%':
		out := []any{string(r.kind)}
		for _, e := range r.elems {
			out = append(out, cmdTree(e))
		}
		return out
	}
	return nil
}
