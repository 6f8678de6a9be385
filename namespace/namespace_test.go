package namespace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/storage"
)

// open starts a registry over dir, with the config file path ("" for none)
// and overrides; close releases it.
func open(t *testing.T, dir, path string, overrides ...[2]string) (r *Registry, close func(), err error) {
	t.Helper()
	overrides = append([][2]string{{"dir", dir}, {"rocksdb.block_cache_size", "8"}, {"requirepass", "admin"}}, overrides...)
	cfg, err := config.Load(path, overrides)
	if err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err = Open(cfg, st)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return r, st.Close, nil
}

// TestTokensWhereKvrocksKeepsThem: in the config file, or with
// repl-namespace-enabled in the database; with neither, changes are
// refused, so a data directory never holds tokens that Kvrocks started
// without repl-namespace-enabled would refuse to open.
func TestTokensWhereKvrocksKeepsThem(t *testing.T) {
	replOn := [2]string{"repl-namespace-enabled", "yes"}

	t.Run("NoConfigFile", func(t *testing.T) {
		r, close, err := open(t, t.TempDir(), "")
		if err != nil {
			t.Fatal(err)
		}
		defer close()
		for name, err := range map[string]error{
			"ADD": r.Add("ns", "tok"), "SET": r.Set("ns", "tok"), "DEL": r.Del("ns"),
		} {
			if !errors.Is(err, ErrCannotModify) {
				t.Errorf("NAMESPACE %s without a config file: %v, want %v", name, err, ErrCannotModify)
			}
		}
	})

	t.Run("ConfigFile", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(t.TempDir(), "basalt.conf")
		if err := os.WriteFile(path, []byte("requirepass admin\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r, close, err := open(t, dir, path)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Add("ns", "tok"); err != nil {
			t.Fatal(err)
		}
		_, found, err := r.st.GetPropagated(dbKey)
		close()
		if err != nil || found {
			t.Errorf("tokens in the database without repl-namespace-enabled: found %v, %v", found, err)
		}
		text, _ := os.ReadFile(path)
		if !strings.Contains(string(text), "namespace.ns tok\n") {
			t.Errorf("config file after NAMESPACE ADD:\n%s", text)
		}
	})

	t.Run("ReplNamespaceEnabled", func(t *testing.T) {
		dir := t.TempDir()
		r, close, err := open(t, dir, "", replOn)
		if err != nil {
			t.Fatal(err)
		}
		// JSON holds UTF-8 only: another byte would come back as U+FFFD.
		if err := r.Add("ns", "a\xffb"); !errors.Is(err, ErrNotUTF8) {
			t.Errorf("a token that is not UTF-8: %v, want %v", err, ErrNotUTF8)
		}
		if err := r.Add("ns", "tok"); err != nil {
			t.Fatal(err)
		}
		raw, found, err := r.st.GetPropagated(dbKey)
		close()
		if err != nil || !found || string(raw) != `{"tok":"ns"}` {
			t.Fatalf("%s = %q, %v, %v", dbKey, raw, found, err)
		}
		r, close, err = open(t, dir, "", replOn)
		if err != nil {
			t.Fatal(err)
		}
		if ns, ok := r.Lookup([]byte("tok")); !ok || ns != "ns" {
			t.Errorf("after reopening, token tok opens %q, %v", ns, ok)
		}
		close()
		// Switching the option off is refused, as Kvrocks refuses it.
		if _, _, err := open(t, dir, ""); !errors.Is(err, ErrTokensInDB) {
			t.Errorf("reopening without repl-namespace-enabled: %v, want %v", err, ErrTokensInDB)
		}
	})
}

