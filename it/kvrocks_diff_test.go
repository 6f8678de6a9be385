package it

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The Kvrocks differential test sends the commands of
// testdata/kvrocks_diff.txt to Basalt and to a real Apache Kvrocks, both
// started with the same arguments, and compares the replies. Every
// difference must be listed, with its reason, in
// testdata/kvrocks_differences.txt; a listed difference that no longer
// occurs fails the test too, so that the list stays true.
//
// testdata/kvrocks_diff.txt, line by line:
//
//	# comment
//	== name                  a new section: both servers are (re)started
//	args: --key value ...    command-line arguments of the section's servers
//	conf: key value          a line of a config file given with -c (any number)
//	ignore-values: k1 k2     config keys whose values necessarily differ
//	                         (before the first section: in every section)
//	!sleep 200ms             pause (for what Kvrocks does in the background)
//	[@conn] [mode:] CMD args one command, on connection conn (default "main")
//
// Arguments are separated by spaces; "double quoted" arguments take Go
// escapes (\n, \x00, \"). $PORT and $DIR are the port and data directory
// of the server the command goes to.
//
// Modes say what of the reply is compared:
//
//	exact    the whole reply, type and bytes (the default)
//	shape    the types and lengths only (random ids)
//	kind     the types only
//	info     INFO text: every section, field name and value type
//	         (int, float, string; key=value lists field by field)
//	config   CONFIG GET pairs: every key and its value, values of the
//	         ignore-values keys only by presence
//	nodes    CLUSTER NODES: lines as a set, ping/pong times left out
//	sorted   an array whose order is not defined, as a sorted list
//	cmdinfo  COMMAND INFO: per command arity, key positions and flags
//
// Each difference has a key "section | command line | item" (item empty
// when the whole reply is compared); the differences file lists keys and
// reasons as "section | command line | item | reason", where * in the
// first three matches any text. An entry that matches no difference, once
// every section it names has run, fails the test.

