package it

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestLint keeps the tree gofmt-clean and vet-clean.
func TestLint(t *testing.T) {
	if out, err := exec.Command("gofmt", "-l", "..").CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("gofmt -l: %v\n%s", err, out)
	}
	if out, err := exec.Command("go", "vet", "../...").CombinedOutput(); err != nil {
		t.Fatalf("go vet: %v\n%s", err, out)
	}
}

// forbidden lists, per package, the Basalt packages it must not import, so
// that dependencies only point down the layering of DESIGN.md. The
// executor runs the commands and owns the server's state; the handlers of
// commands register into its table, so it never needs them, nor do the
// listener and /metrics, which reach the server through it.
var forbidden = map[string][]string{
	"metadata":      {"storage", "commands", "server", "config", "resp", "compactfilter"},
	"compactfilter": {"storage", "commands", "server", "config", "resp"},
	"storage":       {"commands", "server", "resp", "cluster", "metrics"},
	"config":        {"storage", "commands", "server", "metadata"},
	"commands":      {"server", "metrics"},
	"executor":      {"commands", "server", "metrics"},
	"session":       {"commands", "executor", "server", "metrics"},
	"metrics":       {"server", "commands"},
	"server":        {"commands"},
	"cluster":       {"commands", "server", "metrics"},
	"resp":          {"storage", "commands", "server", "config", "metadata"},
	"num":           {"storage", "commands", "server", "config", "metadata"},
	"glob":          {"storage", "commands", "server", "config", "metadata"},
	"geohash":       {"storage", "commands", "server", "config", "metadata", "resp"},
	"rdb":           {"storage", "commands", "server", "config", "metadata", "resp"},
}

func TestImportLayering(t *testing.T) {
	const module = "github.com/basaltdb/basalt/"
	for pkg, banned := range forbidden {
		out, err := exec.Command("go", "list", "-deps", "-json", "../"+pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		dec := json.NewDecoder(strings.NewReader(string(out)))
		for dec.More() {
			var p struct{ ImportPath string }
			if err := dec.Decode(&p); err != nil {
				t.Fatal(err)
			}
			for _, b := range banned {
				if p.ImportPath == module+b {
					t.Errorf("%s depends on %s", pkg, b)
				}
			}
		}
	}
}

// leafPackages are the utility packages of ours that import none of ours
// above metadata, which type packages may use besides storage's own;
// reply gives them the typed values a command's reply is made of.
var leafPackages = []string{"num", "glob", "geohash", "reply"}

// TestTypePackages: a data type's package (types/...) is built on the
// engine API of storage (storage/doc.go): it depends on storage, on what
// storage depends on, on leaf packages and on other type packages, never
// on anything above (commands, the executor, sessions, the server,
// cluster, replication, scripting) nor on RocksDB itself; and storage
// depends on no type package.
func TestTypePackages(t *testing.T) {
	const module = "github.com/basaltdb/basalt/"
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	allowed := map[string]bool{}
	for _, p := range deps("../storage") {
		allowed[p] = true
		if strings.HasPrefix(p, module+"types/") {
			t.Errorf("storage depends on %s", p)
		}
	}
	for _, p := range leafPackages {
		allowed[module+p] = true
	}
	out, err := exec.Command("go", "list", "../types/...").Output()
	if err != nil {
		t.Fatalf("go list types: %v", err)
	}
	typePkgs := strings.Fields(string(out))
	if len(typePkgs) < 2 {
		t.Fatalf("type packages: %q", typePkgs)
	}
	for _, pkg := range typePkgs {
		for _, p := range deps(pkg) {
			if strings.HasPrefix(p, module) && !allowed[p] && !strings.HasPrefix(p, module+"types/") {
				t.Errorf("%s depends on %s", pkg, p)
			}
		}
		out, err := exec.Command("go", "list", "-f", "{{join .Imports \" \"}}", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, imp := range strings.Fields(string(out)) {
			if strings.HasPrefix(imp, "github.com/linxGnu/grocksdb") {
				t.Errorf("%s imports %s: RocksDB is storage's", pkg, imp)
			}
		}
	}
}

// notImported lists, per package, what its own files must not import
// (other packages may bring it in below): command handlers know nothing
// of sockets or RESP bytes, and sessions render nothing.
var notImported = map[string][]string{
	"commands": {"net", "github.com/basaltdb/basalt/resp"},
	"executor": {"net", "github.com/basaltdb/basalt/resp"},
	"session":  {"github.com/basaltdb/basalt/resp"},
}

func TestDirectImports(t *testing.T) {
	for pkg, banned := range notImported {
		out, err := exec.Command("go", "list", "-json", "../"+pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		var p struct{ Imports []string }
		if err := json.Unmarshal(out, &p); err != nil {
			t.Fatal(err)
		}
		for _, imp := range p.Imports {
			for _, b := range banned {
				if imp == b {
					t.Errorf("%s imports %s", pkg, b)
				}
			}
		}
	}
}
