package commands

import (
	"errors"
	"log/slog"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/reply"
)

// replyStream writes an array reply whose elements a storage walk hands
// over one by one. When the walk announces how many elements it will hand
// over before the first, the header goes out first and each element as it
// comes, so the writer can send a reply of any length as it grows (LRANGE
// 0 -1 of a long list, SRANDMEMBER s -1099511627776); when it cannot (a
// range by score), the array is deferred until the walk ends.
type replyStream struct {
	c      *executor.Ctx
	factor int // reply items per element: 2 for flat member, score pairs

	started, deferred bool
	d                 reply.Deferred
	items             int // items written
	announced         int // items the array's header announced, when not deferred
}

// errShortWalk is a walk that ended before the elements it announced.
var errShortWalk = errors.New("commands: a walk handed over fewer elements than it announced")

func newReplyStream(c *executor.Ctx, factor int) *replyStream {
	return &replyStream{c: c, factor: factor}
}

// begin starts the reply before the first element; total is the number
// of elements the walk will hand over, or negative when it does not know.
func (s *replyStream) begin(total int64) {
	if s.started {
		return
	}
	s.started = true
	if total < 0 {
		s.deferred, s.d = true, s.c.W.DeferArray()
		return
	}
	s.announced = int(total) * s.factor
	s.c.W.Array(s.announced)
}

// wrote counts the reply items of one element and reports whether the
// walk should go on: not once the client is gone or over its limits.
func (s *replyStream) wrote(items int) bool {
	s.items += items
	return !s.c.W.Failed()
}

// end finishes the reply after the walk returned err: an empty array when
// nothing was handed over, the error reply when nothing was sent yet.
func (s *replyStream) end(err error) {
	if err == nil && s.started && !s.deferred && s.items != s.announced && !s.c.W.Failed() {
		// The walk handed over fewer elements than it announced (records
		// that disagree with their metadata): the reply cannot be ended.
		err = errShortWalk
	}
	switch {
	case err != nil && s.started && !s.deferred:
		// Part of the reply may be sent: the client could not tell where
		// it ends, so it loses the connection rather than read a wrong
		// reply.
		slog.Error("reply cut short", "cmd", s.c.Cmd.Name, "err", err)
		s.c.Session.Kill()
	case err != nil:
		if s.deferred {
			s.c.W.Abandon(s.d)
		}
		s.c.Error(err)
	case !s.started:
		s.c.W.Array(0)
	case s.deferred:
		s.c.W.Finish(s.d, s.items)
	}
}
