package commands

import (
	"strconv"
	"testing"
)

// BenchmarkEvalSHA is EVALSHA of a script doing one GET and one SET, the
// way a connection runs it; BenchmarkGetSet the same two commands sent
// by themselves.
func BenchmarkEvalSHA(b *testing.B) {
	h := newFuzzHarness(b)
	cl := h.client()
	h.env.Dispatch(cl.Ctx, args("script", "load", "local v = redis.call('get', KEYS[1]) redis.call('set', KEYS[1], ARGV[1]) return v"))
	sha := string(cl.W.Bytes()[5:45])
	cl.W.Reset()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		h.env.Dispatch(cl.Ctx, args("evalsha", sha, "1", "k:"+strconv.Itoa(i%1000), "v"))
		cl.W.Reset()
	}
}

func BenchmarkGetSet(b *testing.B) {
	h := newFuzzHarness(b)
	cl := h.client()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		k := "k:" + strconv.Itoa(i%1000)
		h.env.Dispatch(cl.Ctx, args("get", k))
		h.env.Dispatch(cl.Ctx, args("set", k, "v"))
		cl.W.Reset()
	}
}
