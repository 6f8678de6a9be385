package executor

import (
	"log/slog"
	"strings"
	"sync"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/scripting"
	"github.com/basaltdb/basalt/storage"
)

// Scripts and libraries per namespace. Kvrocks keeps them for the whole
// server: one lua_f_<sha> per script, one lua_lib_code_<library> per
// library, under names no namespace qualifies. Basalt keeps those records
// as they are, so that Kvrocks reads them, and notes beside them, in
// records Kvrocks leaves alone, which namespaces a script or library is
// for:
//
//	basalt_lua_f_owner_<sha><namespace> -> ""         each namespace that loaded the script
//	basalt_lua_lib_owner_<library>      -> namespace  a library of a namespace other than the default
//
// A namespace sees the scripts it loaded or ran and its own libraries;
// the admin sees all of them. A script or library without a note (one
// Kvrocks wrote) is the default namespace's. The functions of the
// default namespace's libraries serve the whole server: every namespace
// may call them, as on Kvrocks, but only the admin lists or changes them.
const (
	scriptOwnerPrefix  = "basalt_lua_f_owner_"
	libraryOwnerPrefix = "basalt_lua_lib_owner_"
)

// ScriptScope is what the client reaches of the scripts and libraries.
func (c *Ctx) ScriptScope() scripting.Scope {
	return scripting.Scope{Owner: c.Session.Namespace, All: c.Session.Admin}
}

// Callable reports whether the client may call fn: a function of its
// namespace's, or of the default namespace's, which serve every one.
func (c *Ctx) Callable(fn *scripting.Function) bool {
	owner := fn.Library.Owner
	return owner == metadata.DefaultNamespace || c.ScriptScope().Sees(owner)
}

// scriptOwnerKey is the note that namespace loaded the script sha.
func scriptOwnerKey(sha, namespace string) string {
	return scriptOwnerPrefix + sha + namespace
}

// storedScripts serializes the changes of the stored scripts and of
// their notes (SCRIPT LOAD and FLUSH) with the reads that cache a stored
// script for a namespace, so that a flush never deletes a script another
// namespace is storing.
type storedScripts struct {
	mu sync.Mutex
}

// LoadScript caches body for owner, and stores it with owner's note.
func (e *Env) LoadScript(body []byte, owner string) (*scripting.Script, error) {
	e.storedScripts.mu.Lock()
	defer e.storedScripts.mu.Unlock()
	sc, err := e.Scripts.Cache(string(body), owner)
	if err != nil {
		return nil, err
	}
	err = e.Storage.WritePropagated([]storage.PropagatedWrite{
		{Key: []byte(scriptKeyPrefix + sc.SHA), Value: body},
		{Key: []byte(scriptOwnerKey(sc.SHA, owner)), Value: []byte{}},
	})
	return sc, err
}

// StoredScript returns the script sha names (any case) that scope sees:
// cached, or stored for it (then compiled and cached). nil when there is
// none.
func (e *Env) StoredScript(sha []byte, scope scripting.Scope) *scripting.Script {
	if len(sha) != 40 {
		return nil
	}
	if sc := e.Scripts.Script(string(sha), scope); sc != nil {
		return sc
	}
	lower := strings.ToLower(string(sha))
	e.storedScripts.mu.Lock()
	defer e.storedScripts.mu.Unlock()
	body, found, err := e.Storage.GetPropagated(scriptKeyPrefix + lower)
	if err != nil || !found {
		return nil
	}
	if !scope.All {
		if _, noted, err := e.Storage.GetPropagated(scriptOwnerKey(lower, scope.Owner)); err != nil || !noted {
			return nil
		}
	}
	// The admin reading a stored script makes it no script of the
	// default namespace's: it is a copy of what storage holds.
	owner := scope.Owner
	if scope.All {
		owner = ""
	}
	sc, err := e.Scripts.Cache(string(body), owner)
	if err != nil || sc.SHA != lower {
		slog.Warn("a stored script does not compile", "sha", lower, "err", err)
		return nil
	}
	return sc
}

