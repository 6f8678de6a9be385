// Command basalt is a Redis-protocol database that stores its data on
// RocksDB in the Apache Kvrocks format. It takes a kvrocks.conf-style
// configuration file (-c) and any setting as --<key> <value>, as Kvrocks
// does: a key nobody knows is a warning, a bad value stops it.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	// The handlers: each family file registers its commands in the
	// executor's table from init.
	_ "github.com/basaltdb/basalt/commands"
	"github.com/basaltdb/basalt/config"
	"github.com/basaltdb/basalt/executor"
	"github.com/basaltdb/basalt/server"
	"github.com/spf13/cobra"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "basalt:", err)
		os.Exit(1)
	}
}

// errUsage is a command line that is not `[-c file] [--key value ...]`.
var errUsage = errors.New("usage")

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "basalt [-c config-file] [--<key> <value> ...]",
		Short: "Basalt: a Redis-protocol database on RocksDB, in the Kvrocks format",
		// The settings are not cobra flags: like Kvrocks, basalt takes
		// any --key value and warns about the keys it does not know.
		DisableFlagParsing: true,
		Args:               cobra.ArbitraryArgs,
		SilenceUsage:       true,
		SilenceErrors:      true,
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := parseArgs(args)
			switch {
			case errors.Is(err, errUsage):
				fmt.Fprintln(os.Stderr, "basalt:", err)
				printHelp(os.Stderr)
				os.Exit(1)
			case err != nil:
				return err
			case a.help:
				return cmd.Help()
			case a.version:
				printVersion()
				return nil
			}
			if a.configFile == "" {
				fmt.Println("WARNING: No config file specified, using the default configuration. In order to specify a config file use 'basalt -c /path/to/basalt.conf'")
			}
			cfg, err := config.Load(a.configFile, a.overrides)
			if err != nil {
				return err
			}
			// As Kvrocks, the warnings of loading go to standard output
			// before anything else (the log may be a file).
			for _, w := range cfg.Warnings {
				fmt.Println("WARNING: " + w)
			}
			if err := executor.Rename(cfg.Renames()); err != nil {
				return err
			}
			return server.Run(cfg)
		},
	}
	root.SetHelpFunc(func(cmd *cobra.Command, _ []string) { printHelp(cmd.OutOrStdout()) })
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Run:   func(*cobra.Command, []string) { printVersion() },
	})
	root.AddCommand(newRestoreCommand())
	return root
}

func printVersion() {
	fmt.Printf("basalt %s (redis %s compatible)\n", executor.Version, executor.RedisCompat)
}

// printHelp prints the usage and every key with its default and help.
func printHelp(w io.Writer) {
	fmt.Fprint(w, `Basalt: a Redis-protocol database on RocksDB, in the Kvrocks format

Usage:
  basalt [-c config-file] [--<key> <value> ...]
  basalt version
  basalt restore --from <backup-dir> --dir <dir>

  -c, --config <file>   config file in kvrocks.conf syntax (- for standard input);
                        none means built-in defaults
  -v, --version         print the version
  -h, --help            print this help
  --<key> <value>       set a config key, over the file (--<key>=<value> too)

Config keys:
`)
	for _, o := range config.New().Options() {
		fmt.Fprintf(w, "  --%s (default %q)\n        %s\n", o.Name, o.Default, o.Help)
	}
}

// cmdArgs is what the command line asks for.
type cmdArgs struct {
	configFile    string
	overrides     [][2]string
	help, version bool
}

// parseArgs reads Kvrocks's command line: -c/--config <file>, -h/--help,
// -v/--version, and --<key> <value> (or --<key>=<value>) for any key, in
// order. The value is the next argument whatever it looks like, so that
// negative numbers and empty strings pass.
func parseArgs(args []string) (cmdArgs, error) {
	var a cmdArgs
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch arg {
		case "-h", "--help":
			a.help = true
			continue
		case "-v", "--version":
			a.version = true
			continue
		}
		name, value, hasValue := strings.Cut(arg, "=")
		if !strings.HasPrefix(name, "-") || name == "-" || name == "--" {
			return a, fmt.Errorf("%w: unexpected argument %q", errUsage, arg)
		}
		if !hasValue {
			if i+1 >= len(args) {
				return a, fmt.Errorf("%w: %s needs a value", errUsage, arg)
			}
			i++
			value = args[i]
		}
		switch name {
		case "-c", "--config":
			a.configFile = value
		default:
			if !strings.HasPrefix(name, "--") {
				return a, fmt.Errorf("%w: unknown option %q", errUsage, name)
			}
			a.overrides = append(a.overrides, [2]string{name[2:], value})
		}
	}
	return a, nil
}
