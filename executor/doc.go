// Package executor runs commands: the command table that the handlers of
// package commands register into, the Ctx a handler works with, and the
// server-wide state they share (Env): the gate every command takes, the
// script queue and busy scripts, MULTI/EXEC, blocked clients, keyspace
// notifications, client-side caching, statistics, the slow log, latency
// monitor and perf log, INFO's fields, and the callbacks replication and
// the cluster call.
//
// Dispatch decides authentication, admin rights, routing, key locking and
// statistics from the table's entries in one place; handlers never decide
// them. What a connection is (authentication and namespace, protocol,
// MULTI queue, WATCH set, subscriptions, blocking wait, MONITOR mode) is
// kept in session/.
//
// executor imports session, storage, config, cluster, replication,
// scripting, metadata and the pure helper packages; it must never import
// commands, server, metrics, net or resp (it/lint_test.go). The server
// package owns connections and calls Env.Dispatch for each request, with
// the Ctx Env.NewContext made for its session; metrics reads Env's
// counters.
package executor
