package rdb

import "hash/maphash"

// arena holds copies of elements until their chunk is flushed: blocks of
// memory that are filled, never grown (the copies alias them), and reused
// once the chunk is gone.
type arena struct {
	blocks [][]byte
	cur    int // the block being filled
}

const arenaBlock = 256 << 10

// copy returns a copy of b in the arena.
func (a *arena) copy(b []byte) []byte {
	for a.cur < len(a.blocks) && cap(a.blocks[a.cur])-len(a.blocks[a.cur]) < len(b) {
		a.cur++
	}
	if a.cur == len(a.blocks) {
		a.blocks = append(a.blocks, make([]byte, 0, max(arenaBlock, len(b))))
	}
	blk := a.blocks[a.cur]
	start := len(blk)
	blk = append(blk, b...)
	a.blocks[a.cur] = blk
	return blk[start:len(blk):len(blk)]
}

// reset empties the arena, keeping its ordinary blocks.
func (a *arena) reset() {
	kept := a.blocks[:0]
	for _, b := range a.blocks {
		if cap(b) == arenaBlock {
			kept = append(kept, b[:0])
		}
	}
	a.blocks, a.cur = kept, 0
}

// dedup remembers the members of a collection read in chunks, by a
// 128-bit hash of each (two seeded 64-bit hashes), so that a member that
// repeats is found without keeping the members themselves. Two distinct
// members share a hash with a probability of 2^-128 per pair.
type dedup struct {
	seeds [2]maphash.Seed
	seen  map[[2]uint64]struct{}
}

func newDedup() *dedup {
	return &dedup{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, seen: map[[2]uint64]struct{}{}}
}

// add records m and reports false when it was seen before.
func (d *dedup) add(m []byte) bool {
	h := [2]uint64{maphash.Bytes(d.seeds[0], m), maphash.Bytes(d.seeds[1], m)}
	if _, dup := d.seen[h]; dup {
		return false
	}
	d.seen[h] = struct{}{}
	return true
}

// reset forgets every member.
func (d *dedup) reset() { clear(d.seen) }
