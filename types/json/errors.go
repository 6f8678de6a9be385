package json

import (
	"errors"
	"strings"
)

// ErrorText returns the text of a package error without the package
// prefix: jsoncons's message for a parse or path error, else the
// sentinel's own words.
func ErrorText(err error) string {
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe.Error()
	}
	var ph *PathError
	if errors.As(err, &ph) {
		return ph.Error()
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, "json: "); i >= 0 {
		msg = msg[i+len("json: "):]
		if j := strings.Index(msg, ": "); j >= 0 && strings.HasPrefix(msg, "bad ") {
			msg = msg[j+2:]
		}
	}
	return msg
}
