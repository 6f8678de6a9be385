// Package config reads and writes Basalt's configuration in the syntax of
// kvrocks.conf: one `key value` directive per line, `#` comments, quoted
// values, Kvrocks key names. It owns the defaults, the validation of every
// value, and CONFIG GET/SET/REWRITE.
//
// Values that CONFIG SET may change while the server runs are stored in
// atomics, so request paths read them without locks. Config imports only the
// glob package of Basalt's.
package config