// kvdStart starts Kvrocks (startKvrocks) or Basalt with the same
// arguments: Kvrocks's usual --bind, --port, --dir, --daemonize no and
// --log-dir stdout, -c with a config file when conf has lines, and extra.
func kvdStart(t *testing.T, kvrocks bool, conf []string, extra []string) *proc {
	t.Helper()
	var args []string
	if len(conf) > 0 {
		path := filepath.Join(t.TempDir(), "server.conf")
		if err := os.WriteFile(path, []byte(strings.Join(conf, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-c", path)
	}
	args = append(args, extra...)
	if kvrocks {
		return startKvrocks(t, args...)
	}
	port, dir := freePort(t), t.TempDir()
	p := launch(t, basaltBin, append([]string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir,
		"--daemonize", "no", "--log-dir", "stdout"}, args...), port)
	p.Dir = dir
	return p
}

// kvdSection is one server configuration and its cases.
type kvdSection struct {
	name         string
	args         []string
	conf         []string
	ignoreValues map[string]bool
	steps        []kvdStep
}

// kvdStep is a command or a pause.
type kvdStep struct {
	line  string // as written, the case's identity
	lineN int
	conn  string
	mode  string
	args  []string
	sleep time.Duration
}

var kvdModes = map[string]bool{"exact": true, "shape": true, "kind": true, "info": true, "config": true, "nodes": true, "sorted": true, "cmdinfo": true}

func kvdParseCases(t *testing.T, path string) []*kvdSection {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sections []*kvdSection
	var cur *kvdSection
	globalIgnore := map[string]bool{}
	for i, raw := range strings.Split(string(data), "\n") {
		n := i + 1
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "==") {
			cur = &kvdSection{name: strings.TrimSpace(line[2:]), ignoreValues: map[string]bool{}}
			for k := range globalIgnore {
				cur.ignoreValues[k] = true
			}
			sections = append(sections, cur)
			continue
		}
		if cur == nil {
			if !strings.HasPrefix(line, "ignore-values:") {
				t.Fatalf("%s:%d: only ignore-values may come before the first section", path, n)
			}
			for _, k := range strings.Fields(line[len("ignore-values:"):]) {
				globalIgnore[k] = true
			}
			continue
		}
		fail := func(err error) {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		switch {
		case strings.HasPrefix(line, "args:"):
			args, err := kvdSplit(line[len("args:"):])
			if err != nil {
				fail(err)
			}
			cur.args = append(cur.args, args...)
		case strings.HasPrefix(line, "conf:"):
			cur.conf = append(cur.conf, strings.TrimSpace(line[len("conf:"):]))
		case strings.HasPrefix(line, "ignore-values:"):
			for _, k := range strings.Fields(line[len("ignore-values:"):]) {
				cur.ignoreValues[k] = true
			}
		case strings.HasPrefix(line, "!sleep "):
			d, err := time.ParseDuration(strings.TrimSpace(line[len("!sleep "):]))
			if err != nil {
				fail(err)
			}
			cur.steps = append(cur.steps, kvdStep{line: line, lineN: n, sleep: d})
		default:
			st := kvdStep{line: line, lineN: n, conn: "main", mode: "exact"}
			rest := line
			if strings.HasPrefix(rest, "@") {
				sp := strings.IndexByte(rest, ' ')
				if sp < 0 {
					fail(fmt.Errorf("a connection without a command"))
				}
				st.conn, rest = rest[1:sp], strings.TrimSpace(rest[sp:])
			}
			if sp := strings.IndexByte(rest, ' '); sp > 0 && strings.HasSuffix(rest[:sp], ":") {
				st.mode, rest = rest[:sp-1], strings.TrimSpace(rest[sp:])
				if !kvdModes[st.mode] {
					fail(fmt.Errorf("unknown mode %q", st.mode))
				}
			}
			if st.args, err = kvdSplit(rest); err != nil {
				fail(err)
			}
			if len(st.args) == 0 {
				fail(fmt.Errorf("no command"))
			}
			cur.steps = append(cur.steps, st)
		}
	}
	return sections
}

// kvdSplit splits a command line into arguments: space-separated words and
// double-quoted strings with Go escapes.
func kvdSplit(s string) ([]string, error) {
	var out []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out, nil
		}
		if s[0] != '"' {
			end := strings.IndexAny(s, " \t")
			if end < 0 {
				end = len(s)
			}
			out = append(out, s[:end])
			s = s[end:]
			continue
		}
		end := 1
		for ; end < len(s); end++ {
			if s[end] == '\\' {
				end++
				continue
			}
			if s[end] == '"' {
				break
			}
		}
		if end >= len(s) {
			return nil, fmt.Errorf("unterminated quote in %q", s)
		}
		word, err := strconv.Unquote(s[:end+1])
		if err != nil {
			return nil, fmt.Errorf("%q: %v", s[:end+1], err)
		}
		out = append(out, word)
		s = s[end+1:]
	}
}

// kvdDifference is one listed difference: patterns for the section, the
// command line and the item, where * matches any text.
type kvdDifference struct {
	section, line, item string
	reason              string
	lineN               int
	seen                bool // it matched a difference
}

func (d *kvdDifference) matches(section, line, item string) bool {
	return kvdGlob(d.section, section) && kvdGlob(d.line, line) && kvdGlob(d.item, item)
}

// kvdGlob matches s against pattern, in which only * is special.
func kvdGlob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

func kvdParseDifferences(t *testing.T, path string) []*kvdDifference {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []*kvdDifference
	seen := map[string]int{}
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "|", 4)
		if len(parts) != 4 || strings.TrimSpace(parts[3]) == "" {
			t.Fatalf("%s:%d: want \"section | command | item | reason\", got %q", path, i+1, line)
		}
		d := &kvdDifference{section: strings.TrimSpace(parts[0]), line: strings.TrimSpace(parts[1]),
			item: strings.TrimSpace(parts[2]), reason: strings.TrimSpace(parts[3]), lineN: i + 1}
		key := kvdKey(d.section, d.line, d.item)
		if prev, ok := seen[key]; ok {
			t.Fatalf("%s:%d: %q is listed already at line %d", path, i+1, key, prev)
		}
		seen[key] = i + 1
		out = append(out, d)
	}
	return out
}

