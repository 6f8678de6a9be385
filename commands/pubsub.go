package commands

import (
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/session"
)

func init() {
	executor.Register(
		&executor.Command{Name: "subscribe", Arity: -2, Flags: executor.NoMulti | executor.SubscriberOK, Handler: cmdSubscribe},
		&executor.Command{Name: "unsubscribe", Arity: -1, Flags: executor.NoMulti | executor.SubscriberOK, Handler: cmdUnsubscribe},
		&executor.Command{Name: "psubscribe", Arity: -2, Flags: executor.NoMulti | executor.SubscriberOK, Handler: cmdPSubscribe},
		&executor.Command{Name: "punsubscribe", Arity: -1, Flags: executor.NoMulti | executor.SubscriberOK, Handler: cmdPUnsubscribe},
		&executor.Command{Name: "ssubscribe", Arity: -2, Flags: executor.NoMulti | executor.SubscriberOK, FirstKey: 1, LastKey: -1, Handler: cmdSSubscribe},
		&executor.Command{Name: "sunsubscribe", Arity: -1, Flags: executor.NoMulti | executor.SubscriberOK, FirstKey: 1, LastKey: -1, Handler: cmdSUnsubscribe},
		&executor.Command{Name: "publish", Arity: 3, Flags: executor.Fast, Handler: cmdPublish},
		&executor.Command{Name: "spublish", Arity: 3, Flags: executor.Fast, FirstKey: 1, LastKey: 1, Handler: cmdSPublish},
		&executor.Command{Name: "mpublish", Arity: -3, Flags: executor.Fast | executor.KvrocksOnly, Handler: cmdMPublish,
			Meta: &executor.Meta{
				Doc: doc("summary", "Posts several messages to a channel, replying the receivers of all of them",
					"group", "pubsub", "complexity", "O(N*M) where N is the number of messages and M the clients subscribed to the channel",
					"arguments", docArgs(docString("channel"), multiple(docString("message")))),
			}},
		&executor.Command{Name: "pubsub", Arity: -2, Subcommands: pubsubSubcommands, Handler: cmdPubSub},
	)
}

// Pub/sub follows Redis, with channels per namespace as in Kvrocks; the
// subscriptions and the pushing of messages are the sessions' (session/pubsub.go).

// SUBSCRIBE channel [channel ...]
func cmdSubscribe(c *executor.Ctx) { c.Session.Subscribe(session.KindChannel, c.Args[1:]) }

// UNSUBSCRIBE [channel ...]
func cmdUnsubscribe(c *executor.Ctx) { c.Session.Unsubscribe(session.KindChannel, c.Args[1:]) }

// PSUBSCRIBE pattern [pattern ...]
func cmdPSubscribe(c *executor.Ctx) { c.Session.Subscribe(session.KindPattern, c.Args[1:]) }

// PUNSUBSCRIBE [pattern ...]
func cmdPUnsubscribe(c *executor.Ctx) { c.Session.Unsubscribe(session.KindPattern, c.Args[1:]) }

// SSUBSCRIBE shardchannel [shardchannel ...]
func cmdSSubscribe(c *executor.Ctx) { c.Session.Subscribe(session.KindShard, c.Args[1:]) }

// SUNSUBSCRIBE [shardchannel ...]
func cmdSUnsubscribe(c *executor.Ctx) { c.Session.Unsubscribe(session.KindShard, c.Args[1:]) }

// PUBLISH channel message
//
// On a master the message is also written for the replicas.
func cmdPublish(c *executor.Ctx) {
	if c.OK(c.Env.PublishToReplicas(c.Session.NamespaceName(), c.Args[1], c.Args[2])) {
		c.W.Int(c.Env.Sessions.Publish(c.Session.NamespaceName(), string(c.Args[1]), c.Args[2], false))
	}
}

// MPUBLISH channel message [message ...], Kvrocks's: each message in turn,
// written for the replicas and delivered, replying the receivers of all of
// them together.
func cmdMPublish(c *executor.Ctx) {
	var receivers int64
	for _, msg := range c.Args[2:] {
		if !c.OK(c.Env.PublishToReplicas(c.Session.NamespaceName(), c.Args[1], msg)) {
			return
		}
		receivers += c.Env.Sessions.Publish(c.Session.NamespaceName(), string(c.Args[1]), msg, false)
	}
	c.W.Int(receivers)
}

// SPUBLISH shardchannel message
func cmdSPublish(c *executor.Ctx) {
	c.W.Int(c.Env.Sessions.Publish(c.Session.NamespaceName(), string(c.Args[1]), c.Args[2], true))
}

// PUBSUB CHANNELS [pattern] | NUMSUB [channel ...] | NUMPAT |
// SHARDCHANNELS [pattern] | SHARDNUMSUB [shardchannel ...] | HELP
func cmdPubSub(c *executor.Ctx) {
	executor.DispatchSub(c)
}

var pubsubSubcommands = map[string]*executor.Subcommand{
	"channels":      {Arity: -2, Handler: func(c *executor.Ctx) { pubsubChannels(c, session.KindChannel) }},
	"shardchannels": {Arity: -2, Handler: func(c *executor.Ctx) { pubsubChannels(c, session.KindShard) }},
	"numsub":        {Arity: -2, Handler: func(c *executor.Ctx) { pubsubNumSub(c, session.KindChannel) }},
	"shardnumsub":   {Arity: -2, Handler: func(c *executor.Ctx) { pubsubNumSub(c, session.KindShard) }},
	"numpat": {Arity: 2, Handler: func(c *executor.Ctx) {
		c.W.Int(int64(len(c.Env.Sessions.PubSub.Names(c.Session.NamespaceName(), session.KindPattern, nil))))
	}},
	"help": executor.Help(
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
func pubsubChannels(c *executor.Ctx, kind int) {
	if len(c.Args) > 3 {
		c.ErrorString("ERR unknown subcommand or wrong number of arguments for '" + executor.Abbreviate(c.Args[1]) + "'. Try PUBSUB HELP.")
		return
	}
	var pattern []byte
	if len(c.Args) == 3 {
		pattern = c.Args[2]
	}
	c.W.BulkStrings(c.Env.Sessions.PubSub.Names(c.Session.NamespaceName(), kind, pattern))
}

// PUBSUB NUMSUB|SHARDNUMSUB [channel ...]: channel, count, ... as a flat
// array in RESP3 too, as Redis 7.0 answers.
func pubsubNumSub(c *executor.Ctx, kind int) {
	c.W.Array(2 * (len(c.Args) - 2))
	for _, name := range c.Args[2:] {
		c.W.Bulk(name)
		c.W.Int(int64(c.Env.Sessions.PubSub.NumSub(c.Session.NamespaceName(), kind, string(name))))
	}
}
