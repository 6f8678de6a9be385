package json

import (
	"errors"
	"strings"
)

// The errors of the commands. Each one's text, after the package prefix,
// is the whole error reply Kvrocks 5fccd57 sends, so ReplyText can give
// it; ParseError and PathError get Kvrocks's "ERR Invalid argument: ".
var (
	ErrNotFound      = errors.New("json: ERR NotFound: ")
	ErrNoKey         = errors.New("json: ERR could not perform this operation on a key that doesn't exist")
	ErrNewAtRoot     = errors.New("json: ERR Invalid argument: new objects must be created at the root")
	ErrNotNumber     = errors.New("json: ERR Invalid argument: the input value should be a number")
	ErrInfinite      = errors.New("json: ERR Invalid argument: the result is an infinite number")
	ErrNotString     = errors.New("json: ERR Invalid argument: STRAPPEND need input a string to append")
	ErrTooDeep       = errors.New("json: ERR Invalid argument: Failed to encode JSON into storage: Data item nesting exceeds limit in options")
	ErrTooManyArgs   = errors.New("json: ERR The number of arguments is more than expected")
	ErrObjLenNoKey   = errors.New("json: ERR Path '$' does not exist or not an object")
	ErrIndent        = errors.New("json: ERR Currently only all-space INDENT is supported")
	ErrSpace         = errors.New("json: ERR Currently only SPACE ' ' is supported")
	ErrNoMoreItem    = errors.New("json: ERR no more item to parse")
	ErrNotInteger    = errors.New("json: ERR value is not an integer or out of range")
	ErrIntStart      = errors.New("json: ERR not started as an integer")
	ErrIntChars      = errors.New("json: ERR encounter non-integer characters")
	ErrIntRange      = errors.New("json: ERR Numerical result out of range")
	ErrDebugSub      = errors.New("json: ERR ERR wrong number of arguments for 'json.debug' command")
	ErrArity         = errors.New("json: ERR wrong number of arguments")
	ErrSyntax        = errors.New("json: ERR syntax error")
	ErrPathMissing   = errors.New("json: ERR Path does not exist")
	ErrNotArray      = errors.New("json: ERR Path does not exist or not an array")
	ErrNotObject     = errors.New("json: ERR Path does not exist or not an object")
	ErrNotStringPath = errors.New("json: ERR Path does not exist or not a string")
	ErrNotBool       = errors.New("json: ERR Path does not exist or not a bool")
	ErrNoNumber      = errors.New("json: ERR Path does not exist or does not contains a number")
	ErrBadStored     = errors.New("json: ERR Corruption: the stored JSON value cannot be decoded")
)

// ReplyText returns the error reply for an error of this package, as
// Kvrocks words it ("ERR Invalid argument: " and jsoncons's message for
// bad JSON text and bad paths).
func ReplyText(err error) string {
	var pe *ParseError
	if errors.As(err, &pe) {
		return "ERR Invalid argument: " + pe.Error()
	}
	var ph *PathError
	if errors.As(err, &ph) {
		return "ERR Invalid argument: " + ph.Error()
	}
	if errors.Is(err, ErrEmptyText) {
		return "ERR Invalid argument: Failed to parse json string: Source error"
	}
	msg := err.Error()
	if i := strings.Index(msg, "json: ERR"); i >= 0 {
		return msg[i+len("json: "):]
	}
	return "ERR " + msg
}

// ErrorText returns the text of a parse or path error without the
// package prefix, as jsoncons words it.
func ErrorText(err error) string {
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe.Error()
	}
	var ph *PathError
	if errors.As(err, &ph) {
		return ph.Error()
	}
	return strings.TrimPrefix(ReplyText(err), "ERR Invalid argument: ")
}
