package storage

import "errors"

// Errors returned by the data-type operations; compare with errors.Is.
var (
	ErrWrongType     = errors.New("storage: wrong type")
	ErrNotInteger    = errors.New("storage: value is not an integer or out of range")
	ErrNotFloat      = errors.New("storage: value is not a valid float")
	ErrOverflow      = errors.New("storage: increment or decrement would overflow")
	ErrNaNOrInfinity = errors.New("storage: increment would produce NaN or Infinity")
	// ErrInfiniteIncrement refuses an infinite increment before any lookup.
	ErrInfiniteIncrement = errors.New("storage: value is NaN or Infinity")
	ErrTooLarge          = errors.New("storage: string exceeds maximum allowed size")
	ErrNoSuchKey         = errors.New("storage: no such key")
	ErrSameObject        = errors.New("storage: source and destination objects are the same")
	ErrInvalidCursor     = errors.New("storage: invalid cursor")
	ErrCorrupt           = errors.New("storage: corrupt record")
)

// Errors of hash field arithmetic.
var (
	ErrHashNotInteger = errors.New("storage: hash value is not an integer")
	ErrHashNotFloat   = errors.New("storage: hash value is not a float")
)

// ErrIndexOutOfRange reports a list index outside the list (LSET).
var ErrIndexOutOfRange = errors.New("storage: index out of range")

// ErrBatchTooLarge refuses a command whose write batch is larger than
// rocksdb.write_options.write_batch_max_bytes; it wrote nothing.
var ErrBatchTooLarge = errors.New("storage: write batch larger than rocksdb.write_options.write_batch_max_bytes")

// ErrScoreNaN refuses a score update whose result is not a number.
var ErrScoreNaN = errors.New("storage: resulting score is not a number (NaN)")
