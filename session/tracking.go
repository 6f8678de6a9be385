package session

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/basaltdb/basalt/reply"
)

// Client-side caching follows Redis 7.0's CLIENT TRACKING. In the default
// mode the server remembers which clients read which keys (the tracking
// table, bounded by tracking-table-max-keys) and tells each of them once
// when a key it read changes, forgetting the key then. In BCAST mode a
// client is told of every change of a key under one of its prefixes,
// read or not. A message goes to the client itself as a RESP3 push
// ["invalidate", [key, ...]], or, with REDIRECT, to another client: as a
// push in RESP3, as a message of __redis__:invalidate to a RESP2 client
// that subscribes to something. FLUSHDB and FLUSHALL send a null instead
// of keys. Keys are per namespace, as everything else.
//
// Messages are pushed (Session.push), which never blocks: no lock is held
// across a socket. A message for the client whose own command changed
// the key waits until that command's reply is out (the caller queues it,
// see Invalidation.Self), as in Redis.

// Tracking modes and flags of a session.
const (
	trackBcast = 1 << iota
	trackOptIn
	trackOptOut
	trackNoLoop
	trackBrokenRedirect
)

// Caching is CLIENT CACHING's choice for the next command.
type Caching uint8

// The choices: none made, YES (OPTIN), NO (OPTOUT).
const (
	CachingUnset Caching = iota
	CachingYes
	CachingNo
)

// tracking is one session's CLIENT TRACKING state; mu guards it, as the
// writers of other connections read it.
type tracking struct {
	on atomic.Bool
	mu struct {
		sync.Mutex
		flags    int
		redirect int64
		prefixes []string // sorted
	}
	// caching is owned by the session's goroutine.
	caching Caching
}

// TrackingOptions are the options of CLIENT TRACKING ON.
type TrackingOptions struct {
	Redirect                     int64
	Bcast, OptIn, OptOut, NoLoop bool
	Prefixes                     []string
}

// Tracking is the server's table of tracked keys and of BCAST clients.
type Tracking struct {
	clients atomic.Int64 // sessions with tracking on
	mu      struct {
		sync.Mutex
		// keys maps namespace + "\x00" + key to the ids of the clients
		// that read it.
		keys map[string]map[int64]struct{}
		// bcast holds the BCAST clients by namespace.
		bcast map[string]map[*Session]struct{}
	}
}

// Active reports whether any client tracks keys.
func (t *Tracking) Active() bool { return t.clients.Load() > 0 }

// Keys returns how many keys the tracking table holds.
func (t *Tracking) Keys() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.mu.keys)
}

// TrackingOn reports whether CLIENT TRACKING is on.
func (s *Session) TrackingOn() bool { return s.track.on.Load() }

// EnableTracking turns tracking on with opts, as Redis's enableTracking:
// the modes and redirection are replaced, BCAST prefixes added (none:
// every key). The caller checked the options.
func (s *Session) EnableTracking(opts TrackingOptions) {
	t := &s.reg.Tracking
	s.track.mu.Lock()
	if !s.track.on.Load() {
		t.clients.Add(1)
	}
	s.track.on.Store(true)
	s.track.mu.redirect = opts.Redirect
	flags := 0
	for _, f := range []struct {
		on   bool
		flag int
	}{{opts.Bcast, trackBcast}, {opts.OptIn, trackOptIn}, {opts.OptOut, trackOptOut}, {opts.NoLoop, trackNoLoop}} {
		if f.on {
			flags |= f.flag
		}
	}
	s.track.mu.flags = flags
	if opts.Bcast {
		prefixes := opts.Prefixes
		if len(prefixes) == 0 {
			prefixes = []string{""}
		}
		for _, p := range prefixes {
			if !containsString(s.track.mu.prefixes, p) {
				s.track.mu.prefixes = append(s.track.mu.prefixes, p)
			}
		}
		sort.Strings(s.track.mu.prefixes)
	}
	s.track.mu.Unlock()
	if opts.Bcast {
		t.mu.Lock()
		if t.mu.bcast == nil {
			t.mu.bcast = map[string]map[*Session]struct{}{}
		}
		if t.mu.bcast[s.Namespace] == nil {
			t.mu.bcast[s.Namespace] = map[*Session]struct{}{}
		}
		t.mu.bcast[s.Namespace][s] = struct{}{}
		t.mu.Unlock()
	}
	// Invalidations are pushed: the client's output goes through its
	// push stream from now on.
	s.StartPushes()
}

