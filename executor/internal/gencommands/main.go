// Command gencommands writes executor/redis_commands.json: what Redis 7.0
// says of each of its commands through COMMAND INFO and COMMAND DOCS
// (flags, ACL categories, tips, key specifications, documentation and
// subcommands), which Basalt's COMMAND reports for the commands it shares
// with Redis. It starts the redis-server found in PATH on a free port with
// a temporary directory, asks it in RESP3, and stops it.
//
//	go generate ./executor   (or: go run ./executor/internal/gencommands -o executor/redis_commands.json)
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"
)

// node is a RESP3 reply.
type node struct {
	kind  byte
	str   string
	n     int64
	elems []*node
}

func read(r *bufio.Reader) (*node, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 {
		return nil, fmt.Errorf("short line %q", line)
	}
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '+', '-':
		return &node{kind: kind, str: body}, nil
	case ':':
		n, err := strconv.ParseInt(body, 10, 64)
		return &node{kind: kind, n: n}, err
	case '_':
		return &node{kind: kind}, nil
	case '$', '=':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return &node{kind: '$', str: string(buf[:n])}, nil
	case '*', '~', '%':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		if kind == '%' {
			n *= 2
		}
		out := &node{kind: kind}
		for i := 0; i < n; i++ {
			e, err := read(r)
			if err != nil {
				return nil, err
			}
			out.elems = append(out.elems, e)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown reply %q", line)
}

// tree renders a reply as the typed JSON of redis_commands.json: "$text"
// a bulk string, "+text" a simple string, a number an integer, and
// ["*" | "~" | "%", elements...] an array, a set or a map (keys and values
// alternating).
func tree(n *node) any {
	switch n.kind {
	case '$':
		return "$" + n.str
	case '+':
		return "+" + n.str
	case ':':
		return n.n
	case '*', '~', '%':
		out := []any{string(n.kind)}
		for _, e := range n.elems {
			out = append(out, tree(e))
		}
		return out
	}
	log.Fatalf("unexpected reply type %q in docs", n.kind)
	return nil
}

// keySpec mirrors commands.KeySpec.
type keySpec struct {
	Notes       string   `json:"notes,omitempty"`
	Flags       []string `json:"flags"`
	BeginSearch string   `json:"begin_search"`
	Index       int      `json:"index,omitempty"`
	Keyword     string   `json:"keyword,omitempty"`
	StartFrom   int      `json:"startfrom,omitempty"`
	FindKeys    string   `json:"find_keys"`
	LastKey     int      `json:"lastkey,omitempty"`
	KeyStep     int      `json:"keystep,omitempty"`
	Limit       int      `json:"limit,omitempty"`
	KeyNumIdx   int      `json:"keynumidx,omitempty"`
	FirstKey    int      `json:"firstkey,omitempty"`
}

// meta mirrors commands.redisMeta.
type meta struct {
	Name        string          `json:"name"`
	Arity       int             `json:"arity"`
	Flags       []string        `json:"flags"`
	First       int             `json:"first"`
	Last        int             `json:"last"`
	Step        int             `json:"step"`
	ACL         []string        `json:"acl"`
	Tips        []string        `json:"tips,omitempty"`
	KeySpecs    []keySpec       `json:"key_specs,omitempty"`
	Docs        json.RawMessage `json:"docs"`
	Subcommands []*meta         `json:"subcommands,omitempty"`
}

func strs(n *node) []string {
	out := []string{}
	for _, e := range n.elems {
		out = append(out, e.str)
	}
	return out
}

// mapOf turns a map reply into key -> value.
func mapOf(n *node) map[string]*node {
	if n.kind != '%' {
		log.Fatalf("want a map, got %q", n.kind)
	}
	out := map[string]*node{}
	for i := 0; i+1 < len(n.elems); i += 2 {
		out[n.elems[i].str] = n.elems[i+1]
	}
	return out
}

func parseKeySpec(n *node) keySpec {
	m := mapOf(n)
	ks := keySpec{Flags: strs(m["flags"])}
	if notes := m["notes"]; notes != nil {
		ks.Notes = notes.str
	}
	bs, fk := mapOf(m["begin_search"]), mapOf(m["find_keys"])
	ks.BeginSearch, ks.FindKeys = bs["type"].str, fk["type"].str
	bspec, fspec := mapOf(bs["spec"]), mapOf(fk["spec"])
	switch ks.BeginSearch {
	case "index":
		ks.Index = int(bspec["index"].n)
	case "keyword":
		ks.Keyword, ks.StartFrom = bspec["keyword"].str, int(bspec["startfrom"].n)
	}
	switch ks.FindKeys {
	case "range":
		ks.LastKey, ks.KeyStep, ks.Limit = int(fspec["lastkey"].n), int(fspec["keystep"].n), int(fspec["limit"].n)
	case "keynum":
		ks.KeyNumIdx, ks.FirstKey, ks.KeyStep = int(fspec["keynumidx"].n), int(fspec["firstkey"].n), int(fspec["keystep"].n)
	}
	return ks
}

// parseInfo reads one COMMAND INFO entry; docs maps names to their
// COMMAND DOCS entries (subcommands included).
func parseInfo(n *node, docs map[string]*node) *meta {
	e := n.elems
	m := &meta{Name: e[0].str, Arity: int(e[1].n), Flags: strs(e[2]), First: int(e[3].n), Last: int(e[4].n), Step: int(e[5].n),
		ACL: strs(e[6]), Tips: strs(e[7])}
	for _, ks := range e[8].elems {
		m.KeySpecs = append(m.KeySpecs, parseKeySpec(ks))
	}
	doc := docs[m.Name]
	if doc == nil {
		log.Fatalf("no COMMAND DOCS for %s", m.Name)
	}
	// The subcommands' docs go with each subcommand.
	trimmed := &node{kind: '%'}
	for i := 0; i+1 < len(doc.elems); i += 2 {
		if doc.elems[i].str == "subcommands" {
			for j := 0; j+1 < len(doc.elems[i+1].elems); j += 2 {
				docs[doc.elems[i+1].elems[j].str] = doc.elems[i+1].elems[j+1]
			}
			continue
		}
		trimmed.elems = append(trimmed.elems, doc.elems[i], doc.elems[i+1])
	}
	raw, err := json.Marshal(tree(trimmed))
	if err != nil {
		log.Fatal(err)
	}
	m.Docs = raw
	for _, sub := range e[9].elems {
		m.Subcommands = append(m.Subcommands, parseInfo(sub, docs))
	}
	// Redis lists subcommands in the order of a hash table seeded at
	// random on each start: by name, the file stays the same.
	sort.Slice(m.Subcommands, func(i, j int) bool { return m.Subcommands[i].Name < m.Subcommands[j].Name })
	return m
}

func do(c net.Conn, r *bufio.Reader, args ...string) *node {
	var sb strings.Builder
	fmt.Fprintf(&sb, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&sb, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(sb.String())); err != nil {
		log.Fatal(err)
	}
	n, err := read(r)
	if err != nil {
		log.Fatal(err)
	}
	if n.kind == '-' {
		log.Fatalf("%v: %s", args, n.str)
	}
	return n
}

func main() {
	out := flag.String("o", "redis_commands.json", "file to write")
	flag.Parse()
	log.SetFlags(0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir, err := os.MkdirTemp("", "gencommands-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	srv := exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
	if err := srv.Start(); err != nil {
		log.Fatal(err)
	}
	defer func() {
		srv.Process.Kill()
		srv.Wait()
	}()
	var c net.Conn
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err = net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	do(c, r, "HELLO", "3")
	version := mapOf(do(c, r, "HELLO", "3"))["version"].str
	if !strings.HasPrefix(version, "7.0.") {
		log.Fatal(errors.New("want redis-server 7.0, found " + version))
	}
	docs := mapOf(do(c, r, "COMMAND", "DOCS"))
	var all []*meta
	for _, n := range do(c, r, "COMMAND").elems {
		all = append(all, parseInfo(n, docs))
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	data, err := json.MarshalIndent(struct {
		Redis    string  `json:"redis"`
		Commands []*meta `json:"commands"`
	}{version, all}, "", " ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %d commands of redis %s to %s", len(all), version, *out)
}