// TestReplNamespaceEnabledLive: CONFIG SET repl-namespace-enabled moves the
// tokens as Kvrocks does: on, into the database and out of the file; off
// only while the database holds none, else refused and left on.
func TestReplNamespaceEnabledLive(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(t.TempDir(), "basalt.conf")
	if err := os.WriteFile(path, []byte("requirepass admin\nnamespace.ns1 tok1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, close, err := open(t, dir, path)
	if err != nil {
		t.Fatal(err)
	}
	defer close()
	// Off to off: nothing to do.
	if err := r.cfg.Set("repl-namespace-enabled", "no"); err != nil {
		t.Fatal(err)
	}
	if err := r.cfg.Set("repl-namespace-enabled", "yes"); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	if strings.Contains(string(text), "namespace.ns1") || !strings.Contains(string(text), "repl-namespace-enabled yes") {
		t.Fatalf("file after turning it on:\n%s", text)
	}
	stored, err := r.load()
	if err != nil || stored["tok1"] != "ns1" {
		t.Fatalf("tokens in the database: %v %v", stored, err)
	}
	var setErr *config.SetError
	if err := r.cfg.Set("repl-namespace-enabled", "no"); !errors.As(err, &setErr) || setErr.Text != ErrTokensStayInDB.Error() || !r.cfg.ReplNamespaceEnabled.Get() {
		t.Fatalf("turning it off with tokens in the database: %v, now %v", err, r.cfg.ReplNamespaceEnabled.Get())
	}
	if token, ok := r.Get("ns1"); !ok || token != "tok1" {
		t.Fatalf("ns1 after the refusal: %q %v", token, ok)
	}
}

// TestReplNamespaceEnabledOnReplica: a replica that turns
// repl-namespace-enabled on serves the tokens its master wrote in the
// database, and writes nothing itself (its sequence numbers must stay its
// master's); off again is refused while they are there.
func TestReplNamespaceEnabledOnReplica(t *testing.T) {
	path := filepath.Join(t.TempDir(), "basalt.conf")
	if err := os.WriteFile(path, []byte("requirepass admin\nslaveof 127.0.0.1 6379\nnamespace.own ownTok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, close, err := open(t, t.TempDir(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer close()
	// What the master's batch wrote, applied while the setting was off.
	if err := r.st.PutPropagated(dbKey, []byte(`{"tok1":"ns1","tok2":"ns2"}`)); err != nil {
		t.Fatal(err)
	}
	seq := r.st.LatestSequence()
	if err := r.cfg.Set("repl-namespace-enabled", "yes"); err != nil {
		t.Fatal(err)
	}
	if got := r.st.LatestSequence(); got != seq {
		t.Errorf("the replica wrote: sequence %d, was %d", got, seq)
	}
	for ns, want := range map[string]string{"ns1": "tok1", "ns2": "tok2"} {
		if token, ok := r.Get(ns); !ok || token != want {
			t.Errorf("%s on the replica: %q %v, want %q", ns, token, ok, want)
		}
	}
	if _, ok := r.Get("own"); ok {
		t.Error("the replica kept a token of its own beside its master's")
	}
	var setErr *config.SetError
	if err := r.cfg.Set("repl-namespace-enabled", "no"); !errors.As(err, &setErr) || setErr.Text != ErrTokensStayInDB.Error() {
		t.Errorf("turning it off with the master's tokens in the database: %v", err)
	}
}

// TestReplicaStartsWithoutWriting: a replica started with
// repl-namespace-enabled and tokens in its config file serves them until
// its master's arrive, but writes none to its database nor drops them from
// the file.
func TestReplicaStartsWithoutWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "basalt.conf")
	if err := os.WriteFile(path, []byte("requirepass admin\nslaveof 127.0.0.1 6379\nrepl-namespace-enabled yes\nnamespace.own ownTok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, close, err := open(t, t.TempDir(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer close()
	if seq := r.st.LatestSequence(); seq != 0 {
		t.Errorf("the replica wrote at start: sequence %d", seq)
	}
	if token, ok := r.Get("own"); !ok || token != "ownTok" {
		t.Errorf("own on the replica: %q %v", token, ok)
	}
	if text, _ := os.ReadFile(path); !strings.Contains(string(text), "namespace.own ownTok") {
		t.Errorf("the replica dropped its token from its file:\n%s", text)
	}
}

// TestReplNamespaceEnabledKeepsStored: a former replica that applied its
// master's tokens while the option was off keeps them beside its own when
// it turns the option on as a master.
func TestReplNamespaceEnabledKeepsStored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "basalt.conf")
	if err := os.WriteFile(path, []byte("requirepass admin\nnamespace.own ownTok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, close, err := open(t, t.TempDir(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer close()
	if err := r.st.PutPropagated(dbKey, []byte(`{"tok1":"ns1"}`)); err != nil {
		t.Fatal(err)
	}
	if err := r.cfg.Set("repl-namespace-enabled", "yes"); err != nil {
		t.Fatal(err)
	}
	stored, err := r.load()
	if err != nil || stored["tok1"] != "ns1" || stored["ownTok"] != "own" || len(stored) != 2 {
		t.Errorf("tokens in the database: %v %v", stored, err)
	}
}
