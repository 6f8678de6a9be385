package executor

import (
	"github.com/basaltdb/basalt/session"
)

// serveBlocked serves the waiters on the keys s's command made ready,
// and on the keys their own commands make ready in turn. Dispatch calls
// it when a command is done, before its reply is sent.
func (e *Env) serveBlocked(s *session.Session) {
	e.serveKeys(e.Sessions.Blocking.TakeReady(s))
}

// serveKeys serves the waiters on the ready keys of queue, in turn, and
// on the keys their own commands make ready.
func (e *Env) serveKeys(queue []session.ReadyKey) {
	b := &e.Sessions.Blocking
	for len(queue) > 0 {
		rk := queue[0]
		queue = queue[1:]
		var spent []string // the pools that found nothing
		for {
			w := b.Claim(rk, spent)
			if w == nil {
				break
			}
			served := e.serveOne(w, []byte(rk.Key))
			// Its writes are taken before it goes: the next
			// command of its connection must not find them.
			more := b.TakeReady(w.Session)
			for b.Served(w, served) {
				// Another write came: the pools that found
				// nothing before it may find something now.
				spent = nil
				served = e.serveOne(w, []byte(rk.Key))
				more = append(more, b.TakeReady(w.Session)...)
			}
			queue = append(queue, more...)
			if !served {
				spent = append(spent, w.Pool)
			}
		}
	}
}

// serveOne runs w's command from key for it, as its own connection would
// have, and reports whether that served it: a reply other than null.
func (e *Env) serveOne(w *session.Waiter, key []byte) bool {
	s := w.Session
	args := w.Serve(w.Args, key)
	cmd := Lookup(args[0])
	mark := s.W.Len()
	if e.Cluster != nil {
		e.Cluster.BeginWrite()
		defer e.Cluster.EndWrite()
		// The slot may have moved, or be in the last phase of a
		// migration, since the client blocked: it gets the redirect.
		// A slot being imported is served, as Redis serves it (the
		// client blocked on it after ASKING, and the import's writes
		// woke it).
		if err := e.Route(s, cmd, args, true); err != nil {
			s.W.Error(err.Error())
			return true
		}
	}
	e.gate.RLock()
	c := e.NewContext(s)
	e.Execute(c, cmd, args)
	e.gate.RUnlock()
	c.sendHeldInvalidations()
	return s.W.Len() > mark
}