func kvdKey(section, line, item string) string {
	return section + " | " + line + " | " + item
}

// kvdCounts totals what the test compared, for the log.
type kvdCounts struct {
	commands    int
	configKeys  map[string]bool
	infoFields  map[string]bool
	differences int
}

func TestKvrocksDiff(t *testing.T) {
	kvrocksBin(t) // skips without a Kvrocks
	sections := kvdParseCases(t, filepath.Join("testdata", "kvrocks_diff.txt"))
	listed := kvdParseDifferences(t, filepath.Join("testdata", "kvrocks_differences.txt"))
	names := map[string]bool{}
	for _, s := range sections {
		if names[s.name] {
			t.Fatalf("section %q appears twice", s.name)
		}
		names[s.name] = true
	}
	total := &kvdCounts{configKeys: map[string]bool{}, infoFields: map[string]bool{}}
	ran := map[string]bool{}
	for _, s := range sections {
		executed := false
		passed := t.Run(s.name, func(t *testing.T) {
			executed = true
			kvdRunSection(t, s, listed, total)
		})
		ran[s.name] = executed && passed
	}
	// A listed difference that matched nothing is stale, once every
	// section it names has run and passed.
	for _, d := range listed {
		complete, named := true, false
		for _, s := range sections {
			if kvdGlob(d.section, s.name) {
				named = true
				complete = complete && ran[s.name]
			}
		}
		switch {
		case !named:
			t.Errorf("kvrocks_differences.txt:%d: no section matches %q", d.lineN, d.section)
		case complete && !d.seen:
			t.Errorf("kvrocks_differences.txt:%d: listed difference no longer occurs (remove it): %s", d.lineN, kvdKey(d.section, d.line, d.item))
		}
	}
	t.Logf("compared %d commands, %d CONFIG keys, %d INFO fields; %d differences seen, %d listed",
		total.commands, len(total.configKeys), len(total.infoFields), total.differences, len(listed))
}

// kvdServer is one side of the comparison and its connections.
type kvdServer struct {
	name  string
	p     *proc
	conns map[string]*kvdConn
}

func (s *kvdServer) conn(t *testing.T, name string) *kvdConn {
	t.Helper()
	if c := s.conns[name]; c != nil {
		return c
	}
	nc, err := net.DialTimeout("tcp", s.p.Addr(), 5*time.Second)
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	t.Cleanup(func() { nc.Close() })
	c := &kvdConn{c: nc, r: bufio.NewReader(nc)}
	s.conns[name] = c
	return c
}

func kvdRunSection(t *testing.T, s *kvdSection, listed []*kvdDifference, total *kvdCounts) {
	k := &kvdServer{name: "kvrocks", p: kvdStart(t, true, s.conf, s.args), conns: map[string]*kvdConn{}}
	b := &kvdServer{name: "basalt", p: kvdStart(t, false, s.conf, s.args), conns: map[string]*kvdConn{}}
	var unlisted []string
	for _, st := range s.steps {
		if st.sleep > 0 {
			time.Sleep(st.sleep)
			continue
		}
		total.commands++
		kr := kvdDo(t, k, st)
		br := kvdDo(t, b, st)
		for _, d := range kvdCompare(st, s, kr, br, total) {
			key := kvdKey(s.name, st.line, d.item)
			total.differences++
			found := false
			for _, l := range listed {
				if l.matches(s.name, st.line, d.item) {
					l.seen, found = true, true
				}
			}
			if !found {
				t.Errorf("kvrocks_diff.txt:%d: unlisted difference\n    %s\n  kvrocks: %s\n  basalt:  %s", st.lineN, key, d.kvrocks, d.basalt)
				unlisted = append(unlisted, key+" | ")
			}
		}
	}
	if len(unlisted) > 0 {
		t.Logf("fix these, or list them in kvrocks_differences.txt with a reason:\n%s", strings.Join(unlisted, "\n"))
	}
}

