// Package server accepts client connections and runs their requests: a
// redcon listener per bind address, one goroutine and one commands.Client
// per connection, protocol limits checked before a request is buffered,
// idle timeouts, and an orderly shutdown that lets running commands finish
// before the storage is closed.
//
// server imports commands, storage and config; nothing of Basalt's imports
// server except cmd/basalt.
package server
