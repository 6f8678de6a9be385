package timeseries

import (
	"time"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// The compaction filter's rules for series (KVROCKS-TYPES.md §6.5),
// registered with the engine: chunks past retention and rules whose
// destination is gone (ChunkPastRetention, RuleOrphaned), and index
// entries of dead series or changed labels (IndexEntryStale).

func init() {
	storage.RegisterType(TypeNumber, storage.TypeHooks{Drop: dropSubkey, IndexStale: indexStale})
}

// dropSubkey is the rule for a live series's subkeys.
func dropSubkey(other func(key []byte) ([]byte, bool, error), key, ext, sub, value []byte) bool {
	if len(sub) == 0 {
		return false
	}
	switch sub[0] {
	case kindChunk:
		m, err := DecodeMeta(ext)
		return err == nil && ChunkPastRetention(&m, value)
	case kindDownstream:
		dest := sub[1:]
		raw, found, err := other(dest)
		if err != nil {
			return false
		}
		var dm *Meta
		if found {
			dm = liveMeta(raw)
		}
		return RuleOrphaned(key, dm)
	}
	return false
}

// liveMeta decodes a metadata record as a live series's extension; nil
// when it is another type's, dead or does not decode.
func liveMeta(raw []byte) *Meta {
	m, ext, err := metadata.Decode(raw)
	if err != nil || m.Type != TypeNumber || m.Dead(time.Now().UnixMilli()) {
		return nil
	}
	tm, err := DecodeMeta(ext)
	if err != nil {
		return nil
	}
	return &tm
}

// indexStale is the rule for an entry of the index column family.
func indexStale(layout metadata.Layout, entry []byte, get func(cf storage.CF, key []byte) ([]byte, bool, error)) bool {
	e, err := ParseIndexKey(entry)
	if err != nil {
		return false // not the filter's to judge
	}
	raw, found, err := get(storage.CFMetadata, layout.AppendNSKey(nil, string(e.NS), e.Key))
	if err != nil {
		return false
	}
	if !found {
		return true
	}
	m, _, err := metadata.Decode(raw)
	if err != nil {
		return false
	}
	if m.Type != TypeNumber || m.Dead(time.Now().UnixMilli()) {
		return true
	}
	v, found, err := get(storage.CFDefault, layout.AppendInternalKey(nil, string(e.NS), e.Key, m.Version, AppendLabelSubkey(nil, e.Label)))
	if err != nil {
		return false
	}
	var labels []Label
	if found {
		labels = []Label{{Name: e.Label, Value: v}}
	}
	return IndexEntryStale(e, true, labels)
}
