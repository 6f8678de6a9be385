// Package scripting is the Lua 5.1 environment of EVAL and FUNCTION, on
// gopher-lua: the redis.* API, the libraries Redis loads (string, table,
// math, cjson, cmsgpack, bit, struct, and os.clock), the sandbox that
// keeps scripts from changing their globals, the conversions of replies
// to Lua values and of Lua values to replies, Redis 7.0's error texts,
// the cache of compiled scripts, the function libraries, and the run
// control that makes a long script busy and kills it.
//
// scripting knows nothing of commands: a script's redis.call goes to a
// Caller, which runs one command into a reply.Sink (a reply.Capture,
// whose values are converted to Lua). It imports reply and gopher-lua
// only; commands imports it.
package scripting
