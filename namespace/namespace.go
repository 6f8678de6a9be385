// Package namespace keeps the token -> namespace registry of FORMAT.md §7:
// the tokens of the config file's namespace.<name> lines and of NAMESPACE
// ADD/SET/DEL, persisted where Kvrocks keeps them, so that either server
// opens the other's data directory with the same settings: in the config
// file, or with repl-namespace-enabled in the propagate column family. With
// neither, NAMESPACE ADD/SET/DEL are refused, as Kvrocks refuses them.
package namespace

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// dbKey is where the tokens live in the propagate column family, as a JSON
// object token -> namespace.
const dbKey = "__namespace_keys__"

// The errors NAMESPACE replies with, after "ERR ", as Kvrocks words them.
var (
	ErrNamespaceExists   = errors.New("the namespace already exists")
	ErrTokenExists       = errors.New("the token already exists")
	ErrNotFound          = errors.New("the namespace was not found")
	ErrRequirePassEmpty  = errors.New("forbidden to add namespace when requirepass was empty")
	ErrClusterMode       = errors.New("forbidden to add namespace when cluster mode was enabled")
	ErrDatabasesMode     = errors.New("forbidden to add namespace when redis-databases was enabled")
	ErrAddDefault        = errors.New("forbidden to add the default namespace")
	ErrModifyDefault     = errors.New("forbidden to modify the default namespace")
	ErrDeleteDefault     = errors.New("forbidden to delete the default namespace")
	ErrTokenIsPassword   = errors.New("the token is duplicated with requirepass or masterauth")
	ErrNamespaceTooLong  = errors.New("the namespace size exceeds the limit of 255 bytes")
	ErrNamespaceBadByte  = errors.New("the namespace must not end with byte 0x7F")
	ErrEmptyNamespaceArg = errors.New("the namespace and the token must not be empty")
	// ErrNotUTF8: the database keeps tokens as a JSON object, which holds
	// UTF-8 only (encoding/json would turn other bytes into U+FFFD, and
	// Kvrocks crashes at start on such a record).
	ErrNotUTF8 = errors.New("the namespace and the token must be valid UTF-8 with repl-namespace-enabled")
	// ErrCannotModify: no config file and no repl-namespace-enabled, so no
	// place Kvrocks would read the tokens from.
	ErrCannotModify = errors.New("modify namespace requires the server is running with a configuration file or enabled namespace replication")
	// ErrTokensInDB: the database holds tokens that a server without
	// repl-namespace-enabled would ignore; Kvrocks refuses to start on it.
	ErrTokensInDB = errors.New("namespace: the database holds namespace tokens (propagate column family, " + dbKey + ") but repl-namespace-enabled is no; start with repl-namespace-enabled yes (Kvrocks refuses this too: cannot switch off repl_namespace_enabled when namespaces exist in db)")
)

// Registry maps tokens to namespaces. It is safe for concurrent use.
type Registry struct {
	cfg *config.Config
	st  *storage.Storage

	mu sync.Mutex // serialises changes and their persistence
}

// Open builds the registry from the config's tokens and, when tokens are
// kept in the database, merges the database's (the config wins for a
// namespace both have). A database holding tokens without
// repl-namespace-enabled is refused (ErrTokensInDB), as Kvrocks does.
func Open(cfg *config.Config, st *storage.Storage) (*Registry, error) {
	r := &Registry{cfg: cfg, st: st}
	stored, err := r.load()
	if err != nil {
		return nil, err
	}
	if len(stored) > 0 && !r.inDB() {
		return nil, ErrTokensInDB
	}
	have := cfg.Namespaces()
	r.keepStored(stored)
	if len(have) > 0 && r.inDB() && !r.onReplica() {
		// The config's tokens move into the database; with a config file
		// (repl-namespace-enabled), its namespace lines are dropped. A
		// replica's tokens come from its master.
		if err := r.persist(); err != nil {
			return nil, err
		}
		if cfg.Path() != "" {
			if err := cfg.Rewrite(); err != nil {
				return nil, err
			}
		}
	}
	cfg.Hook("repl-namespace-enabled", r.moveTokens)
	return r, nil
}

