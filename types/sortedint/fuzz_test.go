package sortedint

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"
)

// fuzzStore builds a store from stored: records of one length byte (mod
// 12, so most are 8 bytes but some are corrupt) and that many bytes.
func fuzzStore(stored []byte) (s *memStore, valid bool) {
	s, valid = newMemStore(), true
	for len(stored) > 0 {
		n := int(stored[0]) % 12
		if n > 8 {
			n = 8
		} else if n != 8 {
			valid = false
		}
		stored = stored[1:]
		n = min(n, len(stored))
		s.put(stored[:n])
		stored = stored[n:]
	}
	for _, sub := range s.subs {
		valid = valid && len(sub) == SubkeyLen
	}
	return s, valid
}

// modelRange is what a range returns, computed over all the ids at once.
func modelRange(all []uint64, reverse bool, keep func(uint64) bool, offset, limit uint64) []uint64 {
	ids := slices.Clone(all)
	if reverse {
		slices.Reverse(ids)
	}
	var out []uint64
	var seen uint64
	for _, id := range ids {
		if !keep(id) {
			continue
		}
		if seen++; seen <= offset {
			continue
		}
		if limit != 0 && uint64(len(out)) == limit {
			break
		}
		out = append(out, id)
	}
	return out
}

// FuzzCommands runs the commands' parsing and semantics on any stored
// subkeys and any arguments (separated by 0xff): no panic, and on valid
// stores the same ids as a model that filters the whole set.
func FuzzCommands(f *testing.F) {
	ids := AppendSubkey(AppendSubkey(AppendSubkey([]byte{8}, 1), 8), 5)
	ids = append(append(ids[:9:9], 8), ids[9:]...)
	f.Add(ids, []byte("\x00\xff0\xff3\xffCURSOR\xff1"))
	f.Add(ids, []byte("\x01\xff0\xff0"))
	f.Add(ids, []byte("\x02\xff(1\xff+inf\xffLIMIT\xff1\xff-1"))
	f.Add(ids, []byte("\x03\xff+inf\xff(0"))
	f.Add(ids, []byte("\x04\xff1\xff1\xff-1\xff 5"))
	f.Add([]byte{3, 1, 2, 3, 8, 0, 0, 0, 0, 0, 0, 0, 9}, []byte("\x00\xff0\xff0"))
	f.Fuzz(func(t *testing.T, stored, argBytes []byte) {
		s, valid := fuzzStore(stored)
		parts := bytes.Split(argBytes, []byte{0xff})
		if len(parts[0]) == 0 {
			return
		}
		op, args := parts[0][0]%5, parts[1:]
		var all []uint64
		if valid {
			for _, sub := range s.subs {
				id, _ := ParseSubkey(sub)
				all = append(all, id)
			}
		}
		var got []uint64
		emit := func(id uint64) bool { got = append(got, id); return true }
		var want []uint64
		var err error
		switch op {
		case 0, 1:
			var q Range
			if q, err = ParseRange(args, op == 1); err != nil {
				break
			}
			err = q.Walk(s, emit)
			from := q.Cursor
			if q.Reverse && from == 0 {
				from = math.MaxUint64
			}
			want = modelRange(all, q.Reverse, func(id uint64) bool {
				return id != q.Cursor && (q.Reverse && id <= from || !q.Reverse && id >= from)
			}, q.Offset, q.Limit)
		case 2, 3:
			var q ValueRange
			if q, err = ParseValueRange(args, op == 3); err != nil {
				break
			}
			err = q.Walk(s, emit)
			want = modelRange(all, q.Reverse, func(id uint64) bool {
				return id >= q.Min && id <= q.Max && !(q.MinExclusive && id == q.Min) && !(q.MaxExclusive && id == q.Max)
			}, q.Offset, q.Count)
		case 4:
			var ids []uint64
			if ids, err = ParseIDs(args); err != nil {
				break
			}
			size := uint64(len(s.subs))
			added, errAdd := planAdd(s, size, ids)
			removed, errRem := planRemove(s, size, ids)
			in, errIn := exists(s, ids)
			if errAdd != nil || errRem != nil || errIn != nil || len(in) != len(ids) {
				t.Fatalf("%v %v %v %d answers for %d ids", errAdd, errRem, errIn, len(in), len(ids))
			}
			distinct := map[uint64]bool{}
			for i, id := range ids {
				distinct[id] = true
				if in[i] != slices.Contains(removed.IDs, id) || in[i] == slices.Contains(added.IDs, id) {
					t.Fatalf("id %d: held %v, added %v, removed %v", id, in[i], added.IDs, removed.IDs)
				}
			}
			if len(added.IDs)+len(removed.IDs) != len(distinct) || added.Size != size+uint64(len(added.IDs)) || removed.Size != size-uint64(len(removed.IDs)) {
				t.Fatalf("size %d, %d ids: added %+v, removed %+v", size, len(distinct), added, removed)
			}
			return
		}
		if err != nil {
			if _, known := ReplyText(err); !known && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error without a reply: %v", err)
			}
			return
		}
		if valid && !slices.Equal(got, want) {
			t.Fatalf("got %v, the model %v", got, want)
		}
	})
}
