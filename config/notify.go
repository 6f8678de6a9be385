package config

import (
	"errors"
	"strings"
	"sync/atomic"
)

// NotifyClass is a set of keyspace event classes of
// notify-keyspace-events, with Redis 7.0's bit values.
type NotifyClass uint32

// The classes, and the two channel kinds an event is published on.
const (
	NotifyKeyspace NotifyClass = 1 << iota // K: __keyspace@0__:<key>
	NotifyKeyevent                         // E: __keyevent@0__:<event>
	NotifyGeneric                          // g: DEL, EXPIRE, RENAME, ...
	NotifyString                           // $
	NotifyList                             // l
	NotifySet                              // s
	NotifyHash                             // h
	NotifyZset                             // z
	NotifyExpired                          // x: a key expired
	NotifyEvicted                          // e: a key evicted (Basalt evicts none)
	NotifyStream                           // t
	NotifyKeyMiss                          // m: a read found no key
	notifyLoaded                           // modules only, never set
	NotifyModule                           // d: modules (Basalt has none)
	NotifyNew                              // n: a key created

	// NotifyAll is what A stands for: every class but m and n.
	NotifyAll = NotifyGeneric | NotifyString | NotifyList | NotifySet | NotifyHash | NotifyZset |
		NotifyExpired | NotifyEvicted | NotifyStream | NotifyModule
)

// notifyLetters are the class letters in the order Redis renders them
// (keyspaceEventsFlagsToString): the classes, A standing for all of them,
// then the channel kinds and m.
var notifyLetters = []struct {
	class  NotifyClass
	letter byte
}{
	{NotifyGeneric, 'g'}, {NotifyString, '$'}, {NotifyList, 'l'}, {NotifySet, 's'},
	{NotifyHash, 'h'}, {NotifyZset, 'z'}, {NotifyExpired, 'x'}, {NotifyEvicted, 'e'},
	{NotifyStream, 't'}, {NotifyModule, 'd'}, {NotifyNew, 'n'},
	{NotifyKeyspace, 'K'}, {NotifyKeyevent, 'E'}, {NotifyKeyMiss, 'm'},
}

var errNotifyClass = errors.New("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")

// NotifyEvents is notify-keyspace-events: the event classes published,
// on which channels. Events are published only when K or E is set too.
type NotifyEvents struct{ v atomic.Uint32 }

// Get returns the classes set.
func (n *NotifyEvents) Get() NotifyClass { return NotifyClass(n.v.Load()) }

// String renders the classes as Redis 7.0 does, in its order: A for all
// of them, which leaves n out too, as Redis does.
func (n *NotifyEvents) String() string {
	flags := n.Get()
	var b strings.Builder
	all := flags&NotifyAll == NotifyAll
	if all {
		b.WriteByte('A')
	}
	for _, l := range notifyLetters {
		class := l.class &^ (NotifyKeyspace | NotifyKeyevent | NotifyKeyMiss)
		if flags&l.class != 0 && !(all && class != 0) {
			b.WriteByte(l.letter)
		}
	}
	return b.String()
}

func (n *NotifyEvents) set(s string) error {
	var flags NotifyClass
	for i := 0; i < len(s); i++ {
		if s[i] == 'A' {
			flags |= NotifyAll
			continue
		}
		found := false
		for _, l := range notifyLetters {
			if l.letter == s[i] {
				flags |= l.class
				found = true
			}
		}
		if !found {
			return errNotifyClass
		}
	}
	n.v.Store(uint32(flags))
	return nil
}
