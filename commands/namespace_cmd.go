package commands

import (
	"crypto/subtle"
	"strings"

	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/metadata"
	"github.com/basaltdb/basalt/namespace"
	"github.com/basaltdb/basalt/storage"
)

func init() {
	executor.Register(
		// Admin only but for CURRENT, which any user asks of its own
		// connection.
		&executor.Command{Name: "namespace", Arity: -2, Flags: executor.Admin | executor.KvrocksOnly, Secret: namespaceSecret, Handler: cmdNamespace,
			AnyUser: func(args [][]byte) bool { return len(args) == 2 && strings.EqualFold(string(args[1]), "current") },
			Meta: &executor.Meta{
				Doc: doc("summary", "Lists, adds, changes or deletes namespaces and their tokens (GET, SET, ADD, DEL)",
					"group", "server", "complexity", "O(N) where N is the number of namespaces",
					"arguments", docArgs(docString("subcommand"), docString("namespace"), optional(docString("token")))),
			}},
		&executor.Command{Name: "movex", Arity: 3, Flags: executor.Write | executor.LocksItself | executor.KvrocksOnly, FirstKey: 1, LastKey: 1, Step: 1, Secret: secretFrom(2), Handler: cmdMoveX,
			Meta: &executor.Meta{
				KeySpecs: []executor.KeySpec{{Flags: []string{"RW", "access", "delete"}, BeginSearch: "index", Index: 1,
					FindKeys: "range", LastKey: 0, KeyStep: 1}},
				Doc: doc("summary", "Moves a key to the namespace of a token",
					"group", "generic", "complexity", "O(N) where N is the number of elements of the key",
					"arguments", docArgs(docKey("key", 0), docString("token"))),
			}},
	)
}

// NAMESPACE CURRENT | GET <name> | GET * | SET <name> <token> | ADD <name> <token> | DEL <name>
//
// CURRENT (Kvrocks 2.14) is the connection's namespace, to any user; the
// others are the admin's.
// GET * lists name, token pairs, the default namespace last with the admin
// password; GET of the default namespace itself is nil, as in Kvrocks. ADD
// of an existing namespace with its own token succeeds. DEL leaves the
// namespace's keys in the database, as Kvrocks does.
func cmdNamespace(c *executor.Ctx) {
	sub := strings.ToLower(string(c.Args[1]))
	switch {
	case sub == "current" && len(c.Args) == 2:
		c.W.BulkString(c.Session.Namespace)
		return
	case len(c.Args) < 3:
		c.ErrorString("ERR wrong number of arguments")
		return
	}
	r := c.Env.Namespaces
	name := string(c.Args[2])
	switch {
	case sub != "get" && c.Env.Config.ReplNamespaceEnabled.Get() && c.Env.Repl.IsReplica():
		// The tokens live in the database, which only the master writes.
		c.ErrorString("ERR namespace is read-only for slave")
	case sub == "get" && len(c.Args) == 3 && name == "*":
		pairs := r.List()
		c.W.Array(2*len(pairs) + 2)
		for _, p := range pairs {
			c.W.BulkString(p[0])
			c.W.BulkString(p[1])
		}
		c.W.BulkString(metadata.DefaultNamespace)
		c.W.BulkString(c.Env.Config.RequirePass.Get())
	case sub == "get" && len(c.Args) == 3:
		if token, ok := r.Get(name); ok && name != metadata.DefaultNamespace {
			c.W.BulkString(token)
		} else {
			c.W.Null()
		}
	case (sub == "set" || sub == "add") && len(c.Args) == 4:
		token := string(c.Args[3])
		switch current, exists := r.Get(name); {
		case c.Env.Config.RequirePass.Get() == "":
			c.ErrorString("ERR " + namespace.ErrRequirePassEmpty.Error())
		case token == c.Env.Config.MasterAuth.Get():
			// Kvrocks refuses the masterauth as a token, even an empty one.
			c.ErrorString("ERR " + namespace.ErrTokenIsPassword.Error())
		case sub == "add" && exists && current == token:
			c.W.OK()
		case sub == "add" || name == metadata.DefaultNamespace:
			// Kvrocks sets the default namespace through its ADD path.
			okOrErr(c, r.Add(name, token))
		default:
			okOrErr(c, r.Set(name, token))
		}
	case sub == "del" && len(c.Args) == 3:
		okOrErr(c, r.Del(name))
	default:
		c.ErrorString("ERR NAMESPACE subcommand must be one of GET, SET, DEL, ADD")
	}
}

// okOrErr replies OK, or the error as an ERR reply.
func okOrErr(c *executor.Ctx, err error) {
	if err != nil {
		c.ErrorString("ERR " + err.Error())
		return
	}
	c.W.OK()
}

// MOVEX key token
//
// Moves key to the namespace token opens (the default one for the admin
// password), unless the key exists there; replies 1 when moved, else 0.
func cmdMoveX(c *executor.Ctx) {
	if c.Env.Config.RequirePass.Get() == "" {
		c.ErrorString("ERR Forbidden to move key when requirepass is empty")
		return
	}
	token := c.Args[2]
	ns, ok := c.Env.Namespaces.Lookup(token)
	if subtle.ConstantTimeCompare(token, []byte(c.Env.Config.RequirePass.Get())) == 1 {
		ns, ok = metadata.DefaultNamespace, true
	}
	if !ok {
		// A wrong token is a failed authentication: counted and logged.
		authFailed(c)
		c.ErrorString("ERR Invalid password")
		return
	}
	key := c.Args[1]
	var moved bool
	var err error
	w := storage.Write{NS: c.DB.Namespace(), Keys: [][]byte{key}, Also: []storage.Key{{NS: ns, Name: key}}, By: c}
	applyErr := c.Env.Storage.Update(&w, func(db storage.DB) {
		moved, err = db.MoveTo(key, db.Sibling(ns))
	})
	if err == nil {
		err = applyErr
	}
	if c.OK(err) {
		c.IntBool(moved)
	}
}