// DisableTracking turns tracking off (CLIENT TRACKING OFF, RESET, a
// closed connection). The keys it read stay in the table until they
// change or are evicted, and are skipped then, as in Redis.
func (s *Session) DisableTracking() {
	t := &s.reg.Tracking
	s.track.mu.Lock()
	was := s.track.on.Swap(false)
	s.track.mu.flags, s.track.mu.redirect, s.track.mu.prefixes = 0, 0, nil
	s.track.mu.Unlock()
	s.track.caching = CachingUnset
	if !was {
		return
	}
	t.clients.Add(-1)
	t.mu.Lock()
	for ns, clients := range t.mu.bcast {
		delete(clients, s)
		if len(clients) == 0 {
			delete(t.mu.bcast, ns)
		}
	}
	t.mu.Unlock()
}

// TrackingState returns the tracking flags as CLIENT TRACKINGINFO names
// them, the redirection (-1 when off, 0 when none) and the prefixes.
func (s *Session) TrackingState() (flags []string, redirect int64, prefixes []string) {
	s.track.mu.Lock()
	defer s.track.mu.Unlock()
	if !s.track.on.Load() {
		return []string{"off"}, -1, nil
	}
	f := s.track.mu.flags
	flags = []string{"on"}
	if f&trackBcast != 0 {
		flags = append(flags, "bcast")
	}
	if f&trackOptIn != 0 {
		flags = append(flags, "optin")
		if s.track.caching == CachingYes {
			flags = append(flags, "caching-yes")
		}
	}
	if f&trackOptOut != 0 {
		flags = append(flags, "optout")
		if s.track.caching == CachingNo {
			flags = append(flags, "caching-no")
		}
	}
	if f&trackNoLoop != 0 {
		flags = append(flags, "noloop")
	}
	if f&trackBrokenRedirect != 0 {
		flags = append(flags, "broken_redirect")
	}
	return flags, s.track.mu.redirect, append([]string(nil), s.track.mu.prefixes...)
}

// TrackingModes reports the modes of a session with tracking on.
func (s *Session) TrackingModes() (bcast, optIn, optOut bool) {
	s.track.mu.Lock()
	defer s.track.mu.Unlock()
	f := s.track.mu.flags
	return f&trackBcast != 0, f&trackOptIn != 0, f&trackOptOut != 0
}

// TrackingPrefixes returns the BCAST prefixes of the session.
func (s *Session) TrackingPrefixes() []string {
	s.track.mu.Lock()
	defer s.track.mu.Unlock()
	return append([]string(nil), s.track.mu.prefixes...)
}

// SetCaching records CLIENT CACHING's choice for the next command.
func (s *Session) SetCaching(c Caching) { s.track.caching = c }

// CommandDone ends what CLIENT CACHING chose once a command other than
// CLIENT ran outside a transaction, as Redis's resetClient.
func (s *Session) CommandDone(wasClient bool) {
	if s.track.caching != CachingUnset && s.Tx == nil && !wasClient {
		s.track.caching = CachingUnset
	}
}

// trackingFlags renders the flags of CLIENT LIST: t tracking, R broken
// redirection, B BCAST.
func (s *Session) trackingFlags(f []byte) []byte {
	if !s.track.on.Load() {
		return f
	}
	s.track.mu.Lock()
	flags := s.track.mu.flags
	s.track.mu.Unlock()
	f = append(f, 't')
	if flags&trackBrokenRedirect != 0 {
		f = append(f, 'R')
	}
	if flags&trackBcast != 0 {
		f = append(f, 'B')
	}
	return f
}

