package sortedint

import "math"

// Store is one live sortedint key's subkeys (the bytes after the internal
// key's version), as the engine reads them in one snapshot: RocksDB's
// order, bounded to the key's current version.
//
// The subkeys passed to Contains, Ascend and Descend belong to the
// caller and are not retained; a subkey passed to fn is valid only during
// the call.
type Store interface {
	// Contains reports for each subkey whether the key holds it.
	Contains(subs [][]byte) ([]bool, error)
	// Ascend calls fn with each subkey at or after from, in ascending
	// order (RocksDB's Seek), until fn returns false or the key's
	// subkeys end. want, when not 0, is how many subkeys fn is expected
	// to take, a hint for how many to read ahead.
	Ascend(from []byte, want uint64, fn func(sub []byte) bool) error
	// Descend is Ascend backward: the subkeys at or before from, in
	// descending order (RocksDB's SeekForPrev).
	Descend(from []byte, want uint64, fn func(sub []byte) bool) error
}

// walk calls fn with the ids from id on, in ascending order (reverse:
// descending), until fn returns false; a subkey that is no id ends the
// walk with ErrCorrupt.
func walk(s Store, from uint64, reverse bool, want uint64, fn func(id uint64) bool) error {
	var corrupt error
	visit := func(sub []byte) bool {
		id, err := ParseSubkey(sub)
		if err != nil {
			corrupt = err
			return false
		}
		return fn(id)
	}
	seek := AppendSubkey(nil, from)
	var err error
	if reverse {
		err = s.Descend(seek, want, visit)
	} else {
		err = s.Ascend(seek, want, visit)
	}
	if err != nil {
		return err
	}
	return corrupt
}

// window is a run of ids of which the first offset are skipped and at
// most limit (0: any number) are emitted.
type window struct {
	offset, limit uint64
	skipped, sent uint64
}

// take passes id on to emit unless it is still to be skipped, and reports
// whether the walk goes on.
func (w *window) take(id uint64, emit func(id uint64) bool) bool {
	if w.skipped < w.offset {
		w.skipped++
		return true
	}
	w.sent++
	return emit(id) && (w.limit == 0 || w.sent < w.limit)
}

// want is how many subkeys a walk through w reads at most (one more than
// it passes on or skips: the cursor, or the excluded near end of a value
// range), or 0 when unbounded or too many to be a useful hint.
func (w *window) want() uint64 {
	const most = 1 << 20
	if w.limit == 0 || w.offset > most || w.limit > most {
		return 0
	}
	return w.offset + w.limit + 1
}

// Walk calls emit with the ids of SIRANGE (SIREVRANGE when Reverse) in
// order, until they end or emit returns false (the client went away).
func (q Range) Walk(s Store, emit func(id uint64) bool) error {
	from := q.Cursor
	if q.Reverse && q.Cursor == 0 {
		from = math.MaxUint64
	}
	w := window{offset: q.Offset, limit: q.Limit}
	return walk(s, from, q.Reverse, w.want(), func(id uint64) bool {
		if id == q.Cursor {
			return true // the cursor itself, not counted in the offset
		}
		return w.take(id, emit)
	})
}

// Walk calls emit with the ids of SIRANGEBYVALUE (SIREVRANGEBYVALUE when
// Reverse) in order, until they end or emit returns false.
func (q ValueRange) Walk(s Store, emit func(id uint64) bool) error {
	if q.Min > q.Max {
		return nil
	}
	w := window{offset: q.Offset, limit: q.Count}
	from, first, firstExcl, last, lastExcl := q.Min, q.Min, q.MinExclusive, q.Max, q.MaxExclusive
	if q.Reverse {
		from, first, firstExcl, last, lastExcl = q.Max, q.Max, q.MaxExclusive, q.Min, q.MinExclusive
	}
	// past reports whether id lies beyond the far end, in walking order.
	past := func(id uint64) bool {
		if q.Reverse {
			return id < last || (lastExcl && id == last)
		}
		return id > last || (lastExcl && id == last)
	}
	return walk(s, from, q.Reverse, w.want(), func(id uint64) bool {
		switch {
		case past(id):
			return false
		case firstExcl && id == first:
			return true // the excluded near end, not counted in the offset
		}
		return w.take(id, emit)
	})
}
