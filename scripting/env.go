package scripting

import (
	"errors"
	"math"
	"strconv"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/basaltdb/basalt/reply"
)

// Error texts of the sandbox, Redis 7.0's.
const (
	errReadonlyTable = "Attempt to modify a readonly table"
	errNoGlobal      = "Script attempted to access nonexistent global variable '%s'"
)

// allowedGlobals are the base functions Redis 7.0 leaves a script
// (script_lua.c's allow list, without getfenv and setfenv, which its
// sandbox removes); the libraries are added by name.
var allowedGlobals = map[string]bool{
	"xpcall": true, "tostring": true, "setmetatable": true, "next": true,
	"assert": true, "tonumber": true, "rawequal": true, "collectgarbage": true,
	"getmetatable": true, "rawset": true, "pcall": true, "type": true, "_G": true,
	"select": true, "unpack": true, "gcinfo": true, "pairs": true, "rawget": true,
	"loadstring": true, "ipairs": true, "_VERSION": true, "load": true,
	"error": true,
}

// Lua stack bounds: Lua 5.1's C call limit, and room for unpack of a few
// hundred thousand values; past them a script gets a stack overflow error.
const (
	callStackSize   = 200
	registrySize    = 1024
	registryMaxSize = 1 << 20
)

// state is one Lua interpreter set up for scripts and functions. It runs
// one script at a time; the Engine pools states.
//
// Redis makes the globals and every library table read-only. gopher-lua
// has no read-only tables, so a script sees each of them through an empty
// proxy table whose metatable reads from the real one and refuses writes;
// the base functions that could bypass a metatable (rawset, rawget, next,
// pairs, setmetatable) see through proxies.
type state struct {
	L *lua.LState
	// targets maps each proxy to the table it shows.
	targets map[*lua.LTable]*lua.LTable
	// locked is what getmetatable returns for a protected table.
	locked *lua.LTable

	// evalGlobals are the globals of EVAL scripts (KEYS and ARGV are set
	// there); evalEnv, their proxy, is the environment of script chunks.
	evalGlobals, evalEnv *lua.LTable
	// funcGlobals are the globals functions run with; loadGlobals hold
	// only the redis table of FUNCTION LOAD. funcEnv, the environment of
	// library chunks, reads from funcLookup's __index: loadGlobals while a
	// library loads, funcGlobals otherwise.
	funcGlobals, loadGlobals, funcEnv, funcLookup *lua.LTable

	// scripts are the closures of the scripts compiled here, by sha;
	// libraries the callbacks of the libraries loaded here.
	scripts   map[string]*lua.LFunction
	libraries map[*Library]map[string]*lua.LFunction
	// generation is the Engine's when the caches above were filled.
	generation uint64

	// run is the run in progress; registering, the library being loaded.
	run         *run
	registering *registration
	// args and captures are reused by redis.call.
	args     [][]byte
	captures [2]*reply.Capture
	// errorHandler locates a raised error (see errors.go).
	errorHandler *lua.LFunction
	// broken is set once a run was stopped midway: the state is not
	// reused.
	broken  bool
	created time.Time
}

