// Package session holds the state of client connections and the
// server-wide registries of that state: who is connected (CLIENT LIST,
// KILL), who listens (pub/sub, MONITOR), who waits (blocking commands,
// WAIT), who watches (WATCH), who caches what (CLIENT TRACKING's table of
// keys and BCAST prefixes), the pause of CLIENT PAUSE and the slow log.
//
// A Session is one connection: its identity, authentication and
// namespace, protocol version, MULTI queue and WATCH set, subscriptions,
// blocking wait, MONITOR mode, name, CLIENT REPLY mode, buffer accounting
// and its ordered push stream. What a command means stays in commands/,
// which reads and changes sessions through this package; the server owns
// the socket and renders replies, and gives each session a Conn and a
// Writer.
//
// session renders no protocol bytes: what it pushes (messages,
// confirmations, MONITOR lines) it writes as reply values through the
// Registry's Render function, which the server supplies. It must not
// import commands, server or resp.
package session
