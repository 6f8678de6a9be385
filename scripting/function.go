package scripting

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Library is a function library: its code (metadata line included), the
// functions its code registers, and the namespace it belongs to. A
// Library does not change once installed.
type Library struct {
	Name      string
	Code      string
	Functions []*Function // ordered by name
	// Owner is the namespace of the library: the one that loaded it, or
	// for a library replacing another, the other's.
	Owner string
}

// Function is a function a library registered.
type Function struct {
	Name        string
	Description string
	// HasDescription tells an empty description from none.
	HasDescription bool
	Flags          Flags
	Library        *Library
	// Order is the function's place among its library's registrations
	// (Kvrocks's FUNCTION LISTLIB lists them in that order).
	Order int
}

// ReadOnly reports whether the function declared it does not write.
func (f *Function) ReadOnly() bool { return f.Flags&NoWrites != 0 }

// loadTimeout bounds the run of a library's code by FUNCTION LOAD.
const loadTimeout = 500 * time.Millisecond

// libraries is the set of loaded libraries.
type libraries struct {
	mu        sync.Mutex
	byName    map[string]*Library
	functions map[string]*Function // by lowercase name
}

func (l *libraries) init() {
	l.byName = map[string]*Library{}
	l.functions = map[string]*Function{}
}

// Function returns the function name (any case), or nil.
func (e *Engine) Function(name string) *Function {
	e.libs.mu.Lock()
	defer e.libs.mu.Unlock()
	return e.libs.functions[strings.ToLower(name)]
}

// Scope is who reads or changes the libraries and scripts: a namespace,
// which reaches its own, or the admin (All), who reaches every
// namespace's.
type Scope struct {
	Owner string
	All   bool
}

// Sees reports whether the scope reaches what owner has.
func (s Scope) Sees(owner string) bool { return s.All || owner == s.Owner }

