package rdb

import "hash/crc64"

// Redis's CRC64 is "Jones": polynomial 0xad93d23594c935a9, reflected input
// and output, initial value 0, no final xor. crc64.MakeTable takes the
// polynomial bit-reversed.
var jonesTable = crc64.MakeTable(0x95ac9329ac4bc9b5)

// checksum is Redis's crc64(0, p, len(p)). The standard library's Update
// inverts the register before and after: starting from all ones cancels
// the first inversion, and the result is inverted back.
func checksum(p []byte) uint64 {
	return ^crc64.Update(^uint64(0), jonesTable, p)
}
