package json

import (
	"errors"
	"strings"
)

// commandError is an error of a command whose text is the whole error
// reply Kvrocks 5fccd57 sends, so that ReplyText can give it.
type commandError struct{ reply string }

func (e *commandError) Error() string { return "json: " + e.reply }

// The errors of the commands. ParseError and PathError get Kvrocks's
// "ERR Invalid argument: " before jsoncons's message.
var (
	ErrNotFound      error = &commandError{"ERR NotFound: "}
	ErrNoKey         error = &commandError{"ERR could not perform this operation on a key that doesn't exist"}
	ErrNewAtRoot     error = &commandError{"ERR Invalid argument: new objects must be created at the root"}
	ErrNotNumber     error = &commandError{"ERR Invalid argument: the input value should be a number"}
	ErrInfinite      error = &commandError{"ERR Invalid argument: the result is an infinite number"}
	ErrNotString     error = &commandError{"ERR Invalid argument: STRAPPEND need input a string to append"}
	ErrTooDeep       error = &commandError{"ERR Invalid argument: Failed to encode JSON into storage: Data item nesting exceeds limit in options"}
	ErrTooManyArgs   error = &commandError{"ERR The number of arguments is more than expected"}
	ErrObjLenNoKey   error = &commandError{"ERR Path '$' does not exist or not an object"}
	ErrIndent        error = &commandError{"ERR Currently only all-space INDENT is supported"}
	ErrSpace         error = &commandError{"ERR Currently only SPACE ' ' is supported"}
	ErrNoMoreItem    error = &commandError{"ERR no more item to parse"}
	ErrNotInteger    error = &commandError{"ERR value is not an integer or out of range"}
	ErrIntStart      error = &commandError{"ERR not started as an integer"}
	ErrIntChars      error = &commandError{"ERR encounter non-integer characters"}
	ErrIntRange      error = &commandError{"ERR Numerical result out of range"}
	ErrDebugSub      error = &commandError{"ERR ERR wrong number of arguments for 'json.debug' command"}
	ErrArity         error = &commandError{"ERR wrong number of arguments"}
	ErrSyntax        error = &commandError{"ERR syntax error"}
	ErrPathMissing   error = &commandError{"ERR Path does not exist"}
	ErrNotArray      error = &commandError{"ERR Path does not exist or not an array"}
	ErrNotObject     error = &commandError{"ERR Path does not exist or not an object"}
	ErrNotStringPath error = &commandError{"ERR Path does not exist or not a string"}
	ErrNotBool       error = &commandError{"ERR Path does not exist or not a bool"}
	ErrNoNumber      error = &commandError{"ERR Path does not exist or does not contains a number"}
	// ErrBadStored is wrapped with what is wrong with the bytes, which
	// the reply leaves out.
	ErrBadStored error = &commandError{"ERR Corruption: the stored JSON value cannot be decoded"}
)

// ReplyText returns the error reply for an error of this package, as
// Kvrocks words it ("ERR Invalid argument: " and jsoncons's message for
// bad JSON text and bad paths), and false for an error of another
// package (the storage's), which is not the package's to word.
func ReplyText(err error) (string, bool) {
	var pe *ParseError
	if errors.As(err, &pe) {
		return "ERR Invalid argument: " + pe.Error(), true
	}
	var ph *PathError
	if errors.As(err, &ph) {
		return "ERR Invalid argument: " + ph.Error(), true
	}
	if errors.Is(err, ErrEmptyText) {
		return "ERR Invalid argument: Failed to parse json string: Source error", true
	}
	var ce *commandError
	if !errors.As(err, &ce) {
		return "", false
	}
	return ce.reply, true
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
	text, _ := ReplyText(err)
	return strings.TrimPrefix(text, "ERR Invalid argument: ")
}
