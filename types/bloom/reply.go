package bloom

import "github.com/basaltdb/basalt/reply"

// Kvrocks answers membership with integers in RESP3 too (RedisBloom's
// booleans are not its), and BF.INFO with an array, never a map.

// WriteResult writes BF.ADD's reply: 1 added, 0 present, or the error of
// a full chain.
func WriteResult(w reply.Sink, r Result) {
	switch r {
	case Added:
		w.Int(1)
	case Present:
		w.Int(0)
	case Full:
		w.Error(string(ErrFull))
	default:
		w.Error(string(ErrExhausted))
	}
}

// WriteResults writes BF.MADD's and BF.INSERT's reply: an array of
// WriteResult's replies, one per item.
func WriteResults(w reply.Sink, rs []Result) {
	w.Array(len(rs))
	for _, r := range rs {
		WriteResult(w, r)
	}
}

// WriteExists writes BF.MEXISTS's reply: an array of 1 and 0.
func WriteExists(w reply.Sink, found []bool) {
	w.Array(len(found))
	for _, f := range found {
		w.Int(boolInt(f))
	}
}

// Info is what BF.INFO reports of a filter.
type Info struct {
	Capacity uint32
	Size     uint32 // bytes of all sub-filters
	Filters  uint16
	Items    uint64
	// Expansion is the expansion rate, 0 for a non-scaling filter, which
	// reports it as nil.
	Expansion uint16
}

// Info returns BF.INFO's figures for a chain holding size items.
func (c *Chain) Info(size uint64) Info {
	return Info{Capacity: c.Capacity(), Size: c.Bytes, Filters: c.Filters, Items: size, Expansion: c.Expansion}
}

// infoLabels are BF.INFO's labels, by field.
var infoLabels = [...]string{
	InfoCapacity:  "Capacity",
	InfoSize:      "Size",
	InfoFilters:   "Number of filters",
	InfoItems:     "Number of items inserted",
	InfoExpansion: "Expansion rate",
}

// WriteInfo writes BF.INFO's reply: for InfoAll an array of label
// (simple string) and value pairs in every protocol, otherwise the one
// value.
func WriteInfo(w reply.Sink, info Info, f InfoField) {
	if f != InfoAll {
		info.write(w, f)
		return
	}
	w.Array(2 * (len(infoLabels) - 1))
	for f := InfoCapacity; int(f) < len(infoLabels); f++ {
		w.Simple(infoLabels[f])
		info.write(w, f)
	}
}

func (info *Info) write(w reply.Sink, f InfoField) {
	switch f {
	case InfoCapacity:
		w.Int(int64(info.Capacity))
	case InfoSize:
		w.Int(int64(info.Size))
	case InfoFilters:
		w.Int(int64(info.Filters))
	case InfoItems:
		w.Int(int64(info.Items)) // Kvrocks's u64 size through its int64 reply
	default:
		if info.Expansion == 0 {
			w.Null()
			return
		}
		w.Int(int64(info.Expansion))
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
