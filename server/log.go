package server

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/basaltdb/basalt/config"
)

var logLevels = map[string]slog.Level{
	"debug": slog.LevelDebug, "info": slog.LevelInfo, "warning": slog.LevelWarn,
	"error": slog.LevelError, "fatal": slog.LevelError + 4,
}

// setupLogging sends logs to stderr, stdout or <log-dir>/basalt.log at
// log-level, which CONFIG SET can change later. The returned function
// closes the log file.
func setupLogging(cfg *config.Config) (func(), error) {
	var out io.Writer
	closeFn := func() {}
	switch dir := cfg.LogDir.Get(); dir {
	case "", "stderr":
		out = os.Stderr
	case "stdout":
		out = os.Stdout
	default:
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("cannot create log-dir: %w", err)
		}
		f, err := os.OpenFile(filepath.Join(dir, "basalt.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("cannot open log file: %w", err)
		}
		out, closeFn = f, func() { f.Close() }
	}
	level := new(slog.LevelVar)
	level.Set(logLevels[cfg.LogLevel.Get()])
	cfg.Watch("log-level", func() { level.Set(logLevels[cfg.LogLevel.Get()]) })
	slog.SetDefault(slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: level})))
	return closeFn, nil
}
