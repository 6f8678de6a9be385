package timeseries

// The compaction filter's rules for a series's records (KVROCKS-TYPES.md
// §6.5), beyond the generic ones (a subkey of a dead or other version is
// dropped): pure functions of a record and what the filter looked up.
// Reads clip to the retention window on their own, so how late the
// filter runs never changes a reply.

// ChunkPastRetention reports whether a chunk record may be dropped: all
// its samples are older than the series's LastTimestamp − Retention. A
// chunk that does not parse is kept (it is not the filter's to judge).
func ChunkPastRetention(meta *Meta, value []byte) bool {
	if meta.Retention <= 0 || !meta.HasLast {
		return false
	}
	ch, err := ParseChunk(value)
	if err != nil || ch.Len() == 0 {
		return false
	}
	return ch.TS(ch.Len()-1) < retained(meta.Retention, meta.LastTimestamp)
}

// RuleOrphaned reports whether a rule record of the series src may be
// dropped: its destination (dest, nil when the key does not exist or is
// not a live series) is gone, or was re-created and is no longer fed by
// src.
func RuleOrphaned(src []byte, dest *Meta) bool {
	return dest == nil || string(dest.SourceKey) != string(src)
}

// IndexEntryStale reports whether an index entry may be dropped: its
// series is gone (labels nil: the key does not exist, has expired or is
// not a series) or no longer has the entry's label value.
func IndexEntryStale(e IndexEntry, live bool, labels []Label) bool {
	if !live {
		return true
	}
	v, ok := label(labels, e.Label)
	return !ok || string(v) != string(e.Value)
}
