package metadata

import (
	"math/rand"
	"sync/atomic"
	"time"
)

// versionCounterBits is the number of low bits of a version that hold the
// per-process counter; the bits above hold the creation time in µs.
const versionCounterBits = 11

// VersionGenerator makes the version of every newly created collection:
// (unix µs << 11) + (counter mod 2048). Versions only need to be unique per
// user key; a reused version would resurrect an old incarnation's elements.
// It is safe for concurrent use.
type VersionGenerator struct {
	counter atomic.Uint64
}

// NewVersionGenerator returns a generator whose counter starts at a random
// value, as Kvrocks's does.
func NewVersionGenerator() *VersionGenerator {
	g := &VersionGenerator{}
	g.counter.Store(uint64(rand.New(rand.NewSource(time.Now().Unix())).Int63()))
	return g
}

// Next returns a new version for a key created at now.
func (g *VersionGenerator) Next(now time.Time) uint64 {
	c := g.counter.Add(1) - 1
	return uint64(now.UnixMicro())<<versionCounterBits + c%(1<<versionCounterBits)
}

// VersionTime returns the creation time encoded in a version.
func VersionTime(version uint64) time.Time {
	return time.UnixMicro(int64(version >> versionCounterBits))
}
