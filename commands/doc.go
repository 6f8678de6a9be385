// Package commands holds the command handlers, one file per family
// (string.go, hash.go, keys.go, server.go, ...).
//
// Each family file registers its commands in the executor's table from
// init, one complete literal per command: arity, typed flags, key
// positions, subcommands, keyspace events, its COMMAND description when
// Redis 7.0 has none, and the handler. Handlers only parse arguments, run
// a storage operation and write one reply to a reply.Sink (Ctx.W): values,
// which the connection renders as RESP2 or RESP3, or which a consumer of
// replies (a script's redis.call) keeps as values.
//
// commands imports executor, session, storage, config, metadata and the
// pure helper packages; nothing imports commands but cmd/basalt, which
// links the handlers in (it/lint_test.go).
package commands
