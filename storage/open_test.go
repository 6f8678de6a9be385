package storage

import (
	"fmt"
	"testing"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/metadata"
	"github.com/linxGnu/grocksdb"
)

// openWith opens dir with the given config overrides on top of the test
// defaults.
func openWith(t testing.TB, dir string, extra ...[2]string) *Storage {
	t.Helper()
	overrides := append([][2]string{{"dir", dir}, {"rocksdb.block_cache_size", "8"}}, extra...)
	cfg, err := config.Load("", overrides)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fillLevel0 writes files level-0 files of hash fields into the default
// column family of a database opened with automatic compactions off.
func fillLevel0(t *testing.T, dir string, round, files int) {
	t.Helper()
	s := openWith(t, dir, [2]string{"rocksdb.disable_auto_compactions", "yes"})
	defer s.Close()
	db := s.DB(metadata.DefaultNamespace)
	fo := grocksdb.NewDefaultFlushOptions()
	defer fo.Destroy()
	fo.SetWait(true)
	for f := 0; f < files; f++ {
		var pairs [][]byte
		for i := 0; i < 2000; i++ {
			pairs = append(pairs, b(fmt.Sprint("f", i, ":", f)), b("value")) // every file spans the hash
		}
		if _, err := db.HSet(b(fmt.Sprint("h", round%3)), pairs, false); err != nil {
			t.Fatal(err)
		}
		for _, cf := range []CF{CFDefault, CFMetadata} {
			if err := s.db.FlushCF(s.cfs[cf].Load(), fo); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestCompactionDuringOpen opens, again and again, a database whose
// level 0 is full enough that RocksDB starts compacting the default column
// family while Open is still running: the subkey filter then looks up
// metadata of a Storage that is not built yet. Before Open guarded it,
// this crashed the process with SIGSEGV now and then.
func TestCompactionDuringOpen(t *testing.T) {
	dir := t.TempDir()
	const rounds = 8
	for r := 0; r < rounds; r++ {
		fillLevel0(t, dir, r, 6)
		s := openWith(t, dir, [2]string{"rocksdb.level0_file_num_compaction_trigger", "2"})
		// Let the compaction Open started run to its end; then the data
		// must still be there.
		deadline := time.Now().Add(time.Minute)
		for s.db.GetPropertyCF("rocksdb.num-files-at-level0", s.cfs[CFDefault].Load()) != "0" {
			if time.Now().After(deadline) {
				t.Fatalf("level 0 never compacted: %s", s.db.GetPropertyCF("rocksdb.levelstats", s.cfs[CFDefault].Load()))
			}
			time.Sleep(5 * time.Millisecond)
		}
		n, err := s.DB(metadata.DefaultNamespace).Len(b(fmt.Sprint("h", r%3)), metadata.TypeHash)
		s.Close()
		if err != nil || n != 6*2000 {
			t.Fatalf("round %d: hash has %d fields (%v)", r, n, err)
		}
	}
}

// TestFilterOfHalfBuiltStorage runs the subkey filter of a Storage that
// Open has not finished: it must keep the record rather than read
// through handles that do not exist yet.
func TestFilterOfHalfBuiltStorage(t *testing.T) {
	s := &Storage{layout: metadata.Layout{}}
	s.filters = s.newFilters()
	key := metadata.Layout{}.AppendInternalKey(nil, metadata.DefaultNamespace, b("h"), 1, b("f"))
	if drop, _ := s.filters.subkey.Filter(0, key, b("v")); drop {
		t.Fatal("the filter of a half-built Storage dropped a record")
	}
}
