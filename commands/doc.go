// Package commands holds the command table and every command handler.
//
// Each family file (string.go, keys.go, server.go, ...) registers its
// commands in one table with their arity, typed flags and key positions.
// Dispatch decides authentication, admin rights, key locking and statistics
// from those entries in one place; handlers only parse arguments, run a
// storage operation and write one reply to a reply.Sink (Ctx.W): values,
// which the connection renders as RESP2 or RESP3, or which a consumer of
// replies (a script's redis.call) keeps as values.
//
// What a connection is (its authentication and namespace, protocol,
// MULTI queue, WATCH set, subscriptions, blocking wait, MONITOR mode) is
// kept in session/; commands reads and changes it through a Ctx's Session
// and Env.Sessions, and knows nothing of sockets or RESP bytes.
//
// commands imports session, storage, config, metadata and the pure helper
// packages; it must never import server, net or resp (it/lint_test.go).
// The server package owns connections and calls Env.Dispatch for each
// request, with the Ctx Env.NewContext made for its session.
package commands
