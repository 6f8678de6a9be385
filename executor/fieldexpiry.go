package executor

import (
	"errors"
	"log/slog"
	"time"

	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/storage"
)

// The sweep of hash field expiry: every fieldSweepEvery it deletes the
// expired fields of the hashes reads found some in, and of those a walk
// of the keys finds (fieldSweepKeys metadata records a step, at most
// fieldReapLimit fields a hash), publishing "hexpired" on each hash, and
// "del" when its last field went, as Redis's active expiry of fields. A
// replica leaves it to its master, whose deletions it applies.
//
// ReapFields reads the whole hash whatever its limit, so the limit bounds
// the batch a step writes, not its work: at 1000, a hash of 1,000,000
// fields of which 100,000 expired took 100 whole reads (20-40 s of CPU,
// bench -only hashttl), and its HLEN and HRANDFIELD read it whole until
// the last. 100,000 deletions are a batch of a few MB.
const (
	fieldSweepEvery = 100 * time.Millisecond
	fieldSweepKeys  = 1000
	fieldReapLimit  = 100_000
)

// fieldExpiryLoop runs the sweep until the Env stops.
func (e *Env) fieldExpiryLoop() { e.sweepLoop(fieldSweepEvery, e.fieldSweepStep) }

// fieldSweepStep reaps the noted hashes and those of one step of the
// walk from from, and returns where the next step starts.
func (e *Env) fieldSweepStep(from []byte) []byte {
	e.gate.RLock()
	defer e.gate.RUnlock()
	keys := e.Storage.NotedFieldReaps()
	walked, next, err := e.Storage.HashesWithExpiredFields(from, fieldSweepKeys)
	if err != nil {
		slog.Error("hash field expiry: walk the keys", "err", err)
		return nil
	}
	for _, k := range append(keys, walked...) {
		var reaped int
		var gone bool
		var reapErr error
		err := e.Storage.Update(&storage.Write{NS: k.NS, Keys: [][]byte{k.Name}}, func(db storage.DB) {
			reaped, gone, reapErr = db.ReapFields(k.Name, fieldReapLimit)
		})
		if err = errors.Join(err, reapErr); err != nil {
			slog.Error("hash field expiry: delete expired fields", "err", err)
			continue
		}
		if reaped == 0 && !gone {
			continue
		}
		flags := e.notifying()
		e.notify(flags, config.NotifyHash, "hexpired", k.NS, k.Name)
		if gone {
			e.notify(flags, config.NotifyGeneric, "del", k.NS, k.Name)
		}
		e.Sessions.Tracking.Invalidate(e.Sessions, k.NS, [][]byte{k.Name}, nil)
	}
	return next
}