func newState() *state {
	L := lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       callStackSize,
		RegistrySize:        registrySize,
		RegistryMaxSize:     registryMaxSize,
		MinimizeStackMemory: true,
	})
	s := &state{
		L:         L,
		targets:   map[*lua.LTable]*lua.LTable{},
		scripts:   map[string]*lua.LFunction{},
		libraries: map[*Library]map[string]*lua.LFunction{},
		captures:  [2]*reply.Capture{reply.NewCapture(2), reply.NewCapture(3)},
		created:   time.Now(),
	}
	for _, open := range []struct {
		name string
		fn   lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}, {lua.CoroutineLibName, lua.OpenCoroutine}} {
		L.Push(L.NewFunction(open.fn))
		L.Push(lua.LString(open.name))
		L.Call(1, 0)
	}
	g := L.Get(lua.GlobalsIndex).(*lua.LTable)
	s.evalGlobals = L.NewTable()
	g.ForEach(func(k, v lua.LValue) {
		if name, ok := k.(lua.LString); ok && allowedGlobals[string(name)] {
			s.evalGlobals.RawSet(k, v)
		}
	})
	s.locked = L.NewTable()
	s.locked = s.protect(s.locked)
	s.installBase()
	libs := map[string]*lua.LTable{
		"string":    g.RawGetString("string").(*lua.LTable),
		"table":     g.RawGetString("table").(*lua.LTable),
		"math":      g.RawGetString("math").(*lua.LTable),
		"coroutine": g.RawGetString("coroutine").(*lua.LTable),
		"cjson":     newCJSON(L),
		"cmsgpack":  newCMsgpack(L),
		"bit":       newBit(L),
		"struct":    newStruct(L),
		"os":        s.newOS(),
	}
	libs["string"].RawSetString("rep", L.NewFunction(stringRep))
	libs["string"].RawSetString("format", L.NewFunction(strFormat))
	libs["math"].RawSetString("huge", lua.LNumber(math.Inf(1)))
	s.addTable51(libs["table"])
	for name, lib := range libs {
		s.evalGlobals.RawSetString(name, s.protect(lib))
	}
	// Methods of strings ("x"):upper() read the protected string table
	// through a metatable of their own (gopher-lua's is the string
	// table itself), which is out of reach.
	libs["string"].RawSetString("__index", lua.LNil)
	mt := L.NewTable()
	mt.RawSetString("__index", s.evalGlobals.RawGetString("string"))
	shown := L.NewTable()
	shown.RawSetString("__index", mt.RawGetString("__index"))
	mt.RawSetString("__metatable", s.protect(shown))
	L.SetMetatable(lua.LString(""), mt)

	s.funcGlobals = L.NewTable()
	s.evalGlobals.ForEach(func(k, v lua.LValue) { s.funcGlobals.RawSet(k, v) })
	s.evalEnv = s.protectGlobals(s.evalGlobals, s.evalGlobals)
	s.evalGlobals.RawSetString("redis", s.protect(s.newRedis(contextEval)))

	s.loadGlobals = L.NewTable()
	s.loadGlobals.RawSetString("redis", s.protect(s.newRedis(contextLoad)))
	s.guardMissing(s.loadGlobals)
	s.funcEnv = s.protectGlobals(s.funcGlobals, s.funcGlobals)
	s.funcLookup = s.funcEnv.Metatable.(*lua.LTable)
	s.funcGlobals.RawSetString("redis", s.protect(s.newRedis(contextFunction)))

	// Every function of the environment runs with the script globals:
	// loadstring's chunks among them.
	L.Env = s.evalEnv
	s.setEnvs(s.evalGlobals, map[*lua.LTable]bool{})
	s.setEnvs(s.funcGlobals, map[*lua.LTable]bool{})
	s.errorHandler = L.NewFunction(s.locateError)
	// Redis 7.0 leaves its error handler among the globals of scripts.
	s.evalGlobals.RawSetString("__redis__err__handler", s.errorHandler)
	return s
}

// protect returns a read-only proxy of t.
func (s *state) protect(t *lua.LTable) *lua.LTable {
	proxy := s.L.NewTable()
	mt := s.L.NewTable()
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", s.L.NewFunction(refuseWrite))
	if s.locked != nil {
		mt.RawSetString("__metatable", s.locked)
	}
	s.L.SetMetatable(proxy, mt)
	s.targets[proxy] = t
	return proxy
}

// protectGlobals makes globals fail on a read of a missing name and
// returns its read-only proxy, which _G names. The proxy reads from
// lookup.
func (s *state) protectGlobals(globals, lookup *lua.LTable) *lua.LTable {
	s.guardMissing(globals)
	proxy := s.protect(lookup)
	globals.RawSetString("_G", proxy)
	return proxy
}

// guardMissing makes a read of a name t lacks an error.
func (s *state) guardMissing(t *lua.LTable) {
	mt := s.L.NewTable()
	mt.RawSetString("__index", s.L.NewFunction(func(L *lua.LState) int {
		L.RaiseError(errNoGlobal, L.ToString(2))
		return 0
	}))
	s.L.SetMetatable(t, mt)
}

// setEnvs makes every function reachable from t run with the script
// globals, so that none hands out the unprotected tables (getfenv).
func (s *state) setEnvs(t *lua.LTable, seen map[*lua.LTable]bool) {
	if seen[t] {
		return
	}
	seen[t] = true
	if target, ok := s.targets[t]; ok {
		t = target
	}
	t.ForEach(func(_, v lua.LValue) {
		switch v := v.(type) {
		case *lua.LFunction:
			v.Env = s.evalEnv
		case *lua.LTable:
			s.setEnvs(v, seen)
		}
	})
}

func refuseWrite(L *lua.LState) int {
	L.RaiseError(errReadonlyTable)
	return 0
}

// refuseWriteHere raises the read-only error with no position, as Redis
// does when the write comes through a builtin.
func refuseWriteHere(L *lua.LState) {
	L.Error(lua.LString(errReadonlyTable), 0)
}

// unprotect returns the table a proxy shows, or t itself.
func (s *state) unprotect(t *lua.LTable) (*lua.LTable, bool) {
	if target, ok := s.targets[t]; ok {
		return target, true
	}
	return t, false
}