// trackingRedirect returns CLIENT LIST's redir: -1 unless tracking.
func (s *Session) trackingRedirect() int64 {
	if !s.track.on.Load() {
		return -1
	}
	s.track.mu.Lock()
	defer s.track.mu.Unlock()
	return s.track.mu.redirect
}

// Remember adds keys of its namespace that s read to the tracking table,
// unless its mode and CLIENT CACHING say not to, and returns how many keys
// the table holds.
func (s *Session) Remember(keys [][]byte) int {
	if !s.track.on.Load() || len(keys) == 0 {
		return -1
	}
	bcast, optIn, optOut := s.TrackingModes()
	if bcast || (optIn && s.track.caching != CachingYes) || (optOut && s.track.caching == CachingNo) {
		return -1
	}
	t := &s.reg.Tracking
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.mu.keys == nil {
		t.mu.keys = map[string]map[int64]struct{}{}
	}
	for _, k := range keys {
		name := subKey(s.Namespace, string(k))
		ids := t.mu.keys[name]
		if ids == nil {
			ids = map[int64]struct{}{}
			t.mu.keys[name] = ids
		}
		ids[s.ID] = struct{}{}
	}
	return len(t.mu.keys)
}

// Invalidation collects the messages one write sends: those for the
// writing client itself wait in Self until its reply is out.
type Invalidation struct {
	// Writer is the session whose command changed the keys.
	Writer *Session
	// Self are the messages for the writer, to send after its reply.
	Self []func()
}

// Invalidate tells the clients tracking keys of namespace ns that they
// changed, as Redis's trackingInvalidateKey: the readers of each key in
// the default mode, which forget it, and the BCAST clients of a prefix
// of it.
func (t *Tracking) Invalidate(r *Registry, ns string, keys [][]byte, inv *Invalidation) {
	if !t.Active() || len(keys) == 0 {
		return
	}
	t.mu.Lock()
	readers := map[int64][][]byte{}
	var order []int64
	for _, k := range keys {
		name := subKey(ns, string(k))
		for id := range t.mu.keys[name] {
			if readers[id] == nil {
				order = append(order, id)
			}
			readers[id] = append(readers[id], k)
		}
		delete(t.mu.keys, name)
	}
	var bcast []*Session
	for s := range t.mu.bcast[ns] {
		bcast = append(bcast, s)
	}
	t.mu.Unlock()
	for _, id := range order {
		target := r.Get(id)
		if target == nil || !target.TrackingOn() {
			continue
		}
		if b, _, _ := target.TrackingModes(); b {
			continue
		}
		for _, k := range readers[id] {
			r.sendInvalidation(target, [][]byte{k}, false, inv)
		}
	}
	sort.Slice(bcast, func(i, j int) bool { return bcast[i].ID < bcast[j].ID })
	sorted := keys
	if len(bcast) > 0 {
		sorted = sortedKeys(keys)
	}
	for _, target := range bcast {
		for _, p := range target.TrackingPrefixes() {
			var matched [][]byte
			for _, k := range sorted {
				if strings.HasPrefix(string(k), p) {
					matched = append(matched, k)
				}
			}
			if len(matched) > 0 {
				r.sendInvalidation(target, matched, false, inv)
			}
		}
	}
}

// Flushed tells every tracking client of namespace ns (every namespace
// when all) that all its keys changed, and empties their part of the
// table, as Redis's trackingInvalidateKeysOnFlush.
func (t *Tracking) Flushed(r *Registry, ns string, all bool, inv *Invalidation) {
	if !t.Active() {
		return
	}
	t.mu.Lock()
	for name := range t.mu.keys {
		if all || strings.HasPrefix(name, ns+"\x00") {
			delete(t.mu.keys, name)
		}
	}
	t.mu.Unlock()
	for _, s := range r.List() {
		if s.TrackingOn() && (all || s.NamespaceName() == ns) {
			r.sendInvalidation(s, nil, true, inv)
		}
	}
}