// ErrTokensStayInDB refuses to turn repl-namespace-enabled off while the
// database holds tokens, in Kvrocks's words: a server started so would
// refuse the database (ErrTokensInDB).
var ErrTokensStayInDB = errors.New("cannot switch off repl_namespace_enabled when namespaces exist in db")

// moveTokens follows a CONFIG SET of repl-namespace-enabled, as Kvrocks
// does: turned on, the tokens go into the database and the config file
// loses its namespace lines; turned off, which it may only be while the
// database holds no tokens, the file gets them back. A replica turning it
// on takes the tokens its master wrote in the database and writes none:
// a write of its own would put its sequence numbers past its master's.
func (r *Registry) moveTokens() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	stored, err := r.load()
	if err != nil {
		return err
	}
	switch {
	case !r.inDB() && len(stored) > 0:
		return ErrTokensStayInDB
	case r.inDB() && r.onReplica():
		r.replaceWith(stored)
	case r.inDB():
		// Tokens a former replica applied while it was off stay.
		r.keepStored(stored)
		if err := r.persist(); err != nil {
			return err
		}
	}
	if r.cfg.Path() != "" {
		return r.cfg.Rewrite()
	}
	return nil
}

// keepStored adds the database's tokens of the namespaces the config does
// not name.
func (r *Registry) keepStored(stored map[string]string) {
	have := r.cfg.Namespaces()
	for token, ns := range stored {
		if _, ok := have[ns]; !ok {
			r.cfg.SetNamespace(ns, token)
		}
	}
}

// replaceWith makes the database's tokens the only ones.
func (r *Registry) replaceWith(stored map[string]string) {
	want := make(map[string]string, len(stored))
	for token, ns := range stored {
		want[ns] = token
	}
	for ns := range r.cfg.Namespaces() {
		if _, ok := want[ns]; !ok {
			r.cfg.DeleteNamespace(ns)
		}
	}
	for ns, token := range want {
		r.cfg.SetNamespace(ns, token)
	}
}

// onReplica reports whether the node follows a master: its slaveof names
// one (SLAVEOF and a cluster topology set it, SLAVEOF NO ONE clears it).
func (r *Registry) onReplica() bool {
	f := strings.Fields(r.cfg.SlaveOf.Get())
	return len(f) == 2 && !(strings.EqualFold(f[0], "no") && strings.EqualFold(f[1], "one"))
}

// inDB reports whether the tokens are kept in the database, which they are
// with repl-namespace-enabled only: Kvrocks started without it refuses a
// database that holds tokens, and reads them from its config file only.
func (r *Registry) inDB() bool {
	return r.cfg.ReplNamespaceEnabled.Get()
}

// canModify reports whether there is a place to keep tokens: the database
// or the config file.
func (r *Registry) canModify() bool {
	return r.inDB() || r.cfg.Path() != ""
}

func (r *Registry) load() (map[string]string, error) {
	raw, found, err := r.st.GetPropagated(dbKey)
	if err != nil || !found {
		return nil, err
	}
	var stored map[string]string
	if err := json.Unmarshal(raw, &stored); err != nil {
		return nil, fmt.Errorf("namespace: decoding %s: %w", dbKey, err)
	}
	return stored, nil
}

// DBKey is the key of the propagate column family that holds the tokens
// with repl-namespace-enabled: a replica that applies a write of it
// reloads them (Reload).
const DBKey = dbKey