// installBase replaces the base functions that could change a protected
// table or reach the host, and adds gcinfo.
func (s *state) installBase() {
	g := s.evalGlobals
	set := func(name string, fn lua.LGFunction) { g.RawSetString(name, s.L.NewFunction(fn)) }
	set("rawset", func(L *lua.LState) int {
		t := L.CheckTable(1)
		if _, protected := s.unprotect(t); protected {
			refuseWriteHere(L)
		}
		L.CheckAny(2)
		L.CheckAny(3)
		t.RawSet(L.Get(2), L.Get(3))
		L.SetTop(1)
		return 1
	})
	set("rawget", func(L *lua.LState) int {
		t, _ := s.unprotect(L.CheckTable(1))
		L.Push(t.RawGet(L.CheckAny(2)))
		return 1
	})
	next := func(L *lua.LState) int {
		t, _ := s.unprotect(L.CheckTable(1))
		k, v := t.Next(L.Get(2))
		if k == lua.LNil {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(k)
		L.Push(v)
		return 2
	}
	nextFn := s.L.NewFunction(next)
	g.RawSetString("next", nextFn)
	set("pairs", func(L *lua.LState) int {
		L.CheckTable(1)
		L.Push(nextFn)
		L.Push(L.Get(1))
		L.Push(lua.LNil)
		return 3
	})
	base := g.RawGetString("setmetatable").(*lua.LFunction)
	set("setmetatable", func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			if _, protected := s.unprotect(t); protected {
				refuseWriteHere(L)
			}
		}
		L.Push(base)
		L.Push(L.Get(1))
		L.Push(L.Get(2))
		L.Call(2, 1)
		return 1
	})
	set("tostring", luaToString(g.RawGetString("tostring").(*lua.LFunction)))
	set("pcall", protectedCall)
	set("error", raiseError)
	// Collecting is the Go runtime's business; a script asking for it in
	// a loop must not stop the server for each call.
	set("collectgarbage", func(L *lua.LState) int {
		if L.OptString(1, "collect") == "count" {
			L.Push(lua.LNumber(heapKB()))
			return 1
		}
		L.Push(lua.LNumber(0))
		return 1
	})
	set("gcinfo", func(L *lua.LState) int {
		L.Push(lua.LNumber(int64(heapKB())))
		return 1
	})
}

// newOS is the os table: os.clock only (Redis 7.4's addition), the
// processor time of the server in seconds.
func (s *state) newOS() *lua.LTable {
	t := s.L.NewTable()
	t.RawSetString("clock", s.L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(processSeconds()))
		return 1
	}))
	return t
}

// stringRep is string.rep with the result's size checked before it is
// made: a script cannot ask for more than the memory a run may use.
func stringRep(L *lua.LState) int {
	str := checkString(L, 1, "rep")
	n := L.CheckInt(2)
	if n <= 0 || len(str) == 0 {
		L.Push(lua.LString(""))
		return 1
	}
	if int64(len(str))*int64(n) > memoryLimit {
		L.RaiseError(errNoMemory)
	}
	buf := make([]byte, 0, len(str)*n)
	for range n {
		buf = append(buf, str...)
	}
	L.Push(lua.LString(buf))
	return 1
}

// close frees the interpreter.
func (s *state) close() { s.L.Close() }

// protectedCall is Redis's pcall: an error table raised by redis.call
// comes back as its message.
func protectedCall(L *lua.LState) int {
	if L.GetTop() == 0 {
		argError(L, 1, "pcall", "value expected")
	}
	if err := L.PCall(L.GetTop()-1, lua.MultRet, nil); err != nil {
		obj := lua.LValue(lua.LString(err.Error()))
		var apiErr *lua.ApiError
		if errors.As(err, &apiErr) {
			obj = apiErr.Object
		}
		if t, ok := obj.(*lua.LTable); ok {
			if msg, ok := t.RawGetString("err").(lua.LString); ok {
				obj = msg
			}
		}
		L.Push(lua.LFalse)
		L.Push(obj)
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// raiseError is Lua's error(message [, level]): a message gets the
// position of the function at level (1: the one calling error) when it is
// Lua code, as luaL_where gives it.
func raiseError(L *lua.LState) int {
	obj := L.Get(1)
	level := L.OptInt(2, 1)
	if _, isTable := obj.(*lua.LTable); !isTable && obj != lua.LNil && level > 0 {
		if _, isFunc := obj.(*lua.LFunction); !isFunc {
			obj = lua.LString(where(L, level) + lua.LVAsString(obj))
		}
	}
	L.Error(obj, 0)
	return 0
}

// where is "<source>:<line>: " of the function at level, "" when it is
// not Lua code.
func where(L *lua.LState, level int) string {
	dbg, ok := L.GetStack(level)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.CurrentLine <= 0 || dbg.What == "G" {
		return ""
	}
	return dbg.Source + ":" + strconv.Itoa(dbg.CurrentLine) + ": "
}
