// Package it holds integration tests: they start the real basalt binary (and
// a real redis-server as an oracle) on free loopback ports in temporary
// directories, drive them with go-redis and redis-cli, and always stop them.
//
// The binary is $BASALT_BIN when set (make test sets it), otherwise it is
// built once into a temporary directory.
package it
