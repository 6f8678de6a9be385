package storage

import (
	"strings"
	"testing"

	"github.com/basaltdb/basalt/metadata"
)

// Each published message is a WAL batch of its own whose last Put is the
// message (what a Kvrocks replica delivers), and a replica reads back
// every message of a batch with its namespace.
func TestPublishBatches(t *testing.T) {
	db := newTestDB(t)
	s := db.s
	if _, err := s.ShiftReplID(); err != nil {
		t.Fatal(err)
	}
	first := s.LatestSequence() + 1
	for _, m := range []struct{ ns, channel, msg string }{
		{metadata.DefaultNamespace, "news", "hello"},
		{"tenant one", "news", "to the tenant"},
		{metadata.DefaultNamespace, "news", ""},
	} {
		if err := s.Publish(m.ns, b(m.channel), b(m.msg)); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.LatestSequence() - first + 1; got != 3 {
		t.Fatalf("three messages took %d sequence numbers", got)
	}
	var got []string
	var batches int
	if _, err := s.ReadWALBatches(first-1, func(wb WALBatch) error {
		batches++
		records, err := s.WALRecords(wb.Data)
		if err != nil {
			return err
		}
		last := -1
		for i, r := range records {
			if r.Kind == RecordPut {
				last = i
			}
		}
		if last < 0 || records[last].CF != CFPubSub {
			t.Errorf("batch %d: the last Put is not the message: %+v", wb.Seq, records)
		}
		PublishedMessages(records, func(ns string, channel, message []byte) {
			got = append(got, ns+"|"+string(channel)+"|"+string(message))
		})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := "__namespace|news|hello tenant one|news|to the tenant __namespace|news|"
	if strings.Join(got, " ") != want || batches != 3 {
		t.Fatalf("%d batches with messages %q, want 3 with %q", batches, got, want)
	}
}

// A namespace record names the namespace of the next message only, and a
// batch of a Kvrocks master, without one, is the default namespace's.
func TestPublishedMessagesNamespace(t *testing.T) {
	put := func(cf CF, key string) WALRecord {
		return WALRecord{Kind: RecordPut, CF: cf, Key: b(key), Value: b("m")}
	}
	ns := func(name string) WALRecord {
		return WALRecord{Kind: RecordLogData, Value: append(append([]byte(nil), pubSubNSLog...), name...)}
	}
	records := []WALRecord{
		put(CFPubSub, "a"),
		ns("t1"), put(CFPubSub, "b"),
		put(CFMetadata, "key"), put(CFPubSub, "c"),
		ns("t2"), {Kind: RecordLogData, Value: b("r 0123456789ABCDEF")}, put(CFPubSub, "d"),
	}
	var got []string
	PublishedMessages(records, func(ns string, channel, _ []byte) { got = append(got, ns+":"+string(channel)) })
	if want := "__namespace:a t1:b __namespace:c t2:d"; strings.Join(got, " ") != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
