package commands

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/basaltdb/basalt/glob"
	"github.com/basaltdb/basalt/reply"
	"github.com/basaltdb/basalt/resp"
)

func init() {
	register(
		&Command{Name: "subscribe", Arity: -2, Flags: NoMulti | SubscriberOK, Handler: cmdSubscribe},
		&Command{Name: "unsubscribe", Arity: -1, Flags: NoMulti | SubscriberOK, Handler: cmdUnsubscribe},
		&Command{Name: "psubscribe", Arity: -2, Flags: NoMulti | SubscriberOK, Handler: cmdPSubscribe},
		&Command{Name: "punsubscribe", Arity: -1, Flags: NoMulti | SubscriberOK, Handler: cmdPUnsubscribe},
		&Command{Name: "ssubscribe", Arity: -2, Flags: NoMulti | SubscriberOK, FirstKey: 1, LastKey: -1, Handler: cmdSSubscribe},
		&Command{Name: "sunsubscribe", Arity: -1, Flags: NoMulti | SubscriberOK, FirstKey: 1, LastKey: -1, Handler: cmdSUnsubscribe},
		&Command{Name: "publish", Arity: 3, Flags: Fast, Handler: cmdPublish},
		&Command{Name: "spublish", Arity: 3, Flags: Fast, FirstKey: 1, LastKey: 1, Handler: cmdSPublish},
		&Command{Name: "mpublish", Arity: -3, Flags: Fast | KvrocksOnly, Handler: cmdMPublish},
		&Command{Name: "pubsub", Arity: -2, Handler: cmdPubSub},
	)
}

// Pub/sub follows Redis: a subscribed client receives messages pushed
// through its connection (see Client.Pushes), in publish order, as RESP2
// arrays or RESP3 pushes. Channels are per namespace, as in Kvrocks. A
// subscriber whose unsent messages pass the pubsub class of
// client-output-buffer-limit is
// disconnected; publishers never wait for subscribers.

// subscription kinds: channels, patterns, shard channels.
const (
	kindChannel = iota
	kindPattern
	kindShard
	numKinds
)

var kindVerbs = [numKinds][2]string{
	{"subscribe", "unsubscribe"}, {"psubscribe", "punsubscribe"}, {"ssubscribe", "sunsubscribe"},
}

// pubsub is the server's registry of subscriptions.
type pubsub struct {
	mu sync.RWMutex
	// subs maps namespace + "\x00" + name to its subscribers, per kind.
	subs [numKinds]map[string]map[*Client]bool
	// counts are the subscriptions of each kind, for PUBLISH's fast path.
	counts [numKinds]atomic.Int64
}

func subKey(ns, name string) string { return ns + "\x00" + name }

// set adds or removes one subscription of cl and then, still holding the
// registry, calls then (when not nil): a message published to name is
// pushed to cl after what then pushes. It returns whether the
// subscription changed.
func (ps *pubsub) set(cl *Client, kind int, name string, on bool, then func(changed bool)) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	changed := ps.setLocked(cl, kind, name, on)
	if then != nil {
		then(changed)
	}
	return changed
}

func (ps *pubsub) setLocked(cl *Client, kind int, name string, on bool) bool {
	k := subKey(cl.Namespace, name)
	m := ps.subs[kind][k]
	if on == m[cl] {
		return false
	}
	if on {
		if ps.subs[kind] == nil {
			ps.subs[kind] = map[string]map[*Client]bool{}
		}
		if m == nil {
			m = map[*Client]bool{}
			ps.subs[kind][k] = m
		}
		m[cl] = true
		ps.counts[kind].Add(1)
	} else {
		delete(m, cl)
		if len(m) == 0 {
			delete(ps.subs[kind], k)
		}
		ps.counts[kind].Add(-1)
	}
	return true
}

// publish pushes a message to the subscribers of channel in namespace ns
// (kindChannel and matching patterns, or kindShard) and returns how many
// received it.
func (ps *pubsub) publish(ns, channel string, msg []byte, shard bool) int64 {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	kind, verb := kindChannel, "message"
	if shard {
		kind, verb = kindShard, "smessage"
	}
	n := int64(0)
	direct := messageBytes{verb: verb, channel: channel, msg: msg}
	for cl := range ps.subs[kind][subKey(ns, channel)] {
		cl.push(direct.encoded(int(cl.proto.Load())))
		n++
	}
	if shard || ps.counts[kindPattern].Load() == 0 {
		return n
	}
	prefix := ns + "\x00"
	for k, clients := range ps.subs[kindPattern] {
		pattern, ok := strings.CutPrefix(k, prefix)
		if !ok || !glob.Match([]byte(pattern), []byte(channel), false) {
			continue
		}
		matched := messageBytes{verb: "pmessage", pattern: pattern, channel: channel, msg: msg}
		for cl := range clients {
			cl.push(matched.encoded(int(cl.proto.Load())))
			n++
		}
	}
	return n
}

