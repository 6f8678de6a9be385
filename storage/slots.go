package storage

import "github.com/basaltdb/basalt/metadata"

// KeysInSlot returns up to limit live keys of a hash slot (limit < 0: all)
// and how many live keys the slot has in total. In cluster mode a slot's
// keys are one contiguous range of the metadata column family.
func (db DB) KeysInSlot(slot uint16, limit int64) (keys [][]byte, count int64, err error) {
	lower := metadata.AppendSlotPrefix(nil, db.ns, slot)
	it := db.newIterator(CFMetadata, lower, metadata.PrefixEnd(lower), nil)
	defer it.close()
	now := nowMs()
	it.SeekToFirst()
	err = it.walk(false, 0, func(nsKey, value []byte) bool {
		if k, ok := db.visible(nsKey, value, now, nil, metadata.TypeNone); ok {
			if limit < 0 || int64(len(keys)) < limit {
				keys = append(keys, k)
			}
			count++
		}
		return true
	})
	return keys, count, err
}
