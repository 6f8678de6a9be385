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
// from then on this package owns the socket. Both sides speak through
// resp: the replica reads its master with a resp.Client (bounded lines,
// bulks up to proto-max-bulk-len), a master reads acknowledgements with a
// resp.Reader and renders its stream with a resp.Writer.
//
// replication imports storage, config and resp; it must never import
// commands or server.
package replication
