package timeseries

import (
	"bytes"
	"slices"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// The label index is kept by an Indexer (storage/indexer.go): every
// batch that writes a series's metadata record, whichever command's
// (TS.CREATE and TS.ALTER, but also RENAME, COPY, MOVE and RESTORE, which
// copy the label subkeys), gets the index entries its labels call for.
// An entry of a series that is deleted, expires or is overwritten by
// another type is left behind: multi-series reads check every entry
// against the live series, and the compaction filter drops it.

func init() { storage.RegisterIndexer(maintainIndex) }

// labelWrite is a label subkey a batch writes.
type labelWrite struct {
	version uint64
	label   Label
	deleted bool
}

// seriesWrite is a series's metadata record a batch writes, with its
// label subkeys.
type seriesWrite struct {
	ns, key []byte
	version uint64
	labels  []labelWrite
}

func maintainIndex(db storage.DB, b storage.Batch) (func(error), error) {
	layout := db.Storage().Layout()
	var writes []*seriesWrite
	b.Records(func(cf storage.CF, key, value []byte, deleted bool) {
		if cf != storage.CFMetadata || deleted || len(value) == 0 || metadata.Type(value[0]&0x0f) != TypeNumber {
			return
		}
		ns, k, err := layout.ParseNSKey(key)
		if err != nil {
			return
		}
		if m, _, err := metadata.Decode(value); err == nil {
			writes = append(writes, &seriesWrite{ns: ns, key: k, version: m.Version})
		}
	})
	if len(writes) == 0 {
		return nil, nil // most batches: no series
	}
	b.Records(func(cf storage.CF, key, value []byte, deleted bool) {
		if cf != storage.CFDefault {
			return
		}
		ik, err := layout.ParseInternalKey(key)
		if err != nil || len(ik.Sub) < 2 || ik.Sub[0] != kindLabel {
			return
		}
		for _, w := range writes {
			if w.version == ik.Version && bytes.Equal(w.key, ik.Key) && bytes.Equal(w.ns, ik.Namespace) {
				w.labels = append(w.labels, labelWrite{ik.Version, Label{Name: ik.Sub[1:], Value: value}, deleted})
			}
		}
	})
	var index []Change
	for _, w := range writes {
		changes, err := w.indexChanges(db.Sibling(string(w.ns)))
		if err != nil {
			return nil, err
		}
		index = append(index, changes...)
	}
	if len(index) == 0 {
		return nil, nil
	}
	if err := db.Storage().EnsureIndexCF(); err != nil {
		return nil, err
	}
	for _, c := range index {
		if c.Delete {
			b.Delete(storage.CFIndex, c.Subkey)
		} else {
			b.Put(storage.CFIndex, c.Subkey, c.Value)
		}
	}
	return nil, nil
}

// indexChanges are the index entries to put and delete for w: from the
// labels the series had (the same incarnation's, as stored before the
// batch) to those it has after.
func (w *seriesWrite) indexChanges(db storage.DB) ([]Change, error) {
	if len(w.labels) == 0 {
		return nil, nil // a sample's write: the labels stay
	}
	var before []Label
	o, err := db.Lookup(w.key)
	if err != nil {
		return nil, err
	}
	if o != nil && o.Meta().Type == TypeNumber && o.Meta().Version == w.version {
		s, err := asSeries(o, nil, ErrWrongType)
		if err != nil {
			return nil, err
		}
		before = s.labels
	}
	after := slices.Clone(before)
	for _, l := range w.labels {
		i, found := slices.BinarySearchFunc(after, l.label.Name, func(a Label, name []byte) int { return bytes.Compare(a.Name, name) })
		switch {
		case l.deleted && found:
			after = slices.Delete(after, i, i+1)
		case !l.deleted && found:
			after[i] = l.label
		case !l.deleted:
			after = slices.Insert(after, i, l.label)
		}
	}
	_, index := LabelChanges(db.Namespace(), w.key, before, after)
	return index, nil
}
