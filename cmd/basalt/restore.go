package main

import (
	"errors"
	"fmt"

	"github.com/basaltdb/basalt/storage"
	"github.com/spf13/cobra"
)

// newRestoreCommand is `basalt restore --from <backup> --dir <dir>`: the
// backup BGSAVE made in backup-dir becomes the database of a data
// directory, for a server started on it next.
func newRestoreCommand() *cobra.Command {
	var from, dir string
	c := &cobra.Command{
		Use:   "restore --from <backup-dir> --dir <dir>",
		Short: "Make a backup (what BGSAVE wrote in backup-dir) the database of data directory <dir>",
		Long: `Copies a backup into <dir>/db (hard links for the SST files where both are on
one file system), for a server then started with --dir <dir>. Run it while no
server uses <dir>; it refuses to overwrite an existing <dir>/db.`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(*cobra.Command, []string) error {
			if from == "" || dir == "" {
				return errors.New("restore needs --from <backup-dir> and --dir <dir>")
			}
			if err := storage.RestoreBackup(from, dir); err != nil {
				return err
			}
			fmt.Printf("restored %s into %s; start the server with --dir %s\n", from, dir, dir)
			return nil
		},
	}
	c.Flags().StringVar(&from, "from", "", "the backup directory (backup-dir)")
	c.Flags().StringVar(&dir, "dir", "", "the data directory to restore into (the server's dir)")
	return c
}
