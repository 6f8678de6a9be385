package metadata

// SlotCount is the number of hash slots in cluster mode.
const SlotCount = 16384

var crc16Table = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for j := 0; j < 8; j++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()

// CRC16 is CRC-16/XMODEM (poly 0x1021, init 0, no reflection), the checksum
// Redis Cluster hashes keys with.
func CRC16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc = crc<<8 ^ crc16Table[byte(crc>>8)^c]
	}
	return crc
}

// HashSlot returns the cluster slot of a user key, honouring {hash tags}:
// when the key has a '{' followed later by a '}' with at least one byte
// between them, only those bytes are hashed.
func HashSlot(key []byte) uint16 {
	for i, c := range key {
		if c != '{' {
			continue
		}
		for j := i + 1; j < len(key); j++ {
			if key[j] == '}' {
				if j > i+1 {
					key = key[i+1 : j]
				}
				return CRC16(key) & (SlotCount - 1)
			}
		}
		break
	}
	return CRC16(key) & (SlotCount - 1)
}
