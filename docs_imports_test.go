package main

import (
	"go/ast"
	"go/parser"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/oidkit/oidkit"

// readImports is what the non-test Go files of each directory under root
// import: directory (slash-separated, "." for root) -> import paths.
func readImports(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	err := walkGo(root, parser.ImportsOnly, func(path string, f *ast.File) error {
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if out[dir] == nil {
			out[dir] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			out[dir][p] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ownImports is the packages of oidkit that dir imports, as directories.
func ownImports(imports map[string]map[string]bool, dir string) []string {
	var own []string
	for p := range imports[dir] {
		if rest, ok := strings.CutPrefix(p, modulePath+"/"); ok {
			own = append(own, rest)
		}
	}
	slices.Sort(own)
	return own
}

// packageDir is the directory of a package as docs/architecture.md names
// it: its path ("internal/cli", "embedded") or, for internal packages
// listed under their parent, the last element ("progress").
func packageDir(t *testing.T, imports map[string]map[string]bool, name string) string {
	t.Helper()
	for _, dir := range []string{name, "internal/" + name} {
		if imports[dir] != nil {
			return dir
		}
	}
	t.Errorf("docs/architecture.md names package %q, which has no non-test Go file", name)
	return ""
}

// TestArchitectureImportsHold checks what docs/architecture.md says of the
// imports: every arrow of its drawing (A ──> B: A imports B) and every
// sentence under it that says what a package imports only, or not.
func TestArchitectureImportsHold(t *testing.T) {
	imports := readImports(t, ".")
	data, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	_, after, ok := strings.Cut(doc, "Arrows point one way")
	if !ok {
		t.Fatal(`docs/architecture.md: no section "Arrows point one way"`)
	}
	drawing, prose, ok := strings.Cut(strings.SplitN(after, "```", 2)[1], "```")
	if !ok {
		t.Fatal("docs/architecture.md: the drawing of the imports is not closed")
	}
	prose, _, _ = strings.Cut(prose, "\n## ")

	imports1 := func(from, to string) {
		a, b := packageDir(t, imports, from), packageDir(t, imports, to)
		if a != "" && b != "" && !imports[a][modulePath+"/"+b] {
			t.Errorf("docs/architecture.md draws %s ──> %s, but %s does not import %s (it imports %v)", from, to, a, b, ownImports(imports, a))
		}
	}
	arrows := 0
	var root string // the package whose ├──> and └──> branches follow
	for _, line := range strings.Split(drawing, "\n") {
		// Two spaces or more part the drawings that share a line; a
		// branch (├──>, └──>) starts from the line's first package.
		for _, seg := range regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1) {
			if paren := strings.Index(seg, "("); paren >= 0 {
				seg = seg[:paren]
			}
			seg = strings.TrimLeft(seg, "│ ")
			parts := strings.Split(seg, "──>")
			if len(parts) < 2 {
				continue
			}
			if strings.TrimSpace(strings.Trim(parts[0], "├└─")) == "" {
				parts[0] = root
			} else if root == "" {
				root = strings.TrimSpace(parts[0])
			}
			for k := 0; k+1 < len(parts); k++ {
				from := strings.TrimSpace(parts[k])
				for _, to := range strings.Split(parts[k+1], ",") {
					to = strings.TrimSpace(strings.Fields(to + " x")[0])
					if k+2 < len(parts) && to != strings.TrimSpace(strings.Split(parts[k+1], ",")[0]) {
						t.Errorf("docs/architecture.md: %q: a list of packages only ends a chain", seg)
					}
					imports1(from, to)
					arrows++
				}
			}
		}
	}
	// "(run imports fixtures, verify, mongowrite, seed)"
	for _, m := range regexp.MustCompile(`\((\S+) imports ([^)]+)\)`).FindAllStringSubmatch(drawing, -1) {
		for _, to := range strings.Split(m[2], ",") {
			imports1(m[1], strings.TrimSpace(to))
			arrows++
		}
	}
	if arrows < 20 {
		t.Errorf("read %d arrows in the drawing of docs/architecture.md; expected at least 20", arrows)
	}

	prose = strings.Join(strings.Fields(prose), " ")
	names := func(list string) []string {
		var out []string
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(list, -1) {
			out = append(out, m[1])
		}
		return out
	}
	claims := 0
	// "`mongowrite` only `seed`, `rules` and `indexes` of oidkit"
	for _, m := range regexp.MustCompile("`([a-z/]+)`(?: imports)? only ((?:`[a-z/]+`(?:, | and )?)+) of oidkit").FindAllStringSubmatch(prose, -1) {
		claims++
		want := names(m[2])
		slices.Sort(want)
		if got := ownImports(imports, m[1]); !slices.Equal(got, want) {
			t.Errorf("docs/architecture.md says %s imports only %v of oidkit; it imports %v", m[1], want, got)
		}
	}
	// "`seed` imports only `bson` and `bsoncore` of the driver"
	for _, m := range regexp.MustCompile("`([a-z/]+)`(?: imports)? only ((?:`[a-z/]+`(?:, | and )?)+) of the driver").FindAllStringSubmatch(prose, -1) {
		claims++
		allowed := names(m[2])
		for p := range imports[m[1]] {
			if rest, ok := strings.CutPrefix(p, "go.mongodb.org/"); ok && !slices.Contains(allowed, filepath.Base(rest)) {
				t.Errorf("docs/architecture.md says %s imports only %v of the driver; it imports %s", m[1], allowed, p)
			}
		}
	}
	// "`rules`, `indexes` and `embedded` import no package of oidkit outside their own"
	for _, m := range regexp.MustCompile("((?:`[a-z/]+`(?:, | and )?)+) imports? no package of oidkit outside (?:its|their) own").FindAllStringSubmatch(prose, -1) {
		for _, p := range names(m[1]) {
			claims++
			for _, q := range ownImports(imports, p) {
				if !strings.HasPrefix(q, p+"/") {
					t.Errorf("docs/architecture.md says %s imports no package of oidkit outside its own; it imports %s", p, q)
				}
			}
		}
	}
	// "`oid` imports nothing outside the standard library"
	for _, m := range regexp.MustCompile("`([a-z/]+)` imports nothing outside the standard library").FindAllStringSubmatch(prose, -1) {
		claims++
		for p := range imports[m[1]] {
			if strings.Contains(strings.Split(p, "/")[0], ".") {
				t.Errorf("docs/architecture.md says %s imports nothing outside the standard library; it imports %s", m[1], p)
			}
		}
	}
	if claims < 6 {
		t.Errorf("read %d claims on imports under the drawing of docs/architecture.md; expected at least 6", claims)
	}
	t.Logf("%d arrows and %d claims on imports read in docs/architecture.md", arrows, claims)
}
