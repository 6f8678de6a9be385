package cluster

import (
	"errors"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/basaltdb/basalt/resp"
)

// Restore is MIGRATE's delivery of keys to another Redis-protocol server,
// as Redis 7.0's migrateCommand delivers them: one pipeline of AUTH (or
// AUTH with a username), SELECT and a RESTORE per key, each I/O bounded by
// Timeout, over a connection of its own.
type Restore struct {
	Addr               string
	Timeout            time.Duration
	Username, Password []byte // nil: no AUTH
	DB                 int64
	Replace            bool
	// Asking sends RESTORE-ASKING, which a cluster node importing the
	// slot accepts.
	Asking bool
}

// RestoreItem is one key to restore: its DUMP payload and TTL in
// milliseconds (0: none).
type RestoreItem struct {
	Key, Payload []byte
	TTL          int64
}

// Errors of a delivery, in Redis's words.
var (
	ErrRestoreConnect = errors.New("IOERR error or timeout connecting to the client")
	ErrRestoreWrite   = errors.New("IOERR error or timeout writing to target instance")
	ErrRestoreRead    = errors.New("IOERR error or timeout reading to target instance")
)

// Send restores items on the target and returns the keys it took. The
// error is the first the target replied (as "ERR Target instance replied
// with error: ..."), or the connection's. As in Redis, a key counts as
// taken only when AUTH and SELECT passed too.
func (r Restore) Send(items []RestoreItem) (taken [][]byte, err error) {
	target, dialErr := resp.Dial(r.Addr, r.Timeout)
	switch {
	case errors.Is(dialErr, syscall.ECONNREFUSED):
		// Redis connects without blocking and learns of the refusal
		// when it writes.
		return nil, ErrRestoreWrite
	case dialErr != nil:
		return nil, ErrRestoreConnect
	}
	defer target.Close()
	setup := 1 // SELECT's reply, after AUTH's
	switch {
	case r.Username != nil:
		target.Append([]byte("AUTH"), r.Username, r.Password)
		setup++
	case r.Password != nil:
		target.Append([]byte("AUTH"), r.Password)
		setup++
	}
	target.Append([]byte("SELECT"), strconv.AppendInt(nil, r.DB, 10))
	restore := []byte("RESTORE")
	if r.Asking {
		restore = []byte("RESTORE-ASKING")
	}
	for _, it := range items {
		args := [][]byte{restore, it.Key, strconv.AppendInt(nil, it.TTL, 10), it.Payload}
		if r.Replace {
			args = append(args, []byte("REPLACE"))
		}
		target.Append(args...)
	}
	if target.Flush(time.Now().Add(r.Timeout)) != nil {
		return nil, ErrRestoreWrite
	}
	setupFailed := false
	for n := 0; n < setup+len(items); n++ {
		reply, readErr := target.Read(time.Now().Add(r.Timeout))
		if readErr != nil {
			if err == nil {
				err = ErrRestoreRead
			}
			return taken, err
		}
		failed := reply.Kind == '-'
		if failed && err == nil {
			err = errors.New("ERR Target instance replied with error: " + string(reply.Str))
		}
		switch {
		case n < setup:
			setupFailed = setupFailed || failed
		case !failed && !setupFailed:
			taken = append(taken, items[n-setup].Key)
		}
	}
	return taken, err
}

// HostPort joins a host and a port as MIGRATE's arguments give them.
func HostPort(host, port []byte) string { return net.JoinHostPort(string(host), string(port)) }
