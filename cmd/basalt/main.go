// Command basalt is a Redis-protocol database that stores its data on
// RocksDB in the Apache Kvrocks format. It takes a kvrocks.conf-style
// configuration file (-c) and any setting as --<key> <value>.
package main

import (
	"fmt"
	"os"

	"github.com/basaltdb/basalt/commands"
	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/server"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "basalt:", err)
		os.Exit(1)
	}
}

func newRootCommand() *cobra.Command {
	var configFile string
	root := &cobra.Command{
		Use:           "basalt [-c config-file] [--<key> <value> ...]",
		Short:         "Basalt: a Redis-protocol database on RocksDB, in the Kvrocks format",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var overrides [][2]string
			cmd.Flags().Visit(func(f *pflag.Flag) {
				if f.Name != "config" {
					overrides = append(overrides, [2]string{f.Name, f.Value.String()})
				}
			})
			cfg, err := config.Load(configFile, overrides)
			if err != nil {
				return err
			}
			return server.Run(cfg)
		},
	}
	root.Flags().StringVarP(&configFile, "config", "c", "", "config file in kvrocks.conf syntax (- for standard input); none means built-in defaults")
	root.Flags().SortFlags = false
	root.CompletionOptions.DisableDefaultCmd = true
	for _, o := range config.New().Options() {
		help := o.Help + " (default " + fmt.Sprintf("%q", o.Default) + ")"
		root.Flags().String(o.Name, "", help)
	}
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Run: func(*cobra.Command, []string) {
			fmt.Printf("basalt %s (redis %s compatible)\n", commands.Version, commands.RedisVersion)
		},
	})
	return root
}