// Evict drops keys drawn at random from the table until it holds at most
// max (0: no bound), telling their readers as if they had changed, as
// Redis's trackingLimitUsedSlots.
func (t *Tracking) Evict(r *Registry, max int64, inv *Invalidation) {
	if max <= 0 {
		return
	}
	for {
		t.mu.Lock()
		excess := int64(len(t.mu.keys)) - max
		if excess <= 0 {
			t.mu.Unlock()
			return
		}
		// A map's iteration starts at a random place: its first key is
		// drawn at random, in constant time.
		var victim string
		for name := range t.mu.keys {
			victim = name
			break
		}
		t.mu.Unlock()
		ns, key, _ := strings.Cut(victim, "\x00")
		t.Invalidate(r, ns, [][]byte{[]byte(key)}, inv)
	}
}

// sendInvalidation sends one message to target: keys, or a null when
// flushed. A message for the writer itself waits in inv.Self.
func (r *Registry) sendInvalidation(target *Session, keys [][]byte, flushed bool, inv *Invalidation) {
	target.track.mu.Lock()
	noLoop := target.track.mu.flags&trackNoLoop != 0
	target.track.mu.Unlock()
	if inv != nil && target == inv.Writer {
		if noLoop && !flushed {
			return
		}
		inv.Self = append(inv.Self, func() { r.deliverInvalidation(target, keys, flushed) })
		return
	}
	r.deliverInvalidation(target, keys, flushed)
}

// deliverInvalidation pushes the message to target or to the client it
// redirects to, as Redis's sendTrackingMessage.
func (r *Registry) deliverInvalidation(target *Session, keys [][]byte, flushed bool) {
	target.track.mu.Lock()
	redirect := target.track.mu.redirect
	target.track.mu.Unlock()
	to := target
	if redirect != 0 {
		to = r.Get(redirect)
		if to == nil {
			target.track.mu.Lock()
			target.track.mu.flags |= trackBrokenRedirect
			target.track.mu.Unlock()
			if target.Protocol() == 3 && target.Pushing() {
				target.Push(func(w reply.Sink) {
					w.Push(2)
					w.BulkString("tracking-redir-broken")
					w.Int(redirect)
				})
			}
			return
		}
	}
	switch {
	case to.Protocol() == 3:
		// A redirection's target may never have subscribed nor tracked:
		// it receives pushes from now on.
		to.PushStarting(func(w reply.Sink) {
			w.Push(2)
			w.BulkString("invalidate")
			writeInvalidatedKeys(w, keys, flushed)
		})
	case redirect != 0 && to.subs.any():
		to.Push(func(w reply.Sink) {
			w.Push(3)
			w.BulkString("message")
			w.BulkString("__redis__:invalidate")
			writeInvalidatedKeys(w, keys, flushed)
		})
	}
}

func writeInvalidatedKeys(w reply.Sink, keys [][]byte, flushed bool) {
	if flushed {
		w.Null()
		return
	}
	w.Array(len(keys))
	for _, k := range keys {
		w.Bulk(k)
	}
}

// sortedKeys returns keys in byte order, each once, as Redis's table of
// a prefix holds them.
func sortedKeys(keys [][]byte) [][]byte {
	out := append([][]byte(nil), keys...)
	sort.Slice(out, func(i, j int) bool { return string(out[i]) < string(out[j]) })
	return slices.CompactFunc(out, func(a, b []byte) bool { return string(a) == string(b) })
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// SendAfterReplies sends the messages a command of the session's own
// held back, once its replies so far are queued before them.
func (s *Session) SendAfterReplies(inv *Invalidation) {
	if len(inv.Self) == 0 {
		return
	}
	s.conn.QueueReplies()
	for _, send := range inv.Self {
		send()
	}
	inv.Self = inv.Self[:0]
}
