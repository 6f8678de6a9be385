// Package it holds integration tests: they start the real basalt binary (and
// a real redis-server as an oracle) on free loopback ports in temporary
// directories, drive them with go-redis and redis-cli, and always stop them.
//
// The binary is $BASALT_BIN when set (make test sets it), otherwise it is
// built once into a temporary directory.
//
// The TestKvrocks... tests also run a real Apache Kvrocks ($KVROCKS_BIN,
// default ../shared/kvrocks/kvrocks from the module root; skipped where
// absent): `go test ./it -run Kvrocks` runs them all.
package it
