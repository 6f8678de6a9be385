package sortedint

import "errors"

// Errors of the commands' arguments and of stored bytes; compare with
// errors.Is. ReplyText gives the reply Kvrocks sends for each.
var (
	ErrArity         = errors.New("sortedint: wrong number of arguments")
	ErrNotInteger    = errors.New("sortedint: value is not an integer or out of range")
	ErrSyntax        = errors.New("sortedint: syntax error")
	ErrMinNotInteger = errors.New("sortedint: the min isn't integer")
	ErrMaxNotInteger = errors.New("sortedint: the max isn't integer")
	ErrMinAboveMax   = errors.New("sortedint: min > max")
	// ErrCorrupt reports a stored subkey that is no id: there is no
	// Kvrocks reply for it (Kvrocks reads past the record).
	ErrCorrupt = errors.New("sortedint: corrupt subkey")
)

// replies are Kvrocks's error replies, as the real Kvrocks sends them.
var replies = []struct {
	err  error
	text string
}{
	{ErrArity, "ERR wrong number of arguments"},
	{ErrNotInteger, "ERR value is not an integer or out of range"},
	{ErrSyntax, "ERR syntax error"},
	{ErrMinNotInteger, "ERR the min isn't integer"},
	{ErrMaxNotInteger, "ERR the max isn't integer"},
	{ErrMinAboveMax, "ERR min > max"},
}

// ReplyText returns the error reply Kvrocks sends for err, and false when
// err is none of the argument errors above (a storage failure, ErrCorrupt).
func ReplyText(err error) (string, bool) {
	for _, r := range replies {
		if errors.Is(err, r.err) {
			return r.text, true
		}
	}
	return "", false
}
