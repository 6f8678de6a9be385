package storage

import (
	"bytes"

	"github.com/basaltdb/basalt/metadata"
)

// The keys a batch changes, for a node that applies writes no command of
// its own made: a replica its master's batches, the destination of a slot
// migration the source's (APPLYBATCH). Redis's replica runs its master's
// commands, so WATCH, blocked clients, client-side caching and keyspace
// notifications follow them there; here the command layer learns the same
// from the batch's records: which keys each command changed, and what the
// command was from the LogData record Kvrocks writes before a command's
// records (FORMAT.md §8.3), which names the type written and, for lists,
// expiry and bitmaps, the command. A batch of several commands (a group
// commit, a transaction) holds one LogData record before each.

// LoggedCommand is what a LogData record says of the command whose
// records follow it.
type LoggedCommand struct {
	// Logged is false for records no command's LogData precedes (an
	// import's, a flush's).
	Logged bool
	Type   metadata.Type
	Cmd    LogCommand
	// Args are the record's bytes after the command number.
	Args []byte
}

// parseLogData reads a command's LogData record, "<type>[ <cmd>[ <args>]]";
// ok is false for the other records (the replication id, the namespace of
// a published message).
func parseLogData(blob []byte) (c LoggedCommand, ok bool) {
	t, rest, ok := leadingNumber(blob)
	if !ok || t > 0xff || (len(rest) > 0 && rest[0] != ' ') {
		return LoggedCommand{}, false
	}
	c = LoggedCommand{Logged: true, Type: metadata.Type(t), Cmd: LogNoCommand}
	if len(rest) == 0 {
		return c, true
	}
	if n, args, ok := leadingNumber(rest[1:]); ok && (len(args) == 0 || args[0] == ' ') {
		c.Cmd = LogCommand(n)
		if len(args) > 0 {
			c.Args = args[1:]
		}
	}
	return c, true
}

// leadingNumber reads the decimal number of at most 9 digits b begins
// with, and what follows it.
func leadingNumber(b []byte) (n int, rest []byte, ok bool) {
	i := 0
	for ; i < len(b) && i < 9 && '0' <= b[i] && b[i] <= '9'; i++ {
		n = n*10 + int(b[i]-'0')
	}
	return n, b[i:], i > 0
}

// MoveSides returns the ends an LMOVE record names (true: left): the
// source's and the destination's, its last two arguments.
func (c LoggedCommand) MoveSides() (srcLeft, dstLeft, ok bool) {
	words := bytes.Fields(c.Args)
	if c.Cmd != LogLMove || len(words) < 4 {
		return false, false, false
	}
	src, srcOK := sideNamed(words[len(words)-2])
	dst, dstOK := sideNamed(words[len(words)-1])
	return src, dst, srcOK && dstOK
}

// sideNamed reads a list end as Kvrocks logs it (true: left).
func sideNamed(word []byte) (left, ok bool) {
	switch string(word) {
	case side(true):
		return true, true
	case side(false):
		return false, true
	}
	return false, false
}

// KeyChange is what the records of one command of a batch did to one
// key.
type KeyChange struct {
	NS  string
	Key []byte // aliases the batch
	Cmd LoggedCommand
	// Command counts the batch's LogData records before the change:
	// changes of one command have the same.
	Command int
	// MetaWritten is set when the command wrote the key's metadata
	// record: Meta, or nil when it deleted it.
	MetaWritten bool
	Meta        []byte
	// Added and Removed report whether the command put and deleted
	// elements of the key (of a stream, entries).
	Added, Removed bool
	// Before is the key's state before the command, once ReadBefore read
	// it.
	Before KeyState
}

// After returns the key's state after the command at Unix ms now: its
// metadata record as the command wrote it, else as it was before. A
// record that does not decode counts as no key.
func (k *KeyChange) After(now int64) KeyState {
	if !k.MetaWritten {
		return k.Before
	}
	st, err := keyState(k.Meta, now)
	if err != nil {
		return KeyState{}
	}
	return st
}

// BatchChanges are the keys a batch changes, in the order of its
// commands and, within one, of the keys' first records.
type BatchChanges struct {
	Keys []KeyChange
	// Flushed are the namespaces a range deletion of metadata emptied,
	// wholly or in part (a slot); FlushedAll is set when it may have
	// reached several (FLUSHALL).
	Flushed    []string
	FlushedAll bool
}

