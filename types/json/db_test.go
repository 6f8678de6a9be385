package json

import (
	"testing"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/storage"
	"github.com/basaltdb/basalt/storage/storagetest"
)

// A read serves the cached document only while the stored bytes are the
// ones it was decoded from, whoever wrote them; a write works on a copy;
// a document that would not decode as written (an infinite number, null
// in JSON text) is not cached as written.
func TestDocCache(t *testing.T) {
	s := storagetest.Open(t)
	key := []byte("doc")
	update := func(args ...string) reply.Value {
		t.Helper()
		var v reply.Value
		var err error
		uerr := s.Update(&storage.Write{NS: metadata.DefaultNamespace, Keys: [][]byte{key}}, func(db storage.DB) {
			v, err = Update(db, key, bargs(args), Set)
		})
		if uerr != nil || err != nil {
			t.Fatalf("JSON.SET %q: %v %v", args, uerr, err)
		}
		return v
	}
	get := func(path string) string {
		t.Helper()
		v, err := Read(s.DB(metadata.DefaultNamespace), key, func(doc *Value, _ Format, _ Config) (reply.Value, error) {
			return Get(doc, bargs([]string{path}))
		})
		if err != nil {
			t.Fatalf("JSON.GET %s: %v", path, err)
		}
		return v.Str
	}
	update("$", `{"a":[1,2],"b":"x"}`)
	if got := get("$.a"); got != "[[1,2]]" {
		t.Fatalf("after SET: %s", got)
	}
	cache := docs(s.DB(metadata.DefaultNamespace))
	nsKey := s.DB(metadata.DefaultNamespace).NewObject(key, metadata.TypeJSON).NSKey()
	cached := cache.m[string(nsKey)].doc
	if cached == nil {
		t.Fatal("the document written is not cached")
	}
	update("$.a[0]", "7")
	if got := get("$.a"); got != "[[7,2]]" {
		t.Errorf("after SET of a member: %s", got)
	}
	if Equal(cached, cache.m[string(nsKey)].doc) || string(Text(cached)) != `{"a":[1,2],"b":"x"}` {
		t.Errorf("the write changed the cached document: %s", Text(cached))
	}
	// Bytes written around the package (a replica's batch, RESTORE).
	err := s.Update(&storage.Write{NS: metadata.DefaultNamespace, Keys: [][]byte{key}}, func(db storage.DB) {
		o := db.NewObject(key, metadata.TypeJSON)
		b := db.NewBatch(nil)
		b.Put(storage.CFMetadata, o.NSKey(), append(o.Meta().AppendTo(nil), append([]byte{0}, `{"c":true}`...)...))
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := get("$"); got != `[{"c":true}]` {
		t.Errorf("after a write around the cache: %s", got)
	}
	update("$", "[1e400]")
	if got := get("$"); got != "[[null]]" {
		t.Errorf("an infinite number written as JSON text reads %s, want null", got)
	}
	// Nested as deep as Decode reads, and one deeper.
	for _, depth := range []int{DefaultMaxDepth, DefaultMaxDepth + 1} {
		root := NewArray()
		for i := 1; i < depth; i++ {
			root = &Value{Kind: KindArray, Elems: []*Value{root}}
		}
		if got, want := decodesAs(root, 0), depth <= DefaultMaxDepth; got != want {
			t.Errorf("decodesAs of %d arrays: %v", depth, got)
		}
		_, _, err := Decode(Encode(root, FormatJSON))
		if (err == nil) != (depth <= DefaultMaxDepth) {
			t.Errorf("Decode of %d arrays: %v", depth, err)
		}
	}
}

func bargs(args []string) [][]byte {
	out := make([][]byte, len(args))
	for i, a := range args {
		out[i] = []byte(a)
	}
	return out
}