// Reload replaces the tokens with the database's, as a replica does after
// it applied its master's (with repl-namespace-enabled; otherwise it does
// nothing).
func (r *Registry) Reload() error {
	if !r.inDB() {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	stored, err := r.load()
	if err != nil {
		return err
	}
	r.replaceWith(stored)
	return nil
}

// Lookup returns the namespace of token. It compares in constant time
// with every token, so the time it takes says nothing about them.
func (r *Registry) Lookup(token []byte) (string, bool) {
	found := ""
	for ns, t := range r.cfg.Namespaces() {
		if subtle.ConstantTimeCompare(token, []byte(t)) == 1 {
			found = ns
		}
	}
	return found, found != ""
}

// Get returns the token of namespace ns.
func (r *Registry) Get(ns string) (string, bool) {
	token, ok := r.cfg.Namespaces()[ns]
	return token, ok
}

// List returns every (namespace, token) pair, sorted by namespace.
func (r *Registry) List() [][2]string {
	m := r.cfg.Namespaces()
	out := make([][2]string, 0, len(m))
	for ns, token := range m {
		out = append(out, [2]string{ns, token})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// Add creates namespace ns with token.
func (r *Registry) Add(ns, token string) error {
	return r.change(ns, token, ErrAddDefault, func(tokens map[string]string) error {
		if _, ok := tokens[ns]; ok {
			return ErrNamespaceExists
		}
		return nil
	})
}

// Set gives namespace ns a new token, creating it when absent. As in
// Kvrocks, a token another namespace holds moves to ns, and that
// namespace is gone.
func (r *Registry) Set(ns, token string) error {
	return r.change(ns, token, ErrModifyDefault, func(tokens map[string]string) error {
		for other, t := range tokens {
			if t == token && other != ns {
				r.cfg.DeleteNamespace(other)
			}
		}
		return nil
	})
}

// Del removes namespace ns. Its keys stay in the database.
func (r *Registry) Del(ns string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.canModify() {
		return ErrCannotModify
	}
	if ns == metadata.DefaultNamespace {
		return ErrDeleteDefault
	}
	if _, ok := r.cfg.Namespaces()[ns]; !ok {
		return ErrNotFound
	}
	r.cfg.DeleteNamespace(ns)
	return r.persist()
}

// change validates and applies a new token for ns; check adds the
// operation's own condition (and may free the token), errDefault is its
// error for the default namespace.
func (r *Registry) change(ns, token string, errDefault error, check func(map[string]string) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.canModify() {
		return ErrCannotModify
	}
	if ns == metadata.DefaultNamespace {
		return errDefault
	}
	if err := r.validate(ns, token); err != nil {
		return err
	}
	tokens := r.cfg.Namespaces()
	if err := check(tokens); err != nil {
		return err
	}
	for other, t := range r.cfg.Namespaces() {
		if t == token && other != ns {
			return ErrTokenExists
		}
	}
	r.cfg.SetNamespace(ns, token)
	return r.persist()
}

func (r *Registry) validate(ns, token string) error {
	switch {
	case ns == "" || token == "":
		return ErrEmptyNamespaceArg
	case len(ns) > 255:
		return ErrNamespaceTooLong
	case ns[len(ns)-1] == 0x7f:
		return ErrNamespaceBadByte
	case r.cfg.RequirePass.Get() == "":
		return ErrRequirePassEmpty
	case r.cfg.ClusterEnabled.Get():
		return ErrClusterMode
	case r.cfg.RedisDatabases.Get() > 0:
		// Databases are namespaces (db<n>): a tenant's would mix in.
		return ErrDatabasesMode
	case token == r.cfg.RequirePass.Get():
		return ErrTokenIsPassword
	case r.inDB() && (!utf8.ValidString(ns) || !utf8.ValidString(token)):
		return ErrNotUTF8
	}
	return nil
}

// persist writes the tokens where they are kept.
func (r *Registry) persist() error {
	if !r.inDB() {
		return r.cfg.Rewrite()
	}
	tokens := map[string]string{}
	for ns, token := range r.cfg.Namespaces() {
		if !utf8.ValidString(ns) || !utf8.ValidString(token) {
			return fmt.Errorf("namespace %q: %w", ns, ErrNotUTF8)
		}
		tokens[token] = ns
	}
	raw, err := json.Marshal(tokens)
	if err != nil {
		return fmt.Errorf("namespace: %w", err)
	}
	return r.st.PutPropagated(dbKey, raw)
}
