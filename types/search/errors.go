package search

import (
	"errors"
	"fmt"
)

// The kinds of errors of the FT.* commands; compare with errors.Is. Each
// error of the package is an *Error of one kind whose Text is what
// Kvrocks puts after "ERR " (ReplyText), such as "field `x` not found in
// index `idx`".
var (
	// ErrSyntax: a query, an SQL statement or a command's options do not
	// parse ("invalid syntax", "syntax error", "no more item to parse",
	// a bad integer).
	ErrSyntax = errors.New("search: syntax")
	// ErrParam: a $param that is missing or of the wrong kind.
	ErrParam = errors.New("search: parameter")
	// ErrField: a field that is not in the index or not of the kind the
	// query needs.
	ErrField = errors.New("search: field")
	// ErrQuery: a query that parses but means nothing Kvrocks runs
	// (KNN beside a condition, a negative range, an empty tag...).
	ErrQuery = errors.New("search: query")
	// ErrSchema: FT.CREATE's arguments.
	ErrSchema = errors.New("search: schema")
	// ErrNoIndex: the index does not exist.
	ErrNoIndex = errors.New("search: no such index")
	// ErrIndexExists: FT.CREATE of an index that exists.
	ErrIndexExists = errors.New("search: index exists")
	// ErrDocument: a stored document's field that cannot be read as its
	// schema says (a numeric field that is no number...).
	ErrDocument = errors.New("search: document")
	// ErrCorrupt: bytes of the search column family that do not decode.
	ErrCorrupt = errors.New("search: corrupt record")
)

// Error is an error of one of the kinds above with Kvrocks's text.
type Error struct {
	Kind error
	Text string
}

func (e *Error) Error() string { return "search: " + e.Text }

// Unwrap gives the kind, for errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

func failf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Text: fmt.Sprintf(format, args...)}
}

func fail(kind error, text string) error { return &Error{Kind: kind, Text: text} }

// Errors whose text never varies.
var (
	errInvalidSyntax = fail(ErrSyntax, "invalid syntax")
	errOptionSyntax  = fail(ErrSyntax, "syntax error")
	errNoMoreItem    = fail(ErrSyntax, "no more item to parse")
	errEmptyTag      = fail(ErrQuery, "tag cannot be an empty string")
)

// ReplyText returns the error reply Kvrocks sends for err ("ERR " and the
// text), and false when err is not one of this package's (a storage
// failure).
func ReplyText(err error) (string, bool) {
	var e *Error
	if errors.As(err, &e) {
		return "ERR " + e.Text, true
	}
	return "", false
}

// numberError is a Kvrocks number-parsing error as a reply of kind.
func numberError(kind error, err error) error { return fail(kind, err.Error()) }
