package replication

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/storage"
)

// A replica that asks for a feed while StopFeeds waits for the feeds to
// end is turned away, its connection closed, instead of getting a feed
// the wait would never see end.
func TestServeRefusedWhileFeedsStop(t *testing.T) {
	cfg, err := config.Load("", [][2]string{{"dir", t.TempDir()}, {"rocksdb.block_cache_size", "8"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := NewMaster(cfg, st)
	m.mu.Lock()
	m.mu.stopping++ // as StopFeeds holds it while it waits
	m.mu.Unlock()

	master, replica := net.Pipe()
	defer replica.Close()
	served := make(chan struct{})
	go func() {
		m.Serve(master, st.LatestSequence()+1, Announced{})
		close(served)
	}()
	select {
	case <-served:
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return while feeds were stopping")
	}
	replica.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := replica.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the replica's connection: read %v, want it closed", err)
	}
	if n := m.Connected(); n != 0 {
		t.Fatalf("%d feeds after a refused one", n)
	}

	// Once StopFeeds is done, feeds run again.
	m.mu.Lock()
	m.mu.stopping--
	m.mu.Unlock()
	master, replica = net.Pipe()
	defer replica.Close()
	go m.Serve(master, st.LatestSequence()+1, Announced{})
	deadline := time.Now().Add(time.Minute)
	for m.Connected() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("a feed asked for after StopFeeds ended never started")
		}
		time.Sleep(time.Millisecond)
	}
	m.StopFeeds()
	if n := m.Connected(); n != 0 {
		t.Fatalf("%d feeds after StopFeeds", n)
	}
}

// TestReadAcksBounded: a replica that sends, after PSYNC, a request
// longer than any acknowledgement loses its feed (the connection is
// closed) once the reader holds a megabyte, instead of being buffered.
func TestReadAcksBounded(t *testing.T) {
	m := &Master{}
	master, replica := net.Pipe()
	defer replica.Close()
	done := make(chan struct{})
	go func() {
		m.readAcks(&feed{nc: master}, true)
		close(done)
	}()
	go func() {
		replica.Write([]byte("*2000000000\r\n"))
		ack := []byte("$1\r\na\r\n")
		for i := 0; i < 100<<20/len(ack); i++ {
			if _, err := replica.Write(ack); err != nil {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the ack reader still reads a request of 100 MB")
	}
}
