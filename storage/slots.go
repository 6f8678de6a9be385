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

// SlotKeyCounts returns how many live keys each slot from..to has, in
// cluster mode, from one walk of their keys' range of the metadata column
// family: a read of every key there, no count kept beside them.
func (db DB) SlotKeyCounts(from, to uint16) ([]int64, error) {
	counts := make([]int64, int(to)-int(from)+1)
	lower := metadata.AppendSlotPrefix(nil, db.ns, from)
	upper := metadata.PrefixEnd(metadata.AppendSlotPrefix(nil, db.ns, to))
	it := db.newIterator(CFMetadata, lower, upper, nil)
	defer it.close()
	now := nowMs()
	it.SeekToFirst()
	err := it.walk(false, 0, func(nsKey, value []byte) bool {
		if k, ok := db.visible(nsKey, value, now, nil, metadata.TypeNone); ok {
			if slot := int(metadata.HashSlot(k)); slot >= int(from) && slot <= int(to) {
				counts[slot-int(from)]++
			}
		}
		return true
	})
	return counts, err
}
