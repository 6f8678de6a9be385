package session

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/basaltdb/basalt/glob"
	"github.com/basaltdb/basalt/reply"
)

// Pub/sub follows Redis: a subscribed client receives messages pushed
// through its push stream, in publish order, as RESP2 arrays or RESP3
// pushes. Channels are per namespace, as in Kvrocks. A subscriber whose
// unsent messages pass the pubsub class of client-output-buffer-limit is
// disconnected; publishers never wait for subscribers.

// Subscription kinds: channels, patterns, shard channels.
const (
	KindChannel = iota
	KindPattern
	KindShard
	numKinds
)

var kindVerbs = [numKinds][2]string{
	{"subscribe", "unsubscribe"}, {"psubscribe", "punsubscribe"}, {"ssubscribe", "sunsubscribe"},
}

// subscriptions are one session's, per kind; n their counts, which other
// goroutines read (CLIENT LIST).
type subscriptions struct {
	names [numKinds]map[string]bool
	n     [numKinds]atomic.Int64
}

// any reports, from any goroutine, whether there is a subscription.
func (ss *subscriptions) any() bool {
	for i := range ss.n {
		if ss.n[i].Load() > 0 {
			return true
		}
	}
	return false
}

// Subscriptions returns how many channels, patterns and shard channels
// the session is subscribed to.
func (s *Session) Subscriptions() int {
	n := 0
	for _, names := range s.subs.names {
		n += len(names)
	}
	return n
}

// PubSub is the server's registry of subscriptions.
type PubSub struct {
	mu sync.RWMutex
	// subs maps namespace + "\x00" + name to its subscribers, per kind.
	subs [numKinds]map[string]map[*Session]bool
	// counts are the subscriptions of each kind, for PUBLISH's fast path.
	counts [numKinds]atomic.Int64
}

func subKey(ns, name string) string { return ns + "\x00" + name }

// set adds or removes one subscription of s and then, still holding the
// registry, calls then (when not nil): a message published to name is
// pushed to s after what then pushes.
func (ps *PubSub) set(s *Session, kind int, name string, on bool, then func(changed bool)) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	changed := ps.setLocked(s, kind, name, on)
	if then != nil {
		then(changed)
	}
}

func (ps *PubSub) setLocked(s *Session, kind int, name string, on bool) bool {
	k := subKey(s.NamespaceName(), name)
	m := ps.subs[kind][k]
	if on == m[s] {
		return false
	}
	if on {
		if ps.subs[kind] == nil {
			ps.subs[kind] = map[string]map[*Session]bool{}
		}
		if m == nil {
			m = map[*Session]bool{}
			ps.subs[kind][k] = m
		}
		m[s] = true
		ps.counts[kind].Add(1)
	} else {
		delete(m, s)
		if len(m) == 0 {
			delete(ps.subs[kind], k)
		}
		ps.counts[kind].Add(-1)
	}
	return true
}

// Subscribe subscribes s to names of kind, confirming each. A
// confirmation is pushed while the subscription is registered, so that no
// message of the channel overtakes it, and behind the replies the client
// was given before.
func (s *Session) Subscribe(kind int, names [][]byte) {
	s.StartPushes()
	if s.subs.names[kind] == nil {
		s.subs.names[kind] = map[string]bool{}
	}
	verb := kindVerbs[kind][0]
	for _, n := range names {
		name := string(n)
		s.reg.PubSub.set(s, kind, name, true, func(changed bool) {
			if changed {
				s.subs.names[kind][name] = true
			}
			s.pushConfirmation(verb, name, true, kind)
		})
	}
	s.subs.n[kind].Store(int64(len(s.subs.names[kind])))
}

// Unsubscribe unsubscribes s from names of kind (none: all), confirming
// each; in order with its messages for a session that receives pushes, as
// a plain reply for one that never subscribed.
func (s *Session) Unsubscribe(kind int, names [][]byte) {
	verb := kindVerbs[kind][1]
	var list []string
	for _, n := range names {
		list = append(list, string(n))
	}
	if len(names) == 0 {
		for name := range s.subs.names[kind] {
			list = append(list, name)
		}
		sort.Strings(list)
	}
	if !s.Pushing() {
		// Nothing to take back: the replies need no lock.
		s.Replies.Confirmed = true
		if len(list) == 0 {
			writeConfirmation(s.W, verb, "", false, 0)
		}
		for _, name := range list {
			writeConfirmation(s.W, verb, name, true, 0)
		}
		return
	}
	s.conn.QueueReplies()
	if len(list) == 0 {
		s.pushConfirmation(verb, "", false, kind)
	}
	for _, name := range list {
		s.reg.PubSub.set(s, kind, name, false, func(bool) {
			delete(s.subs.names[kind], name)
			s.pushConfirmation(verb, name, true, kind)
		})
	}
	s.subs.n[kind].Store(int64(len(s.subs.names[kind])))
}

