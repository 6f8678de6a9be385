package storage

import (
	"bytes"

	"github.com/basaltdb/basalt/metadata"
)

// Pub/sub messages reach replicas through the WAL, as in Kvrocks
// (REPLICATION.md §4): a master's PUBLISH writes Put(pubsub, channel,
// message), which a replica reads in the batches it applies and delivers
// to its own subscribers. Nothing reads the pubsub column family itself;
// its compaction filter drops every record.
//
// Kvrocks's channels are global, Basalt's belong to a namespace: a
// message of another namespace than the default one follows a LogData
// record naming it, which Kvrocks's replicas ignore (they read no
// LogData) and Basalt's use to deliver it in that namespace only.

// pubSubNSLog begins the LogData naming the namespace of the message that
// follows. It starts with neither a digit (Kvrocks's type log data) nor
// "r" (the replication id), so no reader takes it for one of those.
var pubSubNSLog = []byte("basalt-pubsub-ns ")

// Publish writes a published message for the replicas. It is a RocksDB
// write of its own, not joined to any other: a Kvrocks replica delivers a
// batch's message only when it is the batch's last Put.
func (s *Storage) Publish(ns string, channel, message []byte) error {
	ops := make([]op, 0, 2)
	if ns != metadata.DefaultNamespace {
		ops = append(ops, op{kind: opLogData, value: append(append([]byte(nil), pubSubNSLog...), ns...)})
	}
	ops = append(ops, op{kind: opPut, cf: CFPubSub, key: channel, value: message})
	return s.apply(ops, nil, true)
}

// PublishedMessages calls fn with the namespace, channel and message of
// every pub/sub message of a batch's records, in order (Kvrocks's
// replicas deliver only the last record's, when it is one). The bytes
// point into the records.
func PublishedMessages(records []WALRecord, fn func(ns string, channel, message []byte)) {
	ns := metadata.DefaultNamespace
	for _, r := range records {
		switch {
		case r.Kind == RecordLogData && bytes.HasPrefix(r.Value, pubSubNSLog):
			ns = string(r.Value[len(pubSubNSLog):])
		case r.Kind == RecordPut && r.CF == CFPubSub:
			fn(ns, r.Key, r.Value)
			ns = metadata.DefaultNamespace
		}
	}
}
