package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Rewrite writes the current settings back into the config file: lines of
// known options get the current value, comments and other lines stay as
// they are, namespace lines follow the current tokens (unless they live in
// the database, with repl-namespace-enabled), and options changed
// from their default that the file lacks are appended. The file is replaced
// atomically (temporary file + rename).
func (c *Config) Rewrite() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.path == "" {
		return ErrNoFile
	}
	// With repl-namespace-enabled the tokens live in the database only.
	inFile := !c.ReplNamespaceEnabled.Get()
	seen := map[string]bool{}
	var out []string
	for _, line := range c.mu.lines {
		key, val, err := parseLine(line)
		if err != nil || key == "" || val == "" {
			out = append(out, line)
			continue
		}
		if name, ok := namespaceName(key); ok {
			if token, ok := c.mu.namespaces[name]; ok && inFile && !seen["namespace."+name] {
				out = append(out, "namespace."+name+" "+quote(token))
				seen["namespace."+name] = true
			}
			continue
		}
		o, ok := c.byName[strings.ToLower(key)]
		if !ok {
			out = append(out, line)
			continue
		}
		// As Kvrocks: rename-command lines stay as they are.
		if _, multi := o.value.(*MultiText); multi {
			out = append(out, line)
			continue
		}
		// An old name (an alias) keeps its name.
		canonical := o.canonical()
		if seen[canonical.name] {
			continue
		}
		seen[canonical.name] = true
		out = append(out, o.name+" "+quote(o.value.String()))
	}
	// As Kvrocks: what the file lacks, in key order, unless it is the
	// default (or derived from dir) or empty.
	var missing []string
	for _, o := range c.options {
		if _, multi := o.value.(*MultiText); multi || o.aliasOf != nil {
			continue
		}
		v := o.value.String()
		if !seen[o.name] && v != "" && v != o.def && (o.derived == "" || v != o.derived) {
			missing = append(missing, o.name+" "+quote(v))
		}
	}
	sort.Strings(missing)
	out = append(out, missing...)
	names := make([]string, 0, len(c.mu.namespaces))
	for name := range c.mu.namespaces {
		if inFile && !seen["namespace."+name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		out = append(out, "namespace."+name+" "+quote(c.mu.namespaces[name]))
	}
	content := strings.Join(out, "\n") + "\n"
	tmp, err := os.CreateTemp(filepath.Dir(c.mu.path), ".basalt-conf-*")
	if err != nil {
		return fmt.Errorf("config: rewrite: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return fmt.Errorf("config: rewrite: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("config: rewrite: %w", err)
	}
	if err := os.Rename(tmp.Name(), c.mu.path); err != nil {
		return fmt.Errorf("config: rewrite: %w", err)
	}
	c.mu.lines = out
	return nil
}