// pushConfirmation pushes [verb, name, count]; Redis counts channels and
// patterns together, shard channels apart.
func (s *Session) pushConfirmation(verb, name string, named bool, kind int) {
	count := len(s.subs.names[KindShard])
	if kind != KindShard {
		count = len(s.subs.names[KindChannel]) + len(s.subs.names[KindPattern])
	}
	s.Push(func(w reply.Sink) { writeConfirmation(w, verb, name, named, count) })
}

func writeConfirmation(w reply.Sink, verb, name string, named bool, count int) {
	w.Push(3)
	w.BulkString(verb)
	if named {
		w.BulkString(name)
	} else {
		w.Null()
	}
	w.Int(int64(count))
}

// UnsubscribeAll drops every subscription of s, confirming nothing
// (disconnection, RESET).
func (ps *PubSub) UnsubscribeAll(s *Session) {
	for kind, names := range s.subs.names {
		for name := range names {
			ps.set(s, kind, name, false, nil)
		}
		s.subs.names[kind] = nil
		s.subs.n[kind].Store(0)
	}
}

// Publish pushes a message to the subscribers of channel in namespace ns
// (channel subscribers and matching patterns, or shard subscribers) and
// returns how many received it.
func (r *Registry) Publish(ns, channel string, msg []byte, shard bool) int64 {
	ps := &r.PubSub
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	kind, verb := KindChannel, "message"
	if shard {
		kind, verb = KindShard, "smessage"
	}
	n := int64(0)
	direct := message{render: r.render, verb: verb, channel: channel, msg: msg}
	for s := range ps.subs[kind][subKey(ns, channel)] {
		s.push(direct.encoded(s.Protocol()))
		n++
	}
	if shard || ps.counts[KindPattern].Load() == 0 {
		return n
	}
	prefix := ns + "\x00"
	for k, subscribers := range ps.subs[KindPattern] {
		pattern, ok := strings.CutPrefix(k, prefix)
		if !ok || !glob.Match([]byte(pattern), []byte(channel), false) {
			continue
		}
		matched := message{render: r.render, verb: "pmessage", pattern: pattern, channel: channel, msg: msg}
		for s := range subscribers {
			s.push(matched.encoded(s.Protocol()))
			n++
		}
	}
	return n
}

// Names returns the subscribed names of kind in namespace ns matching
// pattern (nil: all), sorted.
func (ps *PubSub) Names(ns string, kind int, pattern []byte) []string {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	var out []string
	for k := range ps.subs[kind] {
		if name, ok := strings.CutPrefix(k, ns+"\x00"); ok && (pattern == nil || glob.Match(pattern, []byte(name), false)) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// NumSub returns how many sessions subscribe to name of kind in ns.
func (ps *PubSub) NumSub(ns string, kind int, name string) int {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	return len(ps.subs[kind][subKey(ns, name)])
}

// Distinct returns how many channels (or patterns) of a kind have
// subscribers, in all namespaces: INFO's pubsub_channels and
// pubsub_patterns.
func (ps *PubSub) Distinct(kind int) int {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	return len(ps.subs[kind])
}

// message is one message as pushed to subscribers: rendered once per
// protocol and shared, since the subscribers' writers only read it.
type message struct {
	render                 Render
	verb, pattern, channel string
	msg                    []byte
	rendered               [2][]byte // RESP2, RESP3
}

func (m *message) encoded(proto int) []byte {
	i := min(max(proto-2, 0), 1)
	if m.rendered[i] == nil {
		m.rendered[i] = m.render(proto, m.write)
	}
	return m.rendered[i]
}

func (m *message) write(w reply.Sink) {
	if m.pattern != "" {
		w.Push(4)
		w.BulkString(m.verb)
		w.BulkString(m.pattern)
	} else {
		w.Push(3)
		w.BulkString(m.verb)
	}
	w.BulkString(m.channel)
	w.Bulk(m.msg)
}
