package it

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
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
//	pending: reason          the section is skipped: what Basalt lacks for it
//	volume: reason           the section proves a volume (big values):
//	                         it runs only with BASALT_VOLUME=1 set, and
//	                         each command may take 5 minutes
//	ignore-values: k1 k2     config keys whose values necessarily differ
//	info-values: f1 f2       INFO fields whose values are compared too
//	                         (these two before the first section: in every
//	                         section)
//	needs: CMD1 CMD2         commands the section needs: it is skipped
//	                         while Basalt lacks one (kvdRunFile)
//	!sleep 200ms             pause (for what Kvrocks does in the background)
//	!until "text" [@conn] CMD args
//	                         repeat the command on each server until its
//	                         reply holds text (what Kvrocks does in the
//	                         background, such as DBSIZE SCAN, has finished);
//	                         not compared
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
//	         (int, float, string; key=value lists field by field), and
//	         the values of the info-values fields
//	config   CONFIG GET pairs: every key and its value, values of the
//	         ignore-values keys only by presence
//	nodes    CLUSTER NODES: lines as a set, ping/pong times left out
//	sorted   an array whose order is not defined, as a sorted list
//	docs     an FT.SEARCH reply, [count, key, [field, value, ...], ...]:
//	         the keys in order, each document's pairs as a set
//	cmdinfo  COMMAND INFO: per command arity, key positions and flags
//
// Each difference has a key "section | command line | item" (item empty
// when the whole reply is compared); the differences file lists keys and
// reasons as "section | command line | item | reason", where * in the
// first three matches any text. An entry that matches no difference, once
// every section it names has run and passed, fails the test.

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
	needs        []string // commands Basalt must know for the section to run
	args         []string
	conf         []string
	ignoreValues map[string]bool // CONFIG keys compared by presence only
	infoValues   map[string]bool // INFO fields whose values are compared too
	volume       bool            // runs only with BASALT_VOLUME=1
	pending      string          // why the section is skipped, if it is
	steps        []kvdStep
}

// kvdStep is a command or a pause.
type kvdStep struct {
	line  string // as written, the case's identity
	file  string // the cases file, for messages
	lineN int
	conn  string
	mode  string
	args  []string
	sleep time.Duration
	until string // a !until step: the text the reply must come to hold
}

var kvdModes = map[string]bool{"exact": true, "shape": true, "kind": true, "info": true, "config": true, "nodes": true, "sorted": true, "cmdinfo": true, "docs": true}

