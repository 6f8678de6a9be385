package commands

import "github.com/basaltdb/basalt/session"

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

// Pub/sub follows Redis, with channels per namespace as in Kvrocks; the
// subscriptions and the pushing of messages are the sessions' (session/pubsub.go).

// SUBSCRIBE channel [channel ...]
func cmdSubscribe(c *Ctx) { c.Session.Subscribe(session.KindChannel, c.Args[1:]) }

// UNSUBSCRIBE [channel ...]
func cmdUnsubscribe(c *Ctx) { c.Session.Unsubscribe(session.KindChannel, c.Args[1:]) }

// PSUBSCRIBE pattern [pattern ...]
func cmdPSubscribe(c *Ctx) { c.Session.Subscribe(session.KindPattern, c.Args[1:]) }

// PUNSUBSCRIBE [pattern ...]
func cmdPUnsubscribe(c *Ctx) { c.Session.Unsubscribe(session.KindPattern, c.Args[1:]) }

// SSUBSCRIBE shardchannel [shardchannel ...]
func cmdSSubscribe(c *Ctx) { c.Session.Subscribe(session.KindShard, c.Args[1:]) }

// SUNSUBSCRIBE [shardchannel ...]
func cmdSUnsubscribe(c *Ctx) { c.Session.Unsubscribe(session.KindShard, c.Args[1:]) }

// PUBLISH channel message
//
// On a master the message is also written for the replicas.
func cmdPublish(c *Ctx) {
	if c.ok(c.Env.publishToReplicas(c.Session.Namespace, c.Args[1], c.Args[2])) {
		c.W.Int(c.Env.Sessions.Publish(c.Session.Namespace, string(c.Args[1]), c.Args[2], false))
	}
}

// MPUBLISH channel message [message ...], Kvrocks's: each message in turn,
// written for the replicas and delivered, replying the receivers of all of
// them together.
func cmdMPublish(c *Ctx) {
	var receivers int64
	for _, msg := range c.Args[2:] {
		if !c.ok(c.Env.publishToReplicas(c.Session.Namespace, c.Args[1], msg)) {
			return
		}
		receivers += c.Env.Sessions.Publish(c.Session.Namespace, string(c.Args[1]), msg, false)
	}
	c.W.Int(receivers)
}

// SPUBLISH shardchannel message
func cmdSPublish(c *Ctx) {
	c.W.Int(c.Env.Sessions.Publish(c.Session.Namespace, string(c.Args[1]), c.Args[2], true))
}

// PUBSUB CHANNELS [pattern] | NUMSUB [channel ...] | NUMPAT |
// SHARDCHANNELS [pattern] | SHARDNUMSUB [shardchannel ...] | HELP
func cmdPubSub(c *Ctx) {
	dispatchSub(c, pubsubSubcommands)
}

var pubsubSubcommands = map[string]subcommand{
	"channels":      {-2, func(c *Ctx) { pubsubChannels(c, session.KindChannel) }},
	"shardchannels": {-2, func(c *Ctx) { pubsubChannels(c, session.KindShard) }},
	"numsub":        {-2, func(c *Ctx) { pubsubNumSub(c, session.KindChannel) }},
	"shardnumsub":   {-2, func(c *Ctx) { pubsubNumSub(c, session.KindShard) }},
	"numpat": {2, func(c *Ctx) {
		c.W.Int(int64(len(c.Env.Sessions.PubSub.Names(c.Session.Namespace, session.KindPattern, nil))))
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
	c.W.BulkStrings(c.Env.Sessions.PubSub.Names(c.Session.Namespace, kind, pattern))
}

// PUBSUB NUMSUB|SHARDNUMSUB [channel ...]: channel, count, ... as a flat
// array in RESP3 too, as Redis 7.0 answers.
func pubsubNumSub(c *Ctx, kind int) {
	c.W.Array(2 * (len(c.Args) - 2))
	for _, name := range c.Args[2:] {
		c.W.Bulk(name)
		c.W.Int(int64(c.Env.Sessions.PubSub.NumSub(c.Session.Namespace, kind, string(name))))
	}
}
