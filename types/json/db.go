package json

import (
	"errors"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/storage"
)

// The commands on the engine (storage.DB): a JSON key is one metadata
// record, its header, the format byte and the payload (FORMAT.md §4.11).
// A command reads the record, decodes the document, runs on it, and a
// write encodes the whole document again in the configured format, as
// Kvrocks does, keeping the key's TTL. Every write of a document goes
// through put.

// ConfigOf is what the commands take from the server's configuration as
// it is now (both keys may change at run time).
func ConfigOf(c *config.Config) Config {
	f, _ := ParseFormat(c.JSONStorageFormat.Get())
	return Config{MaxDepth: int(c.JSONMaxNestingDepth.Get()), Format: f}
}

// decode returns the document of o (nil: absent), which must not be
// modified (it may be the cache's), and its stored format;
// storage.ErrWrongType for a live key of another type, and an error
// wrapping ErrBadStored for a value that does not decode.
func decode(db storage.DB, o *storage.Object) (*Value, Format, error) {
	if o == nil {
		return nil, 0, nil
	}
	if o.Meta().Type != metadata.TypeJSON {
		return nil, 0, storage.ErrWrongType
	}
	return docs(db).decode(o.NSKey(), o.Ext())
}

// decodeForWrite is decode of a key a write may change: a copy of the
// document, which the write may modify (nil for a new key).
func decodeForWrite(db storage.DB, o *storage.Object) (*Value, error) {
	if !o.Exists() {
		return nil, nil
	}
	doc, _, err := decode(db, o)
	if err != nil {
		return nil, err
	}
	return doc.Clone(), nil
}

// A ReadFunc is a command that reads a document (nil: no key) stored in
// format stored.
type ReadFunc func(doc *Value, stored Format, cfg Config) (reply.Value, error)

// A WriteFunc is a command that may change a document (nil: no key).
type WriteFunc func(doc *Value, args [][]byte, cfg Config) (Result, error)

// Read runs fn on the document at key.
func Read(db storage.DB, key []byte, fn ReadFunc) (reply.Value, error) {
	o, err := db.Lookup(key)
	if err != nil {
		return reply.Value{}, err
	}
	doc, stored, err := decode(db, o)
	if err != nil {
		return reply.Value{}, err
	}
	return fn(doc, stored, ConfigOf(db.Storage().Config()))
}

// Update runs fn with args on the document at key and writes the
// document it returns (deletes the key for a nil one). It runs under the
// key's lock, with db bound to the write.
func Update(db storage.DB, key []byte, args [][]byte, fn WriteFunc) (reply.Value, error) {
	o, err := db.LookupOrNew(key, metadata.TypeJSON)
	if err != nil {
		return reply.Value{}, err
	}
	doc, err := decodeForWrite(db, o)
	if err != nil {
		return reply.Value{}, err
	}
	cfg := ConfigOf(db.Storage().Config())
	res, err := fn(doc, args, cfg)
	if err != nil || !res.Write {
		return res.Reply, err
	}
	b := db.NewBatch(storage.TypeLog(metadata.TypeJSON))
	put(db, b, o, res.Root, cfg.Format)
	return res.Reply, b.Commit()
}

// put adds to b, the batch of a write through db, the write of root as
// the document of o's key, encoded in format f, or the key's deletion
// for a nil root; root is not modified afterwards. Every JSON write goes
// through here, one call per key written: what must follow a change of a
// document (an index over documents) hooks in here.
func put(db storage.DB, b storage.Batch, o *storage.Object, root *Value, f Format) {
	if root == nil {
		if o.Exists() {
			b.Delete(storage.CFMetadata, o.NSKey())
		}
		return
	}
	// One buffer for the record, sized for a document like the one
	// replaced: the header, then the stored document, which the cache
	// keeps (neither it nor the batch modifies it).
	header := o.Meta().AppendTo(make([]byte, 0, 64+len(o.Ext())+len(o.Ext())/8))
	value := appendEncoded(header, root, f)
	stored := value[len(header):]
	b.Put(storage.CFMetadata, o.NSKey(), value)
	if decodesAs(root, 0) {
		// The next read of the key finds the document decoded.
		docs(db).add(o.NSKey(), stored, root, f)
	}
}

// decodesAs reports whether v, inside depth containers, decodes as v once
// encoded: not when it holds an infinite number (JSON text writes null
// for one), nor when it is nested deeper than Decode reads (a document
// json-max-nesting-depth past 1024 let through, which Kvrocks cannot
// read back either).
func decodesAs(v *Value, depth int) bool {
	switch v.Kind {
	case KindFloat:
		return finite(v.Float)
	case KindArray:
		if depth >= DefaultMaxDepth {
			return false
		}
		for _, e := range v.Elems {
			if !decodesAs(e, depth+1) {
				return false
			}
		}
	case KindObject:
		if depth >= DefaultMaxDepth {
			return false
		}
		for _, m := range v.Fields {
			if !decodesAs(m.Val, depth+1) {
				return false
			}
		}
	}
	return true
}

// MGet is JSON.MGET key [key ...] path: for each key, the JSON text of
// the path's matches, nil for a missing key or one of another type.
func MGet(db storage.DB, keys [][]byte, path []byte) (reply.Value, error) {
	if _, err := compilePath(path); err != nil {
		return reply.Value{}, err
	}
	out := make([]reply.Value, len(keys))
	err := db.LookupMany(nil, keys, func(i int, o *storage.Object) error {
		doc, _, err := decode(db, o)
		if errors.Is(err, storage.ErrWrongType) {
			doc, err = nil, nil
		}
		if err != nil {
			return err
		}
		out[i], err = MGetOne(doc, path)
		return err
	})
	if err != nil {
		return reply.Value{}, err
	}
	return rArray(out), nil
}

// MSet is JSON.MSET key path value [key path value ...]: JSON.SET of each
// triple in order, a key's later triples on what its earlier ones made,
// all written together or, at the first error, none.
func MSet(db storage.DB, args [][]byte) (reply.Value, error) {
	if len(args) == 0 || len(args)%3 != 0 {
		return reply.Value{}, ErrArity
	}
	cfg := ConfigOf(db.Storage().Config())
	type pending struct {
		o   *storage.Object
		doc *Value
	}
	var keys []*pending // in order of first appearance
	byKey := map[string]*pending{}
	for i := 0; i < len(args); i += 3 {
		p := byKey[string(args[i])]
		if p == nil {
			o, err := db.LookupOrNew(args[i], metadata.TypeJSON)
			if err != nil {
				return reply.Value{}, err
			}
			p = &pending{o: o}
			if p.doc, err = decodeForWrite(db, o); err != nil {
				return reply.Value{}, err
			}
			byKey[string(args[i])] = p
			keys = append(keys, p)
		}
		res, err := Set(p.doc, args[i+1:i+3], cfg)
		if err != nil {
			return reply.Value{}, err
		}
		if res.Write {
			p.doc = res.Root
		}
	}
	b := db.NewBatch(storage.TypeLog(metadata.TypeJSON))
	for _, p := range keys {
		if p.doc != nil {
			put(db, b, p.o, p.doc, cfg.Format)
		}
	}
	return rOK(), b.Commit()
}
