package commands

import (
	"strings"
)

// Secrets in arguments (passwords, namespace tokens) never leave the
// server: SLOWLOG and MONITOR show "(redacted)" in their place, as Redis
// does. A command that carries one says where in its table entry
// (Command.Secret).

// secretFrom marks every argument from index first on (AUTH's).
func secretFrom(first int) func(args [][]byte, i int) bool {
	return func(_ [][]byte, i int) bool { return i >= first }
}

// secretAfterWord marks the n arguments after the word (in any case) at
// an odd position: HELLO's "AUTH username password".
func secretAfterWord(word string, n int) func(args [][]byte, i int) bool {
	return func(args [][]byte, i int) bool {
		for j := i - 1; j >= i-n && j >= 1; j-- {
			if strings.EqualFold(string(args[j]), word) {
				return true
			}
		}
		return false
	}
}

// configSecret marks the values of CONFIG SET's requirepass and
// masterauth.
func configSecret(args [][]byte, i int) bool {
	if len(args) < 4 || !strings.EqualFold(string(args[1]), "set") || i < 3 || i%2 == 0 {
		return false
	}
	name := strings.ToLower(string(args[i-1]))
	return name == "requirepass" || name == "masterauth"
}

// namespaceSecret marks the token of NAMESPACE ADD and SET.
func namespaceSecret(args [][]byte, i int) bool {
	sub := strings.ToLower(string(args[1]))
	return i == 3 && (sub == "add" || sub == "set")
}
