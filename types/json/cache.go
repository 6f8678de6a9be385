package json

import (
	"bytes"
	"sync"

	"github.com/basaltdb/basalt/storage"
)

// docCache keeps decoded documents, so that a read of a document
// decodes it only when it changed, as Kvrocks never can: JSON.GET of a
// path in a 1 KB document then costs a metadata read and the path, not a
// parse. There is one per Storage (docs).
//
// An entry holds the stored bytes its document was decoded from and
// serves a read only when the bytes read now are the same: whatever
// wrote the key (a JSON command, DEL and a new JSON.SET, RENAME, RESTORE,
// a replica's batch), an entry is never stale, and no write needs to
// forget one. Documents in the cache are shared by concurrent reads and
// never modified: a write works on a copy (Update).
type docCache struct {
	mu    sync.RWMutex
	m     map[string]cachedDoc
	bytes int // the stored bytes of the entries
}

type cachedDoc struct {
	stored []byte
	doc    *Value
	format Format
}

// Bounds of the cache: the stored bytes of its entries (the decoded
// documents take a few times more), and the largest document kept.
const (
	maxCachedBytes = 16 << 20
	maxCachedDoc   = 64 << 10
)

// docsKey identifies the cache among what the Storage keeps for type
// packages.
type docsKey struct{}

// docs returns the cache of db's Storage.
func docs(db storage.DB) *docCache {
	return db.Storage().Shared(docsKey{}, func() any { return &docCache{m: map[string]cachedDoc{}} }).(*docCache)
}

// decode is Decode of the value stored under nsKey, from the cache when
// it holds these bytes. The document returned must not be modified.
func (c *docCache) decode(nsKey, stored []byte) (*Value, Format, error) {
	c.mu.RLock()
	e, ok := c.m[string(nsKey)]
	c.mu.RUnlock()
	if ok && bytes.Equal(e.stored, stored) {
		return e.doc, e.format, nil
	}
	doc, format, err := Decode(stored)
	if err == nil {
		c.add(nsKey, append([]byte(nil), stored...), doc, format)
	}
	return doc, format, err
}

// add keeps doc, decoded from (or encoded as) stored, which the cache
// may keep, for nsKey; random entries make room past the bound.
func (c *docCache) add(nsKey, stored []byte, doc *Value, format Format) {
	if len(stored) > maxCachedDoc {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[string(nsKey)]; ok {
		c.bytes -= len(old.stored)
		delete(c.m, string(nsKey))
	}
	for k, e := range c.m {
		if c.bytes+len(stored) <= maxCachedBytes {
			break
		}
		c.bytes -= len(e.stored)
		delete(c.m, k)
	}
	c.m[string(nsKey)] = cachedDoc{stored: stored, doc: doc, format: format}
	c.bytes += len(stored)
}
