package json

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/resp"
)

// TestRepliesAsKvrocks runs it/testdata/json_diff.txt through this
// package, with a map for a keyspace, and compares every reply, byte for
// byte in its protocol, with the one the real Kvrocks 5fccd57 sent
// (testdata/kvrocks_5fccd57.txt). The lines in knownDifferences answer
// differently on purpose.
func TestRepliesAsKvrocks(t *testing.T) {
	f, err := os.Open("testdata/kvrocks_5fccd57.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ks *keyspace
	compared := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		if strings.HasPrefix(line, "==") {
			ks = newKeyspace(strings.TrimSpace(line[2:]))
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		want, err := strconv.Unquote(parts[2])
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		cmdline := parts[1]
		got, ok := ks.run(t, cmdline)
		if !ok {
			continue
		}
		if reason, listed := knownDifferences[cmdline]; listed {
			if got == want {
				t.Errorf("json_diff.txt:%s: %s: listed as different (%s) but answers as Kvrocks", parts[0], cmdline, reason)
			}
			continue
		}
		compared++
		if got != want {
			t.Errorf("json_diff.txt:%s: %s\n  kvrocks: %q\n  basalt:  %q", parts[0], cmdline, want, got)
		}
	}
	if compared < 500 {
		t.Errorf("compared %d replies only", compared)
	}
}

// knownDifferences are the corpus lines Basalt answers differently from
// Kvrocks 5fccd57, by design.
var knownDifferences = map[string]string{
	`JSON.SET p $ {"a":1} NX`:      "RedisJSON's NX and XX, which Kvrocks 5fccd57 refuses",
	`JSON.SET nokey $ {"a":1} XX`:  "RedisJSON's NX and XX, which Kvrocks 5fccd57 refuses",
	`JSON.SET nokey $ {"a":1} xx`:  "RedisJSON's NX and XX, which Kvrocks 5fccd57 refuses",
	`JSON.GET q .`:                 "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.GET q a`:                 "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.GET q .a`:                "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.GET q .c.a`:              "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.DEL del4 .a`:             "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.TYPE t .a`:               "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.MGET m1 .a`:              "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.STRLEN sa .a`:            "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.ARRINDEX ax .a 1`:        "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.ARRLEN al .a`:            "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.OBJKEYS ob .b`:           "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.OBJLEN ob .b`:            "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.RESP rs .a`:              "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.GET lg .a`:               "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.GET lg a.b`:              "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.GET lg .`:                "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.GET lg .nosuch`:          "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.GET lg .a .s`:            "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.TYPE lg .a.b`:            "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.ARRLEN lg .a.b`:          "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.ARRAPPEND lg .a.b 3`:     "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.STRLEN lg .s`:            "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.STRAPPEND lg .s "\"!\""`: "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.OBJLEN lg .a`:            "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.OBJKEYS lg .`:            "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.NUMINCRBY lg .n 2`:       "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.TOGGLE lg .t`:            "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.ARRPOP lg .a.b`:          "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.RESP lg .a`:              "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.SET lg .n 5`:             "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.SET lg .new 1`:           "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.DEL lg .new`:             "a RedisJSON legacy path, which Kvrocks 5fccd57 refuses as JSONPath",
	`JSON.GET lg`:                  "follows a write Kvrocks refused (legacy path or NX/XX)",
	`JSON.SET lg $ 1 NX`:           "RedisJSON's NX and XX, which Kvrocks 5fccd57 refuses",
	`JSON.SET lg $.n 2 XX`:         "RedisJSON's NX and XX, which Kvrocks 5fccd57 refuses",
	`JSON.SET lg $.zz 2 XX`:        "RedisJSON's NX and XX, which Kvrocks 5fccd57 refuses",
	`JSON.SET lg $.zz 2 NX`:        "RedisJSON's NX and XX, which Kvrocks 5fccd57 refuses",
	`JSON.SET nx $ 1 XX`:           "RedisJSON's NX and XX, which Kvrocks 5fccd57 refuses",
	`JSON.SET nx $ 1 NX`:           "RedisJSON's NX and XX, which Kvrocks 5fccd57 refuses",
	`JSON.SET nx $ 1 YY`:           "RedisJSON's NX and XX, which Kvrocks 5fccd57 refuses",
	`JSON.GET nx`:                  "follows a write Kvrocks refused (legacy path or NX/XX)",
}

// keyspace is the test's stand-in for the storage engine: stored values
// by key, and the other types' keys.
type keyspace struct {
	section string
	cfg     Config
	json    map[string][]byte
	other   map[string]bool
}

func newKeyspace(section string) *keyspace {
	ks := &keyspace{section: section, cfg: Config{MaxDepth: DefaultMaxDepth}, json: map[string][]byte{}, other: map[string]bool{}}
	switch section {
	case "json-cbor":
		ks.cfg.Format = FormatCBOR
	case "json-depth":
		ks.cfg.MaxDepth = 3
	}
	return ks
}

const wrongType = "-ERR Invalid argument: WRONGTYPE Operation against a key holding the wrong kind of value\r\n"

// run executes one corpus line and renders its reply; ok is false for
// lines the package has nothing to do with.
func (ks *keyspace) run(t *testing.T, cmdline string) (string, bool) {
	proto := 2
	if strings.HasPrefix(cmdline, "@r3 ") {
		proto, cmdline = 3, cmdline[4:]
	}
	args, err := splitLine(cmdline)
	if err != nil {
		t.Fatalf("%s: %v", cmdline, err)
	}
	name := strings.ToUpper(args[0])
	bargs := make([][]byte, len(args)-1)
	for i, a := range args[1:] {
		bargs[i] = []byte(a)
	}
	render := func(v reply.Value, err error) (string, bool) {
		if err != nil {
			text, _ := ReplyText(err)
			return "-" + text + "\r\n", true
		}
		return string(resp.Render(proto, func(s reply.Sink) { reply.Write(s, v) })), true
	}
	if !strings.HasPrefix(name, "JSON.") {
		return ks.runOther(name, bargs, render)
	}
	cmd, known := commandsByName[name]
	if !known {
		return "", false
	}
	if len(bargs) < cmd.minArgs {
		return render(reply.Value{}, ErrArity)
	}
	if name == "JSON.MGET" {
		return ks.mget(bargs, render)
	}
	if name == "JSON.MSET" {
		return ks.mset(bargs, render)
	}
	keyAt := 0
	if name == "JSON.DEBUG" {
		keyAt = 1
		if len(bargs) < 2 {
			return render(reply.Value{}, ErrArity)
		}
	}
	key := string(bargs[keyAt])
	if ks.other[key] {
		return wrongType, true
	}
	var doc *Value
	format := ks.cfg.Format
	if stored, ok := ks.json[key]; ok {
		if doc, format, err = Decode(stored); err != nil {
			t.Fatalf("%s: stored %x: %v", cmdline, stored, err)
		}
	}
	rest := append(append([][]byte{}, bargs[:keyAt]...), bargs[keyAt+1:]...)
	res, err := cmd.run(doc, format, rest, ks.cfg)
	if err == nil && res.Write {
		if res.Root == nil {
			delete(ks.json, key)
		} else {
			ks.json[key] = Encode(res.Root, ks.cfg.Format)
		}
	}
	return render(res.Reply, err)
}

func (ks *keyspace) mget(args [][]byte, render func(reply.Value, error) (string, bool)) (string, bool) {
	path := args[len(args)-1]
	var out []reply.Value
	for _, k := range args[:len(args)-1] {
		var doc *Value
		if stored, ok := ks.json[string(k)]; ok {
			doc, _, _ = Decode(stored)
		}
		v, err := MGetOne(doc, path)
		if err != nil {
			return render(v, err)
		}
		out = append(out, v)
	}
	return render(rArray(out), nil)
}

func (ks *keyspace) mset(args [][]byte, render func(reply.Value, error) (string, bool)) (string, bool) {
	if len(args)%3 != 0 {
		return render(reply.Value{}, ErrArity)
	}
	docs := map[string]*Value{}
	for i := 0; i < len(args); i += 3 {
		key := string(args[i])
		if ks.other[key] {
			return wrongType, true
		}
		doc, seen := docs[key]
		if !seen {
			if stored, ok := ks.json[key]; ok {
				doc, _, _ = Decode(stored)
			}
		}
		res, err := Set(doc, args[i+1:i+3], ks.cfg)
		if err != nil {
			return render(reply.Value{}, err)
		}
		if res.Write {
			docs[key] = res.Root
		} else {
			docs[key] = doc
		}
	}
	for k, d := range docs {
		if d != nil {
			ks.json[k] = Encode(d, ks.cfg.Format)
		}
	}
	return render(rOK(), nil)
}

// runOther answers the few other commands the corpus uses.
func (ks *keyspace) runOther(name string, args [][]byte, render func(reply.Value, error) (string, bool)) (string, bool) {
	switch name {
	case "CONFIG":
		if strings.EqualFold(string(args[0]), "SET") && len(args) == 3 {
			switch string(args[1]) {
			case "json-storage-format":
				if f, ok := ParseFormat(string(args[2])); ok {
					ks.cfg.Format = f
				}
			case "json-max-nesting-depth":
				if n, err := strconv.Atoi(string(args[2])); err == nil && n >= 0 {
					ks.cfg.MaxDepth = n
				}
			}
		}
		return "", false
	case "SET", "LPUSH":
		key := string(args[0])
		if _, ok := ks.json[key]; ok {
			return wrongType, true
		}
		ks.other[key] = true
		return "", false
	case "DEL":
		_, ok := ks.json[string(args[0])]
		delete(ks.json, string(args[0]))
		delete(ks.other, string(args[0]))
		if ok {
			return render(rInt(1), nil)
		}
		return render(rInt(0), nil)
	}
	return "", false
}

// commandSpec is how the test calls one command.
type commandSpec struct {
	minArgs int // after the command name
	run     func(doc *Value, stored Format, args [][]byte, cfg Config) (Result, error)
}

func readOnly(f func(doc *Value, args [][]byte) (reply.Value, error)) func(*Value, Format, [][]byte, Config) (Result, error) {
	return func(doc *Value, _ Format, args [][]byte, _ Config) (Result, error) {
		v, err := f(doc, args)
		return Result{Reply: v}, err
	}
}

func writing(f func(doc *Value, args [][]byte, cfg Config) (Result, error)) func(*Value, Format, [][]byte, Config) (Result, error) {
	return func(doc *Value, _ Format, args [][]byte, cfg Config) (Result, error) { return f(doc, args, cfg) }
}

var commandsByName = map[string]commandSpec{
	"JSON.SET":       {3, writing(Set)},
	"JSON.GET":       {1, readOnly(Get)},
	"JSON.DEL":       {1, writing(Del)},
	"JSON.FORGET":    {1, writing(Del)},
	"JSON.TYPE":      {1, readOnly(Type)},
	"JSON.MGET":      {minArgs: 2},
	"JSON.MSET":      {minArgs: 3},
	"JSON.MERGE":     {3, writing(Merge)},
	"JSON.CLEAR":     {1, writing(Clear)},
	"JSON.TOGGLE":    {1, writing(Toggle)},
	"JSON.NUMINCRBY": {3, writing(NumIncrBy)},
	"JSON.NUMMULTBY": {3, writing(NumMultBy)},
	"JSON.STRAPPEND": {2, writing(StrAppend)},
	"JSON.STRLEN":    {1, readOnly(StrLen)},
	"JSON.ARRAPPEND": {3, writing(ArrAppend)},
	"JSON.ARRINDEX": {3, func(doc *Value, _ Format, args [][]byte, cfg Config) (Result, error) {
		v, err := ArrIndex(doc, args, cfg)
		return Result{Reply: v}, err
	}},
	"JSON.ARRINSERT": {4, writing(ArrInsert)},
	"JSON.ARRLEN":    {1, readOnly(ArrLen)},
	"JSON.ARRPOP":    {1, writing(ArrPop)},
	"JSON.ARRTRIM":   {4, writing(ArrTrim)},
	"JSON.OBJKEYS":   {1, readOnly(ObjKeys)},
	"JSON.OBJLEN":    {1, readOnly(ObjLen)},
	"JSON.RESP":      {1, readOnly(Resp)},
	"JSON.DEBUG": {2, func(doc *Value, stored Format, args [][]byte, _ Config) (Result, error) {
		v, err := DebugMemory(doc, stored, args)
		return Result{Reply: v}, err
	}},
	"JSON.INFO": {1, func(doc *Value, stored Format, args [][]byte, _ Config) (Result, error) {
		if len(args) > 0 {
			return Result{}, ErrArity
		}
		v, err := Info(doc, stored)
		return Result{Reply: v}, err
	}},
}

// splitLine splits a corpus line as it/kvrocks_diff_test.go does.
func splitLine(s string) ([]string, error) {
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
		w, err := strconv.Unquote(s[:end+1])
		if err != nil {
			return nil, err
		}
		out = append(out, w)
		s = s[end+1:]
	}
}
