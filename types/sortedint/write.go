package sortedint

import (
	"fmt"
	"math"
)

// Change is what SIADD or SIREM does to a key.
type Change struct {
	// IDs are the ids whose subkeys to put (SIADD) or delete (SIREM),
	// each once, in the order the command named them. The reply is their
	// number.
	IDs []uint64
	// Size is the key's size afterwards; 0 leaves a dead key (a sortedint
	// is not emptyable, FORMAT.md §3.4).
	Size uint64
}

// planAdd returns the change of SIADD ids on a key of size size held in s: the
// ids s does not hold yet. An id named twice is added once: Kvrocks counts
// it twice and grows the size by 2 for one subkey, a corrupt size Basalt
// does not write (but reads as it is).
func planAdd(s Store, size uint64, ids []uint64) (Change, error) {
	fresh, err := pick(s, ids, false)
	if err != nil {
		return Change{}, err
	}
	grown := size + uint64(len(fresh))
	if grown < size {
		grown = math.MaxUint64 // a size Kvrocks wrapped around, kept at the top
	}
	return Change{IDs: fresh, Size: grown}, nil
}

// planRemove returns the change of SIREM ids on a key of size size held in s:
// the ids s holds. An id named twice is removed once (Kvrocks counts it
// twice, and its size can wrap around below 0); the size never goes below
// 0.
func planRemove(s Store, size uint64, ids []uint64) (Change, error) {
	held, err := pick(s, ids, true)
	if err != nil {
		return Change{}, err
	}
	return Change{IDs: held, Size: size - min(size, uint64(len(held)))}, nil
}

// exists answers SIEXISTS: for each id, whether s holds it.
func exists(s Store, ids []uint64) ([]bool, error) {
	return s.Contains(subkeys(ids))
}

// pick returns the distinct ids of ids, in first-named order, that s
// holds (held) or does not hold (!held).
func pick(s Store, ids []uint64, held bool) ([]uint64, error) {
	distinct := ids
	if len(ids) > 1 {
		seen := make(map[uint64]bool, len(ids))
		distinct = make([]uint64, 0, len(ids))
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				distinct = append(distinct, id)
			}
		}
	}
	in, err := s.Contains(subkeys(distinct))
	if err != nil {
		return nil, err
	}
	if len(in) != len(distinct) {
		return nil, fmt.Errorf("sortedint: Store.Contains answered %d of %d subkeys", len(in), len(distinct))
	}
	out := distinct[:0:0]
	for i, id := range distinct {
		if in[i] == held {
			out = append(out, id)
		}
	}
	return out, nil
}