// Libraries returns the libraries scope sees, ordered by name.
func (e *Engine) Libraries(scope Scope) []*Library {
	e.libs.mu.Lock()
	defer e.libs.mu.Unlock()
	out := make([]*Library, 0, len(e.libs.byName))
	for _, lib := range e.libs.byName {
		if scope.Sees(lib.Owner) {
			out = append(out, lib)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Counts returns the number of libraries scope sees and of their
// functions.
func (e *Engine) Counts(scope Scope) (libraries, functions int) {
	for _, lib := range e.Libraries(scope) {
		libraries++
		functions += len(lib.Functions)
	}
	return libraries, functions
}

// Prepare checks a library's metadata line and runs its code to learn
// the functions it registers; nothing is installed. With PolicyLoad, an
// existing library of that name is refused first (as another
// namespace's when scope does not see it). The error's text is the
// reply.
func (e *Engine) Prepare(code string, policy Policy, scope Scope) (*Library, error) {
	name, source, err := libraryMetadata(code)
	if err != nil {
		return nil, err
	}
	// FUNCTION LOAD refuses an existing library before running its code.
	if policy == PolicyLoad {
		e.libs.mu.Lock()
		old := e.libs.byName[name]
		e.libs.mu.Unlock()
		if old != nil {
			return nil, libraryExists(name, !scope.Sees(old.Owner))
		}
	}
	proto, err := compile(source, functionChunk)
	if err != nil {
		return nil, replyError("ERR Error compiling function: " + err.Error())
	}
	st := e.getState()
	defer func() { e.putState(st, !st.broken) }()
	lib := &Library{Name: name, Code: code}
	if _, err := st.register(lib, proto); err != nil {
		return nil, replyError("ERR Error registering functions: " + err.Error())
	}
	if len(lib.Functions) == 0 {
		return nil, replyError("ERR No functions registered")
	}
	return lib, nil
}

// Change is a change of the set of libraries: the libraries it removes
// and the ones it adds.
type Change struct {
	Remove []*Library
	Add    []*Library
}

// Install applies a change after checking it, for scope: each library
// added must not exist unless the policy replaces it and scope sees it,
// nor register a function another library has (flushing and replacing
// reach only the libraries scope sees). An added library belongs to the
// library it replaces' namespace, or to scope's. persist is called,
// under the lock that serializes changes, before the change is made; its
// error stops the change.
func (e *Engine) Install(add []*Library, policy Policy, scope Scope, persist func(Change) error) error {
	e.libs.mu.Lock()
	defer e.libs.mu.Unlock()
	ch := Change{Add: add}
	removed := map[string]bool{}
	if policy == PolicyFlush {
		for _, lib := range e.libs.byName {
			if scope.Sees(lib.Owner) {
				ch.Remove = append(ch.Remove, lib)
				removed[lib.Name] = true
			}
		}
	}
	adding := map[string]bool{}
	for _, lib := range add {
		old := e.libs.byName[lib.Name]
		if old != nil && removed[lib.Name] {
			old = nil
		}
		switch {
		case old != nil && !scope.Sees(old.Owner):
			return libraryExists(lib.Name, true)
		case adding[lib.Name] || (old != nil && (policy == PolicyAppend || policy == PolicyLoad)):
			if policy == PolicyLoad {
				return libraryExists(lib.Name, false)
			}
			return replyError("ERR Library " + lib.Name + " already exists")
		case old != nil:
			ch.Remove = append(ch.Remove, old)
			removed[lib.Name] = true
			lib.Owner = old.Owner
		default:
			lib.Owner = scope.Owner
		}
		adding[lib.Name] = true
	}
	names := map[string]bool{}
	for _, lib := range add {
		for _, f := range lib.Functions {
			key := strings.ToLower(f.Name)
			existing := e.libs.functions[key]
			if existing != nil && removed[existing.Library.Name] {
				existing = nil
			}
			if names[key] || existing != nil {
				text := "ERR Function " + f.Name + " already exists"
				if existing != nil && !scope.Sees(existing.Library.Owner) {
					text += elsewhere
				}
				return replyError(text)
			}
			names[key] = true
		}
	}
	if err := persist(ch); err != nil {
		return err
	}
	e.applyLocked(ch)
	return nil
}

// elsewhere ends the error about a name another namespace's library
// holds: names are the server's, as Kvrocks keeps them, so a namespace
// cannot take them, whatever the policy.
const elsewhere = " in another namespace"

// libraryExists is FUNCTION LOAD's error for an existing library, or
// one of another namespace.
func libraryExists(name string, another bool) error {
	text := "ERR Library '" + name + "' already exists"
	if another {
		text += elsewhere
	}
	return replyError(text)
}

// Policy is how a change treats the libraries that exist.
type Policy int

// FUNCTION LOAD without REPLACE (PolicyLoad) and the policies of
// FUNCTION RESTORE. PolicyReplace is also LOAD REPLACE.
const (
	PolicyLoad Policy = iota
	PolicyAppend
	PolicyReplace
	PolicyFlush
)

// ErrNoLibrary is Delete's error for an unknown library.
var ErrNoLibrary = errors.New("scripting: no such library")

// Delete removes library name, which scope must see (ErrNoLibrary
// otherwise); persist is called first, as for Install.
func (e *Engine) Delete(name string, scope Scope, persist func(Change) error) error {
	e.libs.mu.Lock()
	defer e.libs.mu.Unlock()
	lib := e.libs.byName[name]
	if lib == nil || !scope.Sees(lib.Owner) {
		return ErrNoLibrary
	}
	ch := Change{Remove: []*Library{lib}}
	if err := persist(ch); err != nil {
		return err
	}
	e.applyLocked(ch)
	return nil
}

// Flush removes every library scope sees; persist is called first, as
// for Install.
func (e *Engine) Flush(scope Scope, persist func(Change) error) error {
	return e.Install(nil, PolicyFlush, scope, persist)
}

// Reset makes libs the set of libraries, as storage holds them (at start,
// and on a replica when the master changed them).
func (e *Engine) Reset(libs []*Library) {
	e.libs.mu.Lock()
	defer e.libs.mu.Unlock()
	e.libs.init()
	e.applyLocked(Change{Add: libs})
}

func (e *Engine) applyLocked(ch Change) {
	for _, lib := range ch.Remove {
		delete(e.libs.byName, lib.Name)
		for _, f := range lib.Functions {
			if e.libs.functions[strings.ToLower(f.Name)] == f {
				delete(e.libs.functions, strings.ToLower(f.Name))
			}
		}
	}
	for _, lib := range ch.Add {
		e.libs.byName[lib.Name] = lib
		for _, f := range lib.Functions {
			e.libs.functions[strings.ToLower(f.Name)] = f
		}
	}
	e.mu.Lock()
	e.mu.epoch++
	e.mu.Unlock()
}

// libraryMetadata parses the first line of a library, "#!lua name=<n>",
// and returns the name and the code with that line blanked.
func libraryMetadata(code string) (name, source string, err error) {
	if !strings.HasPrefix(code, "#!") {
		return "", "", replyError("ERR Missing library metadata")
	}
	line, _, found := strings.Cut(code, "\n")
	if !found {
		return "", "", replyError("ERR Invalid library metadata")
	}
	parts, ok := splitArgs(line)
	if !ok || len(parts) == 0 {
		return "", "", replyError("ERR Invalid library metadata")
	}
	engine := parts[0][2:]
	named := false
	for _, p := range parts[1:] {
		if len(p) >= 5 && strings.EqualFold(p[:5], "name=") {
			if named {
				return "", "", replyError("ERR Invalid metadata value, name argument was given multiple times")
			}
			name, named = p[5:], true
			continue
		}
		return "", "", replyError("ERR Invalid metadata value given: " + p)
	}
	if !named {
		return "", "", replyError("ERR Library name was not given")
	}
	if !validName(name) {
		return "", "", replyError("ERR " + errBadName)
	}
	if !strings.EqualFold(engine, "lua") {
		return "", "", replyError("ERR Engine '" + engine + "' not found")
	}
	return name, code[len(line):], nil
}

const errBadName = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"

func validName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// registration is the library whose code runs for FUNCTION LOAD, and the
// callbacks it registered.
type registration struct {
	lib       *Library
	callbacks map[string]*lua.LFunction
	// collect is set when the library's functions are being learnt
	// (Prepare), not when its code runs again in another state.
	collect bool
}

// register runs a library's compiled code in st with the load-time
// globals, collecting what it registers into lib (when lib.Functions is
// still empty) and the callbacks into st. The error is the reply's text
// after "Error registering functions: ".
func (st *state) register(lib *Library, proto *lua.FunctionProto) (map[string]*lua.LFunction, error) {
	L := st.L
	fn := L.NewFunctionFromProto(proto)
	fn.Env = st.funcEnv
	reg := &registration{lib: lib, callbacks: map[string]*lua.LFunction{}, collect: len(lib.Functions) == 0}
	st.registering = reg
	st.funcLookup.RawSetString("__index", st.loadGlobals)
	ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
	L.SetContext(ctx)
	L.Push(fn)
	err := L.PCall(0, 0, nil)
	L.RemoveContext()
	timedOut := ctx.Err() != nil
	cancel()
	st.funcLookup.RawSetString("__index", st.funcGlobals)
	st.registering = nil
	L.SetTop(0)
	if err != nil {
		if timedOut {
			// An interpreter stopped midway is not reused.
			st.broken = true
			return nil, errors.New("ERR FUNCTION LOAD timeout")
		}
		var apiErr *lua.ApiError
		if errors.As(err, &apiErr) {
			if t, ok := apiErr.Object.(*lua.LTable); ok {
				return nil, errors.New(lua.LVAsString(t.RawGetString("err")))
			}
			return nil, errors.New("ERR " + lua.LVAsString(apiErr.Object))
		}
		return nil, err
	}
	sort.Slice(lib.Functions, func(i, j int) bool { return lib.Functions[i].Name < lib.Functions[j].Name })
	st.libraries[lib] = reg.callbacks
	return reg.callbacks, nil
}

// callback returns fn's Lua function in st, running its library's code
// there first if st has not yet.
func (st *state) callback(fn *Function) (*lua.LFunction, error) {
	callbacks := st.libraries[fn.Library]
	if callbacks == nil {
		_, source, err := libraryMetadata(fn.Library.Code)
		if err != nil {
			return nil, err
		}
		proto, err := compile(source, functionChunk)
		if err != nil {
			return nil, err
		}
		if callbacks, err = st.register(fn.Library, proto); err != nil {
			return nil, err
		}
	}
	cb := callbacks[fn.Name]
	if cb == nil {
		return nil, errors.New("Function not found")
	}
	return cb, nil
}

// registerFunction is redis.register_function(name, callback) or
// redis.register_function{function_name=..., callback=..., flags=...,
// description=...}.
func (st *state) registerFunction(L *lua.LState) int {
	reg := st.registering
	if reg == nil {
		raise(L, "redis.register_function can only be called on FUNCTION LOAD command")
	}
	var f Function
	var callback *lua.LFunction
	switch L.GetTop() {
	case 1:
		callback = readNamedArgs(L, &f)
	case 2:
		name, ok := luaString(L.Get(1))
		if !ok {
			raise(L, "first argument to redis.register_function must be a string")
		}
		cb, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			raise(L, "second argument to redis.register_function must be a function")
		}
		f.Name, callback = name, cb
	default:
		raise(L, "wrong number of arguments to redis.register_function")
	}
	if !validName(f.Name) {
		raise(L, errBadName)
	}
	if _, dup := reg.callbacks[f.Name]; dup {
		raise(L, "Function already exists in the library")
	}
	reg.callbacks[f.Name] = callback
	if reg.collect {
		f.Library, f.Order = reg.lib, len(reg.lib.Functions)
		reg.lib.Functions = append(reg.lib.Functions, &f)
	}
	return 0
}

func readNamedArgs(L *lua.LState, f *Function) *lua.LFunction {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		raise(L, "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
	}
	var callback *lua.LFunction
	named := false
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		key, ok := luaString(k)
		if !ok {
			raise(L, "named argument key given to redis.register_function is not a string")
		}
		switch strings.ToLower(key) {
		case "function_name":
			if f.Name, ok = luaString(v); !ok {
				raise(L, "function_name argument given to redis.register_function must be a string")
			}
			named = true
		case "description":
			if f.Description, ok = luaString(v); !ok {
				raise(L, "description argument given to redis.register_function must be a string")
			}
			f.HasDescription = true
		case "callback":
			if callback, ok = v.(*lua.LFunction); !ok {
				raise(L, "callback argument given to redis.register_function must be a function")
			}
		case "flags":
			flags, ok := v.(*lua.LTable)
			if !ok {
				raise(L, "flags argument to redis.register_function must be a table representing function flags")
			}
			if f.Flags, ok = readFlags(flags); !ok {
				raise(L, "unknown flag given")
			}
		default:
			raise(L, "unknown argument given to redis.register_function")
		}
	}
	if !named {
		raise(L, "redis.register_function must get a function name argument")
	}
	if callback == nil {
		raise(L, "redis.register_function must get a callback argument")
	}
	return callback
}

func readFlags(t *lua.LTable) (Flags, bool) {
	var flags Flags
	for i := 1; ; i++ {
		v := t.RawGetInt(i)
		if v == lua.LNil {
			return flags, true
		}
		name, ok := luaString(v)
		if !ok {
			return 0, false
		}
		f, ok := flagNamed(name, true)
		if !ok {
			return 0, false
		}
		flags |= f
	}
}

// luaString is a string or number argument as a string (lua_isstring).
func luaString(v lua.LValue) (string, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		return v.String(), true
	}
	return "", false
}
