package rdb

// lzfDecompress expands LZF data (liblzf's format, which Redis's
// LZF-encoded strings hold) into exactly n bytes; ok is false when the
// data is malformed or does not expand to n bytes. n was bounded by the
// caller against the compressed length; what is allocated grows with what
// the data really expands to, not with n.
func lzfDecompress(in []byte, n int) (out []byte, ok bool) {
	out = make([]byte, 0, min(n, 4*len(in)))
	for i := 0; i < len(in); {
		ctrl := int(in[i])
		i++
		if ctrl < 32 { // a literal run of ctrl+1 bytes
			run := ctrl + 1
			if i+run > len(in) || len(out)+run > n {
				return nil, false
			}
			out = append(out, in[i:i+run]...)
			i += run
			continue
		}
		// A back reference: 3 bits of length (7: one more length byte),
		// 13 bits of distance minus one.
		length := ctrl >> 5
		if length == 7 {
			if i >= len(in) {
				return nil, false
			}
			length += int(in[i])
			i++
		}
		length += 2
		if i >= len(in) {
			return nil, false
		}
		ref := len(out) - (ctrl&0x1f)<<8 - int(in[i]) - 1
		i++
		if ref < 0 || len(out)+length > n {
			return nil, false
		}
		// The copy may overlap what it writes (a run): byte by byte.
		for j := 0; j < length; j++ {
			out = append(out, out[ref+j])
		}
	}
	return out, len(out) == n
}

// lzfMaxRatio bounds how much LZF can expand: a 3-byte back reference
// stands for at most 264 bytes.
const lzfMaxRatio = 88