func kvdDo(t *testing.T, s *kvdServer, st kvdStep) *kvdReply {
	t.Helper()
	args := make([]string, len(st.args))
	for i, a := range st.args {
		a = strings.ReplaceAll(a, "$PORT", strconv.Itoa(s.p.Port))
		args[i] = strings.ReplaceAll(a, "$DIR", s.p.Dir)
	}
	c := s.conn(t, st.conn)
	r, err := c.do(args)
	if err != nil {
		t.Fatalf("kvrocks_diff.txt:%d: %s: %s: %v", st.lineN, s.name, st.line, err)
	}
	return r
}

// kvdConn is a raw RESP connection: replies are kept exactly as sent.
type kvdConn struct {
	c net.Conn
	r *bufio.Reader
}

func (c *kvdConn) do(args []string) (*kvdReply, error) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&sb, "$%d\r\n%s\r\n", len(a), a)
	}
	c.c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.c.Write([]byte(sb.String())); err != nil {
		return nil, err
	}
	return readKvdReply(c.r)
}

// kvdReply is a parsed RESP2/RESP3 reply.
type kvdReply struct {
	kind  byte // the RESP type byte; '_' for RESP3 null and RESP2 nil
	str   string
	elems []*kvdReply
}

func readKvdReply(r *bufio.Reader) (*kvdReply, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return nil, fmt.Errorf("bad reply line %q", line)
	}
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '+', '-', ':', ',', '#', '(':
		return &kvdReply{kind: kind, str: body}, nil
	case '_':
		return &kvdReply{kind: '_'}, nil
	case '$', '=', '!':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, fmt.Errorf("bad length %q", line)
		}
		if n < 0 {
			return &kvdReply{kind: '_'}, nil
		}
		buf := make([]byte, n+2)
		if _, err := ioReadFull(r, buf); err != nil {
			return nil, err
		}
		return &kvdReply{kind: kind, str: string(buf[:n])}, nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, fmt.Errorf("bad length %q", line)
		}
		if n < 0 {
			return &kvdReply{kind: '_'}, nil
		}
		if kind == '%' || kind == '|' {
			n *= 2
		}
		out := &kvdReply{kind: kind}
		for i := 0; i < n; i++ {
			e, err := readKvdReply(r)
			if err != nil {
				return nil, err
			}
			out.elems = append(out.elems, e)
		}
		if kind == '|' { // attributes precede the reply they describe
			return readKvdReply(r)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown reply type %q", line)
}

