package it

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The documentation: README.md and every page of docs/, paths from the
// module root (the tests run in it/).
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/: %v", err)
	}
	return append([]string{"../README.md"}, pages...)
}

var (
	fencedBlock = regexp.MustCompile("(?s)```.*?```")
	codeSpan    = regexp.MustCompile("`[^`]*`")
	// [text](target) and ![alt](target), and [name]: target definitions.
	inlineLink    = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	referenceLink = regexp.MustCompile(`(?m)^\s*\[[^\]]+\]:\s*(\S+)`)
)

// TestDocLinks: every relative link of README.md and docs/ leads to a file
// or directory of the repository, and an anchor to a heading of its page.
func TestDocLinks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range docFiles(t) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		prose := codeSpan.ReplaceAllString(fencedBlock.ReplaceAllString(string(text), ""), "")
		var targets []string
		for _, m := range inlineLink.FindAllStringSubmatch(prose, -1) {
			targets = append(targets, m[1])
		}
		for _, m := range referenceLink.FindAllStringSubmatch(prose, -1) {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if err := checkLink(root, file, target); err != "" {
				t.Errorf("%s: link %q: %s", strings.TrimPrefix(file, "../"), target, err)
			}
		}
	}
}

// checkLink returns why target, a link of file, leads nowhere, or "".
func checkLink(root, file, target string) string {
	path, anchor, _ := strings.Cut(target, "#")
	dest := file
	if path != "" {
		dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
	}
	abs, err := filepath.Abs(dest)
	if err != nil {
		return err.Error()
	}
	if abs != root && !strings.HasPrefix(abs, root+string(filepath.Separator)) {
		return "outside the repository"
	}
	if _, err := os.Stat(abs); err != nil {
		return "no such file or directory"
	}
	if anchor != "" && !slices.Contains(headingAnchors(abs), anchor) {
		return "no heading of that anchor in " + filepath.Base(abs)
	}
	return ""
}

// headingAnchors returns the anchors of a Markdown file's headings, made
// as GitHub makes them: lower case, spaces to dashes, other punctuation
// dropped.
func headingAnchors(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var anchors []string
	inFence := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		anchors = append(anchors, strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				return r
			}
			return -1
		}, heading))
	}
	return anchors
}

// packageRow is a table row of docs/architecture.md naming a package:
// | `path` | ... |
var packageRow = regexp.MustCompile("^\\| `([a-z0-9_/]+)` \\|")

// TestArchitecturePackages: the tables of docs/architecture.md list every
// package of the module (`go list ./...`, tools and tests included), and
// nothing else; and each package of its "Packages" table imports only
// packages listed below it, as the page says.
func TestArchitecturePackages(t *testing.T) {
	const module = "github.com/basaltdb/basalt/"
	f, err := os.Open("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var listed, layered []string
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = strings.TrimPrefix(line, "## ")
		}
		m := packageRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		listed = append(listed, m[1])
		if section == "Packages" {
			layered = append(layered, m[1])
		}
	}
	if len(layered) == 0 {
		t.Fatal(`docs/architecture.md has no "## Packages" table`)
	}

	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		imports[pkg] = nil
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, module) {
				imports[pkg] = append(imports[pkg], strings.TrimPrefix(imp, module))
			}
		}
	}

	seen := map[string]bool{}
	for _, pkg := range listed {
		if seen[pkg] {
			t.Errorf("docs/architecture.md lists %s twice", pkg)
		}
		seen[pkg] = true
		if _, ok := imports[pkg]; !ok {
			t.Errorf("docs/architecture.md lists %s, which is no package of the module", pkg)
		}
	}
	for pkg := range imports {
		if !seen[pkg] {
			t.Errorf("docs/architecture.md does not list the package %s: add a row saying what it owns", pkg)
		}
	}
	for i, pkg := range layered {
		for _, imp := range imports[pkg] {
			if j := slices.Index(layered, imp); j >= 0 && j < i {
				t.Errorf("%s imports %s, which docs/architecture.md's Packages table lists above it", pkg, imp)
			}
		}
	}
}
