package rdb

import (
	"encoding/binary"
	"errors"
)

// opFunction is RDB_OPCODE_FUNCTION2: a function library's code follows
// as a string.
const opFunction = 245

// ErrNotFunction: a FUNCTION RESTORE payload holds something other than
// function libraries.
var ErrNotFunction = errors.New("rdb: given type is not a function")

// EncodeFunctions returns FUNCTION DUMP's payload for the libraries'
// codes: each as the function opcode and its code, then the footer.
func EncodeFunctions(codes []string) []byte {
	var out []byte
	for _, code := range codes {
		out = appendString(append(out, opFunction), []byte(code))
	}
	out = binary.LittleEndian.AppendUint16(out, Version)
	return binary.LittleEndian.AppendUint64(out, checksum(out))
}

// DecodeFunctions reads the libraries' codes of a FUNCTION DUMP payload
// (compressed strings included, as redis-server writes them).
func DecodeFunctions(payload []byte) ([]string, error) {
	if err := checkFooter(payload); err != nil {
		return nil, err
	}
	r := &reader{src: &memSource{b: payload[:len(payload)-footerSize]}}
	var codes []string
	for r.left() > 0 {
		t, err := r.byte()
		if err != nil {
			return nil, err
		}
		if t != opFunction {
			return nil, ErrNotFunction
		}
		code, err := r.string()
		if err != nil {
			return nil, err
		}
		codes = append(codes, string(code))
	}
	return codes, nil
}