// ChangesOf returns what the records of a batch change; its keys and
// metadata records point into the records' bytes. Records it cannot
// parse, and those of column families without keys, are left out.
func (s *Storage) ChangesOf(records []WALRecord) *BatchChanges {
	ch := &BatchChanges{}
	var cmd LoggedCommand
	var keys keyIndex
	for _, r := range records {
		switch {
		case r.Kind == RecordLogData:
			if c, ok := parseLogData(r.Value); ok {
				cmd = c
				keys.reset(len(ch.Keys), keys.command+1)
			}
		case r.Kind == RecordDeleteRange:
			if r.CF == CFMetadata {
				ch.flushed(r.Key, r.Value)
			}
		case r.CF == CFMetadata:
			ns, key, err := s.layout.ParseNSKey(r.Key)
			if err != nil {
				continue
			}
			k := keys.change(ch, ns, key, cmd)
			k.MetaWritten = true
			k.Meta = nil
			if r.Kind == RecordPut {
				k.Meta = r.Value
			}
		case r.CF == CFDefault || r.CF == CFZSetScore || r.CF == CFStream:
			ik, err := s.layout.ParseInternalKey(r.Key)
			if err != nil {
				continue
			}
			k := keys.change(ch, ik.Namespace, ik.Key, cmd)
			if _, entry := metadata.ParseStreamEntryKey(ik.Sub); r.CF == CFStream && !entry {
				continue // a consumer group's record
			}
			if r.Kind == RecordPut {
				k.Added = true
			} else {
				k.Removed = true
			}
		}
	}
	return ch
}

// flushed records a range deletion of metadata keys from begin to end:
// of one namespace when both ends are in it.
func (ch *BatchChanges) flushed(begin, end []byte) {
	if len(begin) == 0 || len(begin) < 1+int(begin[0]) {
		ch.FlushedAll = true
		return
	}
	prefix := begin[:1+int(begin[0])]
	if bytes.Compare(end, metadata.PrefixEnd(prefix)) > 0 {
		ch.FlushedAll = true
		return
	}
	ns := string(prefix[1:])
	for _, f := range ch.Flushed {
		if f == ns {
			return
		}
	}
	ch.Flushed = append(ch.Flushed, ns)
}

// keyIndex finds the change of a key among those of the current command,
// which begin at from: the last one, a scan of a few, or a map.
type keyIndex struct {
	from, command int
	index         map[string]int
}

// keyIndexScan is how many changes are scanned before a map is made.
const keyIndexScan = 8

func (x *keyIndex) reset(from, command int) { x.from, x.command, x.index = from, command, nil }

// change returns the change of (ns, key) by the current command, added
// when new.
func (x *keyIndex) change(ch *BatchChanges, ns, key []byte, cmd LoggedCommand) *KeyChange {
	current := ch.Keys[x.from:]
	if n := len(current); n > 0 && bytes.Equal(current[n-1].Key, key) && current[n-1].NS == string(ns) {
		return &current[n-1]
	}
	name := indexName(string(ns), key)
	switch {
	case x.index != nil:
		if i, ok := x.index[name]; ok {
			return &ch.Keys[i]
		}
	case len(current) <= keyIndexScan:
		for i := range current {
			if bytes.Equal(current[i].Key, key) && current[i].NS == string(ns) {
				return &current[i]
			}
		}
	default:
		x.index = make(map[string]int, len(current))
		for i := range current {
			x.index[indexName(current[i].NS, current[i].Key)] = x.from + i
		}
		if i, ok := x.index[name]; ok {
			return &ch.Keys[i]
		}
	}
	if x.index != nil {
		x.index[name] = len(ch.Keys)
	}
	ch.Keys = append(ch.Keys, KeyChange{NS: string(ns), Key: key, Cmd: cmd, Command: x.command})
	return &ch.Keys[len(ch.Keys)-1]
}

// indexName names (ns, key) as its metadata key without the slot does.
func indexName(ns string, key []byte) string {
	return string(append(metadata.AppendNamespacePrefix(nil, ns), key...))
}

// ReadBefore reads, before the batch is applied, the state of the keys
// it changes: the first command that changes a key starts from the
// database's record, each later one from the state the one before left.
func (s *Storage) ReadBefore(ch *BatchChanges) error {
	if len(ch.Keys) == 0 {
		return nil
	}
	first := map[string]int{}
	at := make([]int, len(ch.Keys))
	var nsKeys [][]byte
	for i := range ch.Keys {
		k := &ch.Keys[i]
		name := indexName(k.NS, k.Key)
		j, ok := first[name]
		if !ok {
			j = len(nsKeys)
			first[name] = j
			nsKeys = append(nsKeys, s.layout.AppendNSKey(nil, k.NS, k.Key))
		}
		at[i] = j
	}
	raws, err := s.multiGet(CFMetadata, nsKeys)
	if err != nil {
		return err
	}
	now := nowMs()
	states := make([]KeyState, len(raws))
	for i, raw := range raws {
		// A record that does not decode counts as no key.
		states[i], _ = keyState(raw, now)
	}
	for i := range ch.Keys {
		k := &ch.Keys[i]
		k.Before = states[at[i]]
		states[at[i]] = k.After(now)
	}
	return nil
}
