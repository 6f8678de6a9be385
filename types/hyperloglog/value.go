package hyperloglog

import (
	"fmt"

	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/storage"
)

// Whole HyperLogLogs, for DUMP, RESTORE and RDB LOAD: their registers
// packed as Redis's dense encoding packs them, in a storage.Value's Str.

// DenseBytes is the size of a HyperLogLog's registers in a storage.Value.
const DenseBytes = metadata.HLLSegments * metadata.HLLSegmentBytes

func init() {
	storage.RegisterType(metadata.TypeHyperLogLog, storage.TypeHooks{ReadValue: readValue, WriteValue: writeValue})
}

// readValue reads the registers of o as of rv.
func readValue(rv *storage.ReadView, o *storage.Object, v *storage.Value) error {
	if err := check(o); err != nil {
		return err
	}
	var regs hllRegisters
	var present [metadata.HLLSegments]bool
	var segs [metadata.HLLSegments][]byte
	if err := mergeHLL(rv, o, &regs, &present, &segs); err != nil {
		return err
	}
	v.Str = make([]byte, DenseBytes)
	for i, seg := range segs {
		copy(v.Str[i*metadata.HLLSegmentBytes:], seg)
	}
	return nil
}

// writeValue writes the registers in v.Str (DenseBytes) as segments,
// leaving out those all zero: an absent segment reads as zeros.
func writeValue(v *storage.Value, _ *metadata.Metadata, put func(sub, value []byte)) ([]byte, error) {
	if len(v.Str) != DenseBytes {
		return nil, fmt.Errorf("hyperloglog: registers of %d bytes", len(v.Str))
	}
	for seg := range metadata.HLLSegments {
		regs := v.Str[seg*metadata.HLLSegmentBytes : (seg+1)*metadata.HLLSegmentBytes]
		if !allZero(regs) {
			put(metadata.AppendHLLSegment(nil, seg), regs)
		}
	}
	return []byte{metadata.HLLDense}, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