// FlushScripts removes the scripts scope sees: every script for the
// admin, with Kvrocks's record that makes replicas forget theirs; for a
// namespace, its notes, and the scripts no other namespace noted.
// record is the SCRIPT FLUSH command, as typed.
func (e *Env) FlushScripts(scope scripting.Scope, record []byte) error {
	e.storedScripts.mu.Lock()
	defer e.storedScripts.mu.Unlock()
	var writes []storage.PropagatedWrite
	if scope.All {
		writes = []storage.PropagatedWrite{
			{Key: []byte(scriptKeyPrefix), RangeEnd: metadata.PrefixEnd([]byte(scriptKeyPrefix))},
			{Key: []byte(scriptOwnerPrefix), RangeEnd: metadata.PrefixEnd([]byte(scriptOwnerPrefix))},
			{Key: []byte(scriptFlushKey), Value: record},
		}
	} else {
		var err error
		if writes, err = e.ownedScriptDeletes(scope.Owner); err != nil {
			return err
		}
	}
	if len(writes) > 0 {
		if err := e.Storage.WritePropagated(writes); err != nil {
			return err
		}
	}
	e.Scripts.ForgetScripts(scope)
	return nil
}

// ownedScriptDeletes are the deletes of owner's notes, and of the
// scripts only owner noted.
func (e *Env) ownedScriptDeletes(owner string) ([]storage.PropagatedWrite, error) {
	notes := map[string]int{} // by sha, how many namespaces noted it
	var mine []string
	err := e.Storage.ScanPropagated(scriptOwnerPrefix, func(key, _ []byte) error {
		rest := key[len(scriptOwnerPrefix):]
		if len(rest) < 40 {
			return nil
		}
		sha := string(rest[:40])
		notes[sha]++
		if string(rest[40:]) == owner {
			mine = append(mine, sha)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var writes []storage.PropagatedWrite
	for _, sha := range mine {
		writes = append(writes, storage.PropagatedWrite{Key: []byte(scriptOwnerKey(sha, owner)), Delete: true})
		if notes[sha] == 1 {
			writes = append(writes, storage.PropagatedWrite{Key: []byte(scriptKeyPrefix + sha), Delete: true})
		}
	}
	return writes, nil
}

// scriptNoteReplicated follows, on a replica, a propagate record the
// master wrote about a script: a deleted script or note makes the
// script unseen by the namespaces it was for.
func (e *Env) scriptNoteReplicated(r storage.WALRecord) {
	if r.Kind != storage.RecordDelete {
		return
	}
	key := string(r.Key)
	switch {
	case strings.HasPrefix(key, scriptKeyPrefix):
		e.Scripts.ForgetScript(key[len(scriptKeyPrefix):], scripting.Scope{All: true})
	case strings.HasPrefix(key, scriptOwnerPrefix) && len(key) >= len(scriptOwnerPrefix)+40:
		rest := key[len(scriptOwnerPrefix):]
		e.Scripts.ForgetScript(rest[:40], scripting.Scope{Owner: rest[40:]})
	}
}

// libraryOwners reads the notes of the libraries' namespaces.
func (e *Env) libraryOwners() (map[string]string, error) {
	owners := map[string]string{}
	err := e.Storage.ScanPropagated(libraryOwnerPrefix, func(key, value []byte) error {
		owners[string(key[len(libraryOwnerPrefix):])] = string(value)
		return nil
	})
	return owners, err
}

// libraryOwnerWrite is the write of lib's note: none for the default
// namespace's, whose note is deleted.
func libraryOwnerWrite(lib *scripting.Library) storage.PropagatedWrite {
	key := []byte(libraryOwnerPrefix + lib.Name)
	if lib.Owner == metadata.DefaultNamespace {
		return storage.PropagatedWrite{Key: key, Delete: true}
	}
	return storage.PropagatedWrite{Key: key, Value: []byte(lib.Owner)}
}
