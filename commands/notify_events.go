package commands

import (
	"strings"

	"github.com/basaltdb/basalt/storage"
)

// consumerExists reads the group and the consumer at arguments group and
// consumer.
func consumerExists(group, consumer int) func(args [][]byte, db storage.DB, key []byte) bool {
	return func(args [][]byte, db storage.DB, key []byte) bool {
		found, _ := db.StreamConsumerExists(key, args[group], args[consumer])
		return found
	}
}

func always([][]byte) bool { return true }

// hasWord returns whether a word is among the options (from the third
// argument on).
func hasWord(word string) func(args [][]byte) bool {
	return func(args [][]byte) bool {
		for _, a := range args[min(len(args), 3):] {
			if strings.EqualFold(string(a), word) {
				return true
			}
		}
		return false
	}
}

// casHasExpiry reports whether a CAS that wrote set an expiry: its options
// follow the new value, and any it took is one (a new value "ex" is no
// option: Redis's SET IFEQ publishes no "expire" for it either).
func casHasExpiry(args [][]byte) bool { return len(args) > 4 }

// pickWord returns the event yes when word is among the arguments, else no.
func pickWord(word, yes, no string) func(args [][]byte) string {
	return func(args [][]byte) string {
		for _, a := range args[1:] {
			if strings.EqualFold(string(a), word) {
				return yes
			}
		}
		return no
	}
}

// xgroupEvent names XGROUP's event by its subcommand.
func xgroupEvent(args [][]byte) string {
	return "xgroup-" + strings.ToLower(string(args[1]))
}