func ioReadFull(r *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// text returns the bulk-like content of a reply (bulk, verbatim, simple).
func (r *kvdReply) text() (string, bool) {
	switch r.kind {
	case '$', '+':
		return r.str, true
	case '=':
		if len(r.str) >= 4 && r.str[3] == ':' {
			return r.str[4:], true
		}
		return r.str, true
	}
	return "", false
}

// render writes the reply in full, its type included.
func (r *kvdReply) render() string {
	switch r.kind {
	case '+':
		return "+" + r.str
	case '-':
		return "(error) " + r.str
	case ':':
		return "(integer) " + r.str
	case ',':
		return "(double) " + r.str
	case '#':
		return "(bool) " + r.str
	case '(':
		return "(bignum) " + r.str
	case '_':
		return "(nil)"
	case '$':
		return strconv.Quote(r.str)
	case '=':
		return "(verbatim) " + strconv.Quote(r.str)
	}
	open, closing := map[byte]string{'*': "[", '~': "set{", '>': "push[", '%': "map{"}[r.kind], map[byte]string{'*': "]", '~': "}", '>': "]", '%': "}"}[r.kind]
	parts := make([]string, len(r.elems))
	for i, e := range r.elems {
		parts[i] = e.render()
	}
	if r.kind == '%' {
		var pairs []string
		for i := 0; i+1 < len(parts); i += 2 {
			pairs = append(pairs, parts[i]+": "+parts[i+1])
		}
		parts = pairs
	}
	return open + strings.Join(parts, ", ") + closing
}

// shape renders types, and lengths when withLen, not contents.
func (r *kvdReply) shape(withLen bool) string {
	switch r.kind {
	case '$', '=', '+':
		if !withLen {
			return fmt.Sprintf("%c", r.kind)
		}
		return fmt.Sprintf("%c(len %d)", r.kind, len(r.str))
	case '-':
		return "(error) " + r.str
	case ':', ',', '#', '(':
		return fmt.Sprintf("%c", r.kind)
	case '_':
		return "(nil)"
	}
	parts := make([]string, len(r.elems))
	for i, e := range r.elems {
		parts[i] = e.shape(withLen)
	}
	return fmt.Sprintf("%c[%s]", r.kind, strings.Join(parts, ", "))
}

// kvdDiff is one observed difference.
type kvdDiff struct{ item, kvrocks, basalt string }

func kvdCompare(st kvdStep, s *kvdSection, k, b *kvdReply, total *kvdCounts) []kvdDiff {
	whole := func(kt, bt string) []kvdDiff {
		if kt == bt {
			return nil
		}
		return []kvdDiff{{"", kt, bt}}
	}
	// An error where a structured reply was expected is compared whole.
	if st.mode != "exact" && st.mode != "shape" && st.mode != "kind" && (k.kind == '-' || b.kind == '-') {
		return whole(k.render(), b.render())
	}
	switch st.mode {
	case "shape":
		return whole(k.shape(true), b.shape(true))
	case "kind":
		return whole(k.shape(false), b.shape(false))
	case "info":
		kf, bf := kvdInfoItems(k), kvdInfoItems(b)
		for name := range kf {
			total.infoFields[name] = true
		}
		return kvdCompareItems(kf, bf)
	case "config":
		kf, bf := kvdConfigItems(k, s.ignoreValues), kvdConfigItems(b, s.ignoreValues)
		for name := range kf {
			total.configKeys[name] = true
		}
		return kvdCompareItems(kf, bf)
	case "nodes":
		return whole(kvdNodes(k), kvdNodes(b))
	case "sorted":
		return whole(kvdSorted(k), kvdSorted(b))
	case "cmdinfo":
		var names []string
		if len(st.args) > 2 {
			names = st.args[2:]
		}
		kf, bf := kvdCommandItems(k, names), kvdCommandItems(b, names)
		// A command one side lacks is one difference, not one per field.
		for name, kv := range kf {
			if bv, ok := bf[name]; ok && !strings.Contains(name, "/") && kv != bv {
				for _, m := range []map[string]string{kf, bf} {
					for item := range m {
						if strings.HasPrefix(item, name+"/") {
							delete(m, item)
						}
					}
				}
			}
		}
		return kvdCompareItems(kf, bf)
	}
	return whole(k.render(), b.render())
}

// kvdCompareItems compares two item -> value maps item by item.
func kvdCompareItems(k, b map[string]string) []kvdDiff {
	var out []kvdDiff
	for name, kv := range k {
		bv, ok := b[name]
		switch {
		case !ok:
			out = append(out, kvdDiff{name, kv, "(absent)"})
		case kv != bv:
			out = append(out, kvdDiff{name, kv, bv})
		}
	}
	for name, bv := range b {
		if _, ok := k[name]; !ok {
			out = append(out, kvdDiff{name, "(absent)", bv})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].item < out[j].item })
	return out
}

var (
	kvdIntRe   = regexp.MustCompile(`^[-+]?[0-9]+$`)
	kvdFloatRe = regexp.MustCompile(`^[-+]?[0-9]*\.[0-9]+([eE][-+]?[0-9]+)?$`)
)

// kvdValueType classifies an INFO value: int, float or string; a
// comma-separated key=value list field by field; a trailing % kept.
func kvdValueType(v string) string {
	if strings.Contains(v, "=") {
		parts := strings.Split(v, ",")
		for i, p := range parts {
			k, val, ok := strings.Cut(p, "=")
			if ok {
				parts[i] = k + "=" + kvdValueType(val)
			} else {
				parts[i] = kvdValueType(p)
			}
		}
		return strings.Join(parts, ",")
	}
	lead := ""
	if strings.HasPrefix(v, " ") {
		lead, v = "space+", strings.TrimLeft(v, " ")
	}
	if strings.HasSuffix(v, "%") {
		return lead + kvdValueType(v[:len(v)-1]) + "%"
	}
	switch {
	case kvdIntRe.MatchString(v):
		return lead + "int"
	case kvdFloatRe.MatchString(v):
		return lead + "float"
	}
	return lead + "string"
}

