package commands

import (
	"log/slog"

	"github.com/basaltdb/basalt/executor"
)

func init() {
	executor.Register(
		&executor.Command{Name: "bgsave", Arity: -1, Flags: executor.Admin, Handler: cmdBgsave},
		&executor.Command{Name: "lastsave", Arity: 1, Flags: executor.Admin | executor.Fast, Handler: cmdLastsave},
		&executor.Command{Name: "flushbackup", Arity: 1, Flags: executor.Admin | executor.KvrocksOnly, Handler: cmdFlushBackup,
			Meta: &executor.Meta{
				Doc: doc("summary", "Deletes the backup BGSAVE made in backup-dir",
					"group", "server", "complexity", "O(N) where N is the number of files of the backup"),
			}},
	)
}

// BGSAVE [SCHEDULE]
//
// Replaces the backup in backup-dir by a checkpoint of the database, in
// the background, replying OK as Kvrocks. While one runs, SCHEDULE (as in
// Redis) makes another start once it ends.
func cmdBgsave(c *executor.Ctx) {
	switch {
	case len(c.Args) > 2 || len(c.Args) == 2 && !c.Is(1, "schedule"):
		c.ErrorString(executor.ErrSyntax)
	case len(c.Args) == 2 && c.Env.ScheduleBGSave():
		c.W.Simple("Background saving scheduled")
	case c.OK(c.Env.BGSave("manual")):
		c.W.OK()
	}
}

// LASTSAVE
//
// When the last BGSAVE began, or when the server started, in Unix seconds.
func cmdLastsave(c *executor.Ctx) {
	c.W.Int(c.Env.LastSave().Unix())
}

// FLUSHBACKUP
//
// Deletes the backup in backup-dir, once a running BGSAVE is done.
func cmdFlushBackup(c *executor.Ctx) {
	if c.OK(c.Env.PurgeBackup(true)) {
		slog.Info("flushbackup was triggered by manual with executed success")
		c.W.OK()
	}
}
