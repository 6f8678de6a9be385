// Package replication is Kvrocks's replication, on its wire protocol
// (shared/REPLICATION.md): the master side (PSYNC evaluated against the
// WAL, one feed per replica streaming the committed write batches as RESP
// bulk strings, checkpoints and their files for full syncs) and the
// replica side (the state machine that connects to a master, handshakes,
// applies the streamed batches unchanged so that sequence numbers match
// the master's, and falls back to a full sync).
//
// Connections reach the master side through the server, which hands a
// connection over once PSYNC, _fetch_meta or _fetch_file was accepted;
// from then on this package owns the socket.
//
// replication imports storage and config; it must never import commands
// or server.
package replication