// kvdInfoItems turns INFO text into items: "section/field" -> value type,
// "sections" -> their order, and "section/# comment" for comment lines.
func kvdInfoItems(r *kvdReply) map[string]string {
	text, ok := r.text()
	if !ok {
		return map[string]string{"reply": r.render()}
	}
	items := map[string]string{}
	var order []string
	section := ""
	for _, line := range strings.Split(text, "\r\n") {
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "# ") {
			title := line[2:]
			if !strings.ContainsAny(title, " :") {
				section = strings.ToLower(title)
				order = append(order, title)
				continue
			}
			name, _, _ := strings.Cut(title, ":")
			items[section+"/# "+name] = "comment"
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			items[section+"/"+line] = "(not key:value)"
			continue
		}
		items[section+"/"+key] = kvdValueType(val)
	}
	items["sections"] = strings.Join(order, ",")
	return items
}

// kvdConfigItems turns a CONFIG GET reply (flat array or map) into
// key -> value.
func kvdConfigItems(r *kvdReply, ignore map[string]bool) map[string]string {
	items := map[string]string{}
	if r.kind != '*' && r.kind != '%' {
		items["reply"] = r.render()
		return items
	}
	for i := 0; i+1 < len(r.elems); i += 2 {
		k, _ := r.elems[i].text()
		v := r.elems[i+1].render()
		if ignore[k] {
			v = "(differs by nature)"
		}
		items[k] = v
	}
	if len(r.elems)%2 != 0 {
		items["reply"] = "odd length"
	}
	return items
}

// kvdNodes renders CLUSTER NODES lines sorted, without the ping-sent and
// pong-received times.
func kvdNodes(r *kvdReply) string {
	text, ok := r.text()
	if !ok {
		return r.render()
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		f := strings.Split(l, " ")
		if len(f) > 5 {
			f[4], f[5] = "<ping>", "<pong>"
		}
		lines = append(lines, strings.Join(f, " "))
	}
	sort.Strings(lines)
	end := ""
	if strings.HasSuffix(text, "\n") {
		end = " (ends with newline)"
	}
	return strings.Join(lines, " / ") + end
}

// kvdSorted renders an array reply with its elements sorted.
func kvdSorted(r *kvdReply) string {
	if r.kind != '*' && r.kind != '~' {
		return r.render()
	}
	parts := make([]string, len(r.elems))
	for i, e := range r.elems {
		parts[i] = e.render()
	}
	sort.Strings(parts)
	return fmt.Sprintf("%c(sorted)[%s]", r.kind, strings.Join(parts, ", "))
}

// kvdCommandItems turns COMMAND INFO into "<name>/arity", "<name>/keys"
// (first, last, step) and "<name>/flags" items, and "<name as asked>" ->
// known or (nil). Fields after the sixth (Redis 7 additions) are left out.
func kvdCommandItems(r *kvdReply, asked []string) map[string]string {
	items := map[string]string{}
	if r.kind != '*' {
		items["reply"] = r.render()
		return items
	}
	for i, e := range r.elems {
		id := fmt.Sprintf("#%d", i)
		if i < len(asked) {
			id = strings.ToLower(asked[i])
		}
		if e.kind == '_' {
			items[id] = "(nil)"
			continue
		}
		if e.kind != '*' || len(e.elems) < 6 {
			items[id] = e.render()
			continue
		}
		items[id] = "known"
		name, _ := e.elems[0].text()
		items[name+"/arity"] = e.elems[1].render()
		items[name+"/keys"] = e.elems[3].render() + " " + e.elems[4].render() + " " + e.elems[5].render()
		var flags []string
		for _, f := range e.elems[2].elems {
			s, _ := f.text()
			flags = append(flags, s)
		}
		sort.Strings(flags)
		items[name+"/flags"] = strings.Join(flags, " ")
	}
	return items
}