// names returns the subscribed names of kind in namespace ns matching
// pattern (nil: all), sorted.
func (ps *pubsub) names(ns string, kind int, pattern []byte) []string {
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

func (ps *pubsub) numSub(ns string, kind int, name string) int {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	return len(ps.subs[kind][subKey(ns, name)])
}

// distinct returns how many channels (or patterns) of a kind have
// subscribers, in all namespaces: INFO's pubsub_channels and
// pubsub_patterns.
func (ps *pubsub) distinct(kind int) int {
	ps.mu.RLock()
	defer ps.mu.RUnlock()
	return len(ps.subs[kind])
}

// messageBytes is one message as pushed to subscribers: encoded once per
// protocol and shared, since the subscribers' writers only read it.
type messageBytes struct {
	verb, pattern, channel string
	msg                    []byte
	resp                   [2][]byte // RESP2, RESP3
}

func (m *messageBytes) encoded(proto int) []byte {
	i := min(max(proto-2, 0), 1)
	if m.resp[i] != nil {
		return m.resp[i]
	}
	w := resp.NewWriter()
	w.SetProtocol(proto)
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
	m.resp[i] = w.Bytes()
	return m.resp[i]
}

// subscriptions returns how many channels, patterns and shard channels
// the client is subscribed to.
func (c *Client) subscriptions() int {
	n := 0
	for _, s := range c.subs {
		n += len(s)
	}
	return n
}

// subscribeTo subscribes the client to names of kind, confirming each. A
// confirmation is pushed while the subscription is registered, so that no
// message of the channel overtakes it, and behind the replies the client
// was given before (startPushes).
func subscribeTo(c *Ctx, kind int, names [][]byte) {
	cl := c.Client
	cl.startPushes()
	if cl.subs[kind] == nil {
		cl.subs[kind] = map[string]bool{}
	}
	verb := kindVerbs[kind][0]
	for _, n := range names {
		name := string(n)
		c.Env.pubsub.set(cl, kind, name, true, func(changed bool) {
			if changed {
				cl.subs[kind][name] = true
			}
			cl.push(confirmation(cl, verb, name, true, kind))
		})
	}
	cl.subN[kind].Store(int64(len(cl.subs[kind])))
}

// unsubscribeFrom unsubscribes the client from names of kind (none: all),
// confirming each; in order with its messages for a client that receives
// pushes, as a plain reply for one that never subscribed.
func unsubscribeFrom(c *Ctx, kind int, names [][]byte) {
	cl := c.Client
	verb := kindVerbs[kind][1]
	var list []string
	for _, n := range names {
		list = append(list, string(n))
	}
	if len(names) == 0 {
		for name := range cl.subs[kind] {
			list = append(list, name)
		}
		sort.Strings(list)
	}
	if !cl.Pushing() {
		// Nothing to take back: the replies need no lock.
		if len(list) == 0 {
			writeConfirmation(c.W, verb, "", false, 0)
		}
		for _, name := range list {
			writeConfirmation(c.W, verb, name, true, 0)
		}
		return
	}
	cl.queueReplies()
	if len(list) == 0 {
		cl.push(confirmation(cl, verb, "", false, kind))
	}
	for _, name := range list {
		c.Env.pubsub.set(cl, kind, name, false, func(bool) {
			delete(cl.subs[kind], name)
			cl.push(confirmation(cl, verb, name, true, kind))
		})
	}
	cl.subN[kind].Store(int64(len(cl.subs[kind])))
}

// confirmation renders [verb, name, count] in the client's protocol;
// Redis counts channels and patterns together, shard channels apart.
func confirmation(cl *Client, verb, name string, named bool, kind int) []byte {
	count := len(cl.subs[kindShard])
	if kind != kindShard {
		count = len(cl.subs[kindChannel]) + len(cl.subs[kindPattern])
	}
	w := resp.NewWriter()
	w.SetProtocol(cl.W.Protocol())
	writeConfirmation(w, verb, name, named, count)
	return w.Bytes()
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

// unsubscribeAll drops every subscription of a closing client.
func (ps *pubsub) unsubscribeAll(cl *Client) {
	for kind, names := range cl.subs {
		for name := range names {
			ps.set(cl, kind, name, false, nil)
		}
	}
}

// SUBSCRIBE channel [channel ...]
func cmdSubscribe(c *Ctx) { subscribeTo(c, kindChannel, c.Args[1:]) }

// UNSUBSCRIBE [channel ...]
func cmdUnsubscribe(c *Ctx) { unsubscribeFrom(c, kindChannel, c.Args[1:]) }

// PSUBSCRIBE pattern [pattern ...]
func cmdPSubscribe(c *Ctx) { subscribeTo(c, kindPattern, c.Args[1:]) }

// PUNSUBSCRIBE [pattern ...]
func cmdPUnsubscribe(c *Ctx) { unsubscribeFrom(c, kindPattern, c.Args[1:]) }

// SSUBSCRIBE shardchannel [shardchannel ...]
func cmdSSubscribe(c *Ctx) { subscribeTo(c, kindShard, c.Args[1:]) }

// SUNSUBSCRIBE [shardchannel ...]
func cmdSUnsubscribe(c *Ctx) { unsubscribeFrom(c, kindShard, c.Args[1:]) }

// PUBLISH channel message
func cmdPublish(c *Ctx) {
	c.W.Int(c.Env.pubsub.publish(c.Client.Namespace, string(c.Args[1]), c.Args[2], false))
}

// MPUBLISH channel message [message ...], Kvrocks's: each message in turn,
// replying the receivers of all of them together.
func cmdMPublish(c *Ctx) {
	var receivers int64
	for _, msg := range c.Args[2:] {
		receivers += c.Env.pubsub.publish(c.Client.Namespace, string(c.Args[1]), msg, false)
	}
	c.W.Int(receivers)
}

// SPUBLISH shardchannel message
func cmdSPublish(c *Ctx) {
	c.W.Int(c.Env.pubsub.publish(c.Client.Namespace, string(c.Args[1]), c.Args[2], true))
}

// PUBSUB CHANNELS [pattern] | NUMSUB [channel ...] | NUMPAT |
// SHARDCHANNELS [pattern] | SHARDNUMSUB [shardchannel ...] | HELP
func cmdPubSub(c *Ctx) {
	dispatchSub(c, pubsubSubcommands)
}

var pubsubSubcommands = map[string]subcommand{
	"channels":      {-2, func(c *Ctx) { pubsubChannels(c, kindChannel) }},
	"shardchannels": {-2, func(c *Ctx) { pubsubChannels(c, kindShard) }},
	"numsub":        {-2, func(c *Ctx) { pubsubNumSub(c, kindChannel) }},
	"shardnumsub":   {-2, func(c *Ctx) { pubsubNumSub(c, kindShard) }},
	"numpat": {2, func(c *Ctx) {
		c.W.Int(int64(len(c.Env.pubsub.names(c.Client.Namespace, kindPattern, nil))))
	}},
	"help": help(
		"PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
		"CHANNELS [<pattern>]",
		"    Return the currently active channels matching a <pattern> (default: '*').",
		"NUMPAT",
		"    Return number of subscriptions to patterns.",
		"NUMSUB [<channel> ...]",
		"    Return the number of subscribers for the specified channels, excluding",
		"    pattern subscriptions(default: no channels).",
		"SHARDCHANNELS [<pattern>]",
		"    Return the currently active shard level channels matching a <pattern> (default: '*').",
		"SHARDNUMSUB [<shardchannel> ...]",
		"    Return the number of subscribers for the specified shard level channel(s)",
		"HELP",
		"    Prints this help.",
	),
}

// PUBSUB CHANNELS|SHARDCHANNELS [pattern]: more arguments are refused in
// the handler, with the text Redis gives there.
func pubsubChannels(c *Ctx, kind int) {
	if len(c.Args) > 3 {
		c.ErrorString("ERR unknown subcommand or wrong number of arguments for '" + abbreviate(c.Args[1]) + "'. Try PUBSUB HELP.")
		return
	}
	var pattern []byte
	if len(c.Args) == 3 {
		pattern = c.Args[2]
	}
	c.W.BulkStrings(c.Env.pubsub.names(c.Client.Namespace, kind, pattern))
}

// PUBSUB NUMSUB|SHARDNUMSUB [channel ...]: channel, count, ... as a flat
// array in RESP3 too, as Redis 7.0 answers.
func pubsubNumSub(c *Ctx, kind int) {
	c.W.Array(2 * (len(c.Args) - 2))
	for _, name := range c.Args[2:] {
		c.W.Bulk(name)
		c.W.Int(int64(c.Env.pubsub.numSub(c.Client.Namespace, kind, string(name))))
	}
}
