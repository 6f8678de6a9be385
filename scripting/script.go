package scripting

import (
	"errors"
	"regexp"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// Chunk names: Lua prefixes the position of an error with them.
const (
	scriptChunk   = "user_script"
	functionChunk = "user_function"
)

// Flags are the flags a script declares on its shebang line, or a
// function at registration.
type Flags uint8

// The flags, in the order FUNCTION LIST shows them.
const (
	NoWrites Flags = 1 << iota
	AllowOOM
	AllowStale
	NoCluster
	AllowCrossSlot
)

var flagNames = []struct {
	flag Flags
	name string
}{
	{NoWrites, "no-writes"}, {AllowOOM, "allow-oom"}, {AllowStale, "allow-stale"},
	{NoCluster, "no-cluster"}, {AllowCrossSlot, "allow-cross-slot-keys"},
}

// Names returns the names of the flags set, in FUNCTION LIST's order.
func (f Flags) Names() []string {
	var out []string
	for _, n := range flagNames {
		if f&n.flag != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// Script is a compiled EVAL script.
type Script struct {
	SHA  string // lowercase hex SHA1 of Body
	Body string // as sent, shebang line included
	// Declared is set when the body starts with a shebang line: the
	// script then runs by its flags. Without one (compat mode) it may
	// write and touch keys of several slots.
	Declared bool
	Flags    Flags
	proto    *lua.FunctionProto
}

// ReadOnly reports whether the script declared it does not write.
func (sc *Script) ReadOnly() bool { return sc.Declared && sc.Flags&NoWrites != 0 }

// CrossSlot reports whether the script may touch keys of several slots.
func (sc *Script) CrossSlot() bool { return !sc.Declared || sc.Flags&AllowCrossSlot != 0 }

// ErrCompile wraps the errors of Compile and of FUNCTION LOAD, whose
// text is the exact reply.
var ErrCompile = errors.New("scripting: compile")

// replyError is an error whose text is the reply; it wraps ErrCompile.
type replyError string

func (e replyError) Error() string { return string(e) }
func (e replyError) Unwrap() error { return ErrCompile }

// Compile checks a script's shebang and compiles its body.
func Compile(body string) (*Script, error) {
	sc := &Script{SHA: sha1Of(body), Body: body}
	source := body
	if strings.HasPrefix(body, "#!") {
		line, _, found := strings.Cut(body, "\n")
		if !found {
			return nil, replyError("ERR Invalid script shebang")
		}
		flags, err := shebangFlags(line)
		if err != nil {
			return nil, err
		}
		sc.Declared, sc.Flags = true, flags
		// The line is skipped, its newline kept: line numbers stay.
		source = body[len(line):]
	}
	proto, err := compile(source, scriptChunk)
	if err != nil {
		return nil, replyError("ERR Error compiling script (new function): " + err.Error())
	}
	sc.proto = proto
	return sc, nil
}

// shebangFlags parses "#!lua [flags=a,b]...".
func shebangFlags(line string) (Flags, error) {
	parts, ok := splitArgs(line)
	if !ok || len(parts) == 0 {
		return 0, replyError("ERR Invalid engine in script shebang")
	}
	if parts[0] != "#!lua" {
		return 0, replyError("ERR Unexpected engine in script shebang: " + parts[0])
	}
	var flags Flags
	for _, p := range parts[1:] {
		list, ok := strings.CutPrefix(p, "flags=")
		if !ok {
			return 0, replyError("ERR Unknown lua shebang option: " + p)
		}
		if list == "" {
			continue
		}
		for _, name := range strings.Split(list, ",") {
			f, ok := flagNamed(name, false)
			if !ok {
				return 0, replyError("ERR Unexpected flag in script shebang: " + name)
			}
			flags |= f
		}
	}
	return flags, nil
}

func flagNamed(name string, anyCase bool) (Flags, bool) {
	for _, n := range flagNames {
		if n.name == name || (anyCase && strings.EqualFold(n.name, name)) {
			return n.flag, true
		}
	}
	return 0, false
}

// splitArgs splits a line as Redis splits a command line (sdssplitargs):
// on spaces, with "..." and '...' quoting; ok is false for unbalanced
// quotes.
func splitArgs(line string) (args []string, ok bool) {
	i := 0
	for {
		for i < len(line) && isSpaceByte(line[i]) {
			i++
		}
		if i == len(line) {
			return args, true
		}
		var cur strings.Builder
		for i < len(line) && !isSpaceByte(line[i]) {
			q := line[i]
			if q != '"' && q != '\'' {
				cur.WriteByte(q)
				i++
				continue
			}
			i++
			closed := false
			for i < len(line) {
				c := line[i]
				i++
				if c == '\\' && q == '"' && i < len(line) {
					cur.WriteByte(line[i])
					i++
					continue
				}
				if c == q {
					closed = true
					break
				}
				cur.WriteByte(c)
			}
			// A closing quote must be followed by a space or the end.
			if !closed || (i < len(line) && !isSpaceByte(line[i])) {
				return nil, false
			}
		}
		args = append(args, cur.String())
	}
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// gopher-lua reports syntax errors as "<chunk> line:<n>(column:<c>) near
// '<token>':   <message>"; Lua as "<chunk>:<n>: <message> near '<token>'".
var syntaxError = regexp.MustCompile(`^(\S+) line:(\d+)\(column:\d+\) near '(.*)':\s+(.*)$`)

// compile parses and compiles Lua source, with syntax errors worded as
// Lua words their position.
func compile(source, chunk string) (*lua.FunctionProto, error) {
	stmts, err := parse.Parse(strings.NewReader(source), chunk)
	if err != nil {
		msg := strings.TrimSpace(err.Error())
		if m := syntaxError.FindStringSubmatch(msg); m != nil {
			msg = m[1] + ":" + m[2] + ": " + m[4] + " near '" + m[3] + "'"
		}
		return nil, errors.New(msg)
	}
	proto, err := lua.Compile(stmts, chunk)
	if err != nil {
		return nil, err
	}
	// gopher-lua marks a chunk as a Lua 5.0 vararg function that wants an
	// `arg` table, and builds one (a table with a hash part) on every call,
	// though no name in the chunk can reach it; Lua 5.1 does not do that
	// for a main chunk.
	proto.IsVarArg &^= lua.VarArgNeedsArg
	return proto, nil
}
