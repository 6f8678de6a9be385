// Package server accepts client connections and runs their requests: a
// listener per bind address, and per connection one goroutine that reads
// requests with resp.Reader (every length checked before it is buffered,
// memory reported against client-query-buffer-limit and
// maxmemory-clients), runs them through executor.Env and sends the
// replies of a pipeline in one write; a pusher goroutine for clients that
// receive pub/sub messages or MONITOR lines. It also runs idle timeouts,
// the crons, and an orderly shutdown that lets running commands finish
// before the storage is closed.
//
// server imports executor, storage, resp and config, never commands (the
// handlers cmd/basalt links in); nothing of Basalt's imports server except
// cmd/basalt.
package server
