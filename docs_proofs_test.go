package main

import (
	"go/ast"
	"go/parser"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// proofPackages are the short package names docs/reliability.md gives in
// its introduction; any other name is the package of that directory name.
var proofPackages = map[string]string{"cli": "internal/cli", "integration": "integration_test", "root": ".",
	"input": "internal/input", "mongotest": "internal/mongoserver/mongotest"}

// TestReliabilityProofsExist: every test docs/reliability.md names as the
// proof of a guarantee is declared in the package its row names ("run
// `TestA`, `TestB`, seed `TestC`": TestA and TestB in run, TestC in seed),
// so that a test renamed or moved to another package cannot leave a
// guarantee without its proof.
func TestReliabilityProofsExist(t *testing.T) {
	dirs := map[string]string{} // base name -> directory
	tests := map[string]bool{}  // directory + " " + test function
	err := walkGo(".", parser.SkipObjectResolution, func(path string, f *ast.File) error {
		dir := filepath.Dir(path)
		dirs[filepath.Base(dir)] = dir
		if strings.HasSuffix(path, "_test.go") {
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
					tests[dir+" "+fd.Name.Name] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile("docs/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile("(?:([a-z_]+) )?`((?:Test|Fuzz|Benchmark|Example)[A-Za-z0-9_]*)`")
	named := 0
	for _, line := range strings.Split(string(text), "\n") {
		cells := strings.Split(strings.TrimSuffix(strings.TrimSpace(line), "|"), "|")
		if !strings.HasPrefix(line, "|") || len(cells) < 3 {
			continue
		}
		pkg := ""
		for _, m := range ref.FindAllStringSubmatch(cells[len(cells)-1], -1) {
			if m[1] != "" {
				pkg = m[1]
			}
			dir, ok := proofPackages[pkg]
			if !ok {
				dir, ok = dirs[pkg]
			}
			named++
			if !ok || !tests[dir+" "+m[2]] {
				t.Errorf("docs/reliability.md: %s %s is named as a proof, but package %q declares no such test", pkg, m[2], pkg)
			}
		}
	}
	if named < 100 {
		t.Errorf("%d tests named in docs/reliability.md; want its proofs read (100 or more)", named)
	}
}
