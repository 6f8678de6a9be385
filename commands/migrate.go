package commands

import (
	"strings"
	"time"

	"github.com/basaltdb/basalt/cluster"
	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
)

func init() {
	executor.Register(
		&executor.Command{Name: "migrate", Arity: -6, Flags: executor.Write, Keys: migrateKeys, Secret: migrateSecret, Handler: cmdMigrate,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Event: "del", Shape: executor.OnDeleted}},
		&executor.Command{Name: "restore-asking", Arity: -4, Flags: executor.Write | executor.Asking, FirstKey: 1, LastKey: 1, Handler: cmdRestore,
			Events: &executor.KeyEvents{Class: config.NotifyGeneric, Event: "restore", Shape: executor.OnReplace}},
	)
}

// migrateOptions are MIGRATE's options from argument 6 on.
type migrateOptions struct {
	copy, replace      bool
	username, password []byte // AUTH password, AUTH2 username password
	secrets            []int  // where username and password are
	firstKey           int    // KEYS: the first key's index, 0: none
	syntaxError        bool
}

// parseMigrateOptions reads the options as Redis 7.0's migrateCommand
// does; KEYS takes every argument after it.
func parseMigrateOptions(args [][]byte) migrateOptions {
	var o migrateOptions
	for i := 6; i < len(args); i++ {
		more := len(args) - 1 - i
		switch word := strings.ToLower(string(args[i])); {
		case word == "copy":
			o.copy = true
		case word == "replace":
			o.replace = true
		case word == "auth" && more >= 1:
			o.password = args[i+1]
			o.secrets = append(o.secrets, i+1)
			i++
		case word == "auth2" && more >= 2:
			o.username, o.password = args[i+1], args[i+2]
			o.secrets = append(o.secrets, i+1, i+2)
			i += 2
		case word == "keys":
			o.firstKey = i + 1
			return o
		default:
			o.syntaxError = true
			return o
		}
	}
	return o
}

// migrateKeys are the keys of MIGRATE: the key argument, or those after
// KEYS when the key argument is empty (none else: the call is refused).
func migrateKeys(args [][]byte) [][]byte {
	switch o := parseMigrateOptions(args); {
	case o.firstKey == 0:
		return args[3:4]
	case len(args[3]) == 0:
		return args[o.firstKey:]
	}
	return nil
}

// migrateSecret marks the username and password of AUTH and AUTH2.
func migrateSecret(args [][]byte, i int) bool {
	for _, at := range parseMigrateOptions(args).secrets {
		if at == i {
			return true
		}
	}
	return false
}

// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
// [AUTH password | AUTH2 username password] [KEYS key [key ...]]
//
// Moves keys to another server as Redis does: their DUMP payloads go to
// the target (cluster.Restore), and the keys the target took are deleted
// here unless COPY. The keys stay locked meanwhile, so no write slips
// between their DUMP and their deletion. Each call opens its own
// connection (Redis keeps them for 10 s).
func cmdMigrate(c *executor.Ctx) {
	o := parseMigrateOptions(c.Args)
	switch {
	case o.syntaxError:
		c.ErrorString(executor.ErrSyntax)
		return
	case o.firstKey > 0 && len(c.Args[3]) > 0:
		c.ErrorString("ERR When using MIGRATE KEYS option, the key argument must be set to the empty string")
		return
	}
	timeout, ok := c.Int(5)
	if !ok {
		return
	}
	db, ok := c.Int(4)
	if !ok {
		return
	}
	if timeout <= 0 {
		timeout = 1000
	}
	items, ok := migrationPayloads(c, migrateKeys(c.Args))
	if !ok {
		return
	}
	if len(items) == 0 {
		c.W.Simple("NOKEY")
		return
	}
	moved, err := cluster.Restore{
		Addr:     cluster.HostPort(c.Args[1], c.Args[2]),
		Timeout:  time.Duration(timeout) * time.Millisecond,
		Username: o.username, Password: o.password,
		DB:      db,
		Replace: o.replace,
		Asking:  c.Env.Cluster != nil,
	}.Send(items)
	if !o.copy && len(moved) > 0 {
		deleted, delErr := c.DB.DelKeys(moved)
		c.Changed = deleted
		if !c.OK(delErr) {
			return
		}
	}
	if err != nil {
		c.ErrorString(err.Error())
		return
	}
	c.W.OK()
}

// migrationPayloads dumps the keys that exist, with their TTLs.
func migrationPayloads(c *executor.Ctx, keys [][]byte) (items []cluster.RestoreItem, ok bool) {
	states, err := c.DB.KeyStates(keys)
	if !c.OK(err) {
		return nil, false
	}
	now := time.Now().UnixMilli()
	for i, k := range keys {
		if !states[i].Alive {
			continue
		}
		payload, found, err := dumpPayload(c, k)
		if !c.OK(err) {
			return nil, false
		}
		if !found {
			continue
		}
		ttl := int64(0)
		if exp := states[i].Expire; exp != 0 {
			ttl = max(exp-now, 1)
		}
		items = append(items, cluster.RestoreItem{Key: k, Payload: payload, TTL: ttl})
	}
	return items, true
}
