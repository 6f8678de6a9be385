package sortedint

import (
	"encoding/binary"
	"fmt"
)

// SubkeyLen is the length of every subkey: the id as a big-endian u64.
const SubkeyLen = 8

// AppendSubkey appends the subkey of id to dst.
func AppendSubkey(dst []byte, id uint64) []byte {
	return binary.BigEndian.AppendUint64(dst, id)
}

// ParseSubkey returns the id a stored subkey holds; it fails with
// ErrCorrupt unless sub is exactly SubkeyLen bytes.
func ParseSubkey(sub []byte) (uint64, error) {
	if len(sub) != SubkeyLen {
		return 0, fmt.Errorf("%w: subkey %x is not 8 bytes", ErrCorrupt, sub)
	}
	return binary.BigEndian.Uint64(sub), nil
}

// subkeys returns the subkeys of ids, in their order.
func subkeys(ids []uint64) [][]byte {
	buf := make([]byte, 0, SubkeyLen*len(ids))
	out := make([][]byte, len(ids))
	for i, id := range ids {
		buf = AppendSubkey(buf, id)
		out[i] = buf[i*SubkeyLen : (i+1)*SubkeyLen : (i+1)*SubkeyLen]
	}
	return out
}
