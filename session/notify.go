package session

// Listening reports whether anyone is subscribed to a channel or a
// pattern: keyspace notifications are published only then.
func (ps *PubSub) Listening() bool {
	return ps.counts[KindChannel].Load() > 0 || ps.counts[KindPattern].Load() > 0
}