func kvdParseCases(t *testing.T, path string) []*kvdSection {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sections []*kvdSection
	var cur *kvdSection
	// Key lists, given before the first section for every section, or in
	// one section.
	global := map[string]map[string]bool{"ignore-values:": {}, "info-values:": {}}
	keyList := func(line string) (map[string]bool, []string) {
		for directive := range global {
			if strings.HasPrefix(line, directive) {
				keys := strings.Fields(line[len(directive):])
				if cur == nil {
					return global[directive], keys
				}
				if directive == "ignore-values:" {
					return cur.ignoreValues, keys
				}
				return cur.infoValues, keys
			}
		}
		return nil, nil
	}
	for i, raw := range strings.Split(string(data), "\n") {
		n := i + 1
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "==") {
			cur = &kvdSection{name: strings.TrimSpace(line[2:]), ignoreValues: map[string]bool{}, infoValues: map[string]bool{}}
			for k := range global["ignore-values:"] {
				cur.ignoreValues[k] = true
			}
			for k := range global["info-values:"] {
				cur.infoValues[k] = true
			}
			sections = append(sections, cur)
			continue
		}
		if set, keys := keyList(line); set != nil {
			for _, k := range keys {
				set[k] = true
			}
			continue
		}
		if cur == nil {
			t.Fatalf("%s:%d: only ignore-values and info-values may come before the first section", path, n)
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
		case strings.HasPrefix(line, "needs:"):
			cur.needs = append(cur.needs, strings.Fields(line[len("needs:"):])...)
		case strings.HasPrefix(line, "volume:"):
			cur.volume = true
		case strings.HasPrefix(line, "pending:"):
			cur.pending = strings.TrimSpace(line[len("pending:"):])
		case strings.HasPrefix(line, "!sleep "):
			d, err := time.ParseDuration(strings.TrimSpace(line[len("!sleep "):]))
			if err != nil {
				fail(err)
			}
			cur.steps = append(cur.steps, kvdStep{line: line, file: filepath.Base(path), lineN: n, sleep: d})
		default:
			st := kvdStep{line: line, file: filepath.Base(path), lineN: n, conn: "main", mode: "exact"}
			rest := line
			if strings.HasPrefix(rest, "!until ") {
				rest = rest[len("!until "):]
				quoted, err := strconv.QuotedPrefix(rest)
				if err != nil {
					fail(fmt.Errorf("!until needs a quoted text: %w", err))
				}
				st.until, _ = strconv.Unquote(quoted)
				rest = strings.TrimSpace(rest[len(quoted):])
			}
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
	kvdRunFile(t, "kvrocks_diff.txt", "kvrocks_differences.txt", false)
}

// kvdRunFile runs the sections of testdata/cases against Kvrocks and
// Basalt as written or, with bothProtocols, once as written and once with
// every connection in RESP3 (kvdInRESP3), and checks their differences
// against testdata/differences: an unlisted difference fails, and so does
// a listed one that no longer occurs once every section it names ran and
// passed. A section whose needs: Basalt does not know (COMMAND INFO
// answers nil for it) is skipped.
func kvdRunFile(t *testing.T, cases, differences string, bothProtocols bool) {
	kvrocksBin(t) // skips without a Kvrocks
	sections := kvdParseCases(t, filepath.Join("testdata", cases))
	listed := kvdParseDifferences(t, filepath.Join("testdata", differences))
	ran := map[string]bool{}
	for _, s := range sections {
		if ran[s.name] {
			t.Fatalf("section %q appears twice", s.name)
		}
		ran[s.name] = true
	}
	lacking := basaltLacks(t, sections)
	total := &kvdCounts{configKeys: map[string]bool{}, infoFields: map[string]bool{}}
	protos := []int{0} // as written
	if bothProtocols {
		protos = []int{2, 3}
	}
	for _, proto := range protos {
		for _, s := range sections {
			name := s.name
			if proto != 0 {
				name = fmt.Sprintf("RESP%d/%s", proto, s.name)
			}
			executed := false
			passed := t.Run(name, func(t *testing.T) {
				if missing := lacking(s); len(missing) > 0 {
					t.Skipf("Basalt lacks %s", strings.Join(missing, ", "))
				}
				if s.pending != "" {
					t.Skip("pending: " + s.pending)
				}
				if s.volume && os.Getenv("BASALT_VOLUME") == "" {
					t.Skip("volume section: runs with BASALT_VOLUME=1")
				}
				executed = true
				run := s
				if proto == 3 {
					run = kvdInRESP3(s)
				}
				kvdRunSection(t, run, listed, total)
			})
			ran[s.name] = ran[s.name] && executed && passed
		}
	}
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
			t.Errorf("%s:%d: no section matches %q", differences, d.lineN, d.section)
		case complete && !d.seen:
			t.Errorf("%s:%d: listed difference no longer occurs (remove it): %s", differences, d.lineN, kvdKey(d.section, d.line, d.item))
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
	wait  time.Duration // for each reply
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
	c := &kvdConn{c: nc, r: bufio.NewReader(nc), wait: s.wait}
	s.conns[name] = c
	return c
}

func kvdRunSection(t *testing.T, s *kvdSection, listed []*kvdDifference, total *kvdCounts) {
	wait := 30 * time.Second
	if s.volume {
		wait = 5 * time.Minute
	}
	k := &kvdServer{name: "kvrocks", p: kvdStart(t, true, s.conf, s.args), conns: map[string]*kvdConn{}, wait: wait}
	b := &kvdServer{name: "basalt", p: kvdStart(t, false, s.conf, s.args), conns: map[string]*kvdConn{}, wait: wait}
	var unlisted []string
	for _, st := range s.steps {
		if st.sleep > 0 {
			time.Sleep(st.sleep)
			continue
		}
		if st.until != "" {
			kvdAwait(t, k, st)
			kvdAwait(t, b, st)
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
				t.Errorf("%s:%d: unlisted difference\n    %s\n  kvrocks: %s\n  basalt:  %s", st.file, st.lineN, key, d.kvrocks, d.basalt)
				unlisted = append(unlisted, key+" | ")
			}
		}
	}
	if len(unlisted) > 0 {
		t.Logf("fix these, or list them in the differences file with a reason:\n%s", strings.Join(unlisted, "\n"))
	}
}

// kvdAwait repeats a !until step's command until its reply holds the
// step's text, for a minute at most.
func kvdAwait(t *testing.T, s *kvdServer, st kvdStep) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for r := kvdDo(t, s, st); !strings.Contains(r.str, st.until); r = kvdDo(t, s, st) {
		if time.Now().After(deadline) {
			t.Fatalf("%s:%d: %s: the reply never held %q; last %q", st.file, st.lineN, s.name, st.until, r.str)
		}
		time.Sleep(50 * time.Millisecond)
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
		t.Fatalf("%s:%d: %s: %s: %v", st.file, st.lineN, s.name, st.line, err)
	}
	return r
}
