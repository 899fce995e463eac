package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goNames is what the repository's non-test Go files declare: by package
// (the directory's name), the top-level names, and by type, its methods
// and fields.
type goNames struct {
	pkg    map[string]map[string]bool // package name -> top-level names
	member map[string]map[string]bool // type name -> methods and fields
	any    map[string]bool            // every declared name
}

// walkGo parses, with mode, every Go file under root outside hidden and
// testdata directories, and hands each to visit.
func walkGo(root string, mode parser.Mode, visit func(path string, f *ast.File) error) error {
	fset := token.NewFileSet()
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, mode)
		if err != nil {
			return err
		}
		return visit(path, f)
	})
}

func readGoNames(t *testing.T, root string) goNames {
	t.Helper()
	n := goNames{pkg: map[string]map[string]bool{}, member: map[string]map[string]bool{}, any: map[string]bool{}}
	add := func(m map[string]map[string]bool, k, name string) {
		if m[k] == nil {
			m[k] = map[string]bool{}
		}
		m[k][name] = true
		n.any[name] = true
	}
	err := walkGo(root, parser.SkipObjectResolution, func(path string, f *ast.File) error {
		if strings.HasSuffix(path, "_test.go") {
			// of tests, only the tests themselves (TestDocs, BenchmarkX)
			for _, decl := range f.Decls {
				if fd, ok := decl.(*ast.FuncDecl); ok && fd.Recv == nil && testFunc.MatchString(fd.Name.Name) {
					n.any[fd.Name.Name] = true
				}
			}
			return nil
		}
		pkg := f.Name.Name
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					add(n.pkg, pkg, d.Name.Name)
					continue
				}
				typ := d.Recv.List[0].Type
				for {
					switch x := typ.(type) {
					case *ast.StarExpr:
						typ = x.X
						continue
					case *ast.IndexExpr:
						typ = x.X
						continue
					case *ast.IndexListExpr:
						typ = x.X
						continue
					}
					break
				}
				if id, ok := typ.(*ast.Ident); ok {
					add(n.member, id.Name, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						add(n.pkg, pkg, s.Name.Name)
						var fields *ast.FieldList
						switch tt := s.Type.(type) {
						case *ast.StructType:
							fields = tt.Fields
						case *ast.InterfaceType:
							fields = tt.Methods
						}
						if fields != nil {
							for _, fl := range fields.List {
								for _, fn := range fl.Names {
									add(n.member, s.Name.Name, fn.Name)
								}
							}
						}
					case *ast.ValueSpec:
						for _, v := range s.Names {
							add(n.pkg, pkg, v.Name)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

var testFunc = regexp.MustCompile(`^(Test|Benchmark|Fuzz|Example)`)

// outside are the packages of other modules that docs name as pkg.Name.
var outside = map[string]bool{"bson": true, "mongo": true, "options": true, "bsoncore": true, "wiremessage": true,
	"primitive": true, "gofakeit": true, "ucli": true, "cli": true, "testing": true, "time": true, "os": true,
	"fs": true, "io": true, "context": true, "errors": true, "http": true, "json": true, "sync": true, "exec": true,
	"filepath": true, "runtime": true, "debug": true, "btree": true, "testcontainers": true, "signal": true}

// docIdent is a Go name in backquotes: pkg.Name, Type.Member,
// pkg.Type.Member or an exported Name, with a call's arguments, a
// composite literal's fields or a pointer's star around it.
var docIdent = regexp.MustCompile(`^\*?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){0,2})(?:\(.*\)|\{.*\})?$`)

// resolves reports whether the name as written exists in n.
func (n goNames) resolves(name string) (ok, checked bool) {
	parts := strings.Split(name, ".")
	switch len(parts) {
	case 1:
		if !ast.IsExported(parts[0]) || strings.ToUpper(parts[0]) == parts[0] {
			return false, false // unexported, or a constant of the wire or an environment variable's name
		}
		return n.any[parts[0]], true
	case 2:
		a, b := parts[0], parts[1]
		if outside[a] {
			return false, false
		}
		if n.pkg[a] != nil {
			return n.pkg[a][b] || n.member[b] != nil && n.pkg[a][b], true
		}
		if n.member[a] != nil {
			return n.member[a][b], true
		}
		if !ast.IsExported(a) {
			return false, false // a variable's method (c.Stream), a field path, a flag value
		}
		return false, true
	default:
		a, b, c := parts[0], parts[1], parts[2]
		if outside[a] || n.pkg[a] == nil {
			return false, false
		}
		return n.pkg[a][b] && n.member[b][c], true
	}
}

// TestArchitectureNamesExist: every Go name docs/architecture.md gives in
// backquotes (seed.NewPlan, Plan.Build, run.Options.Part, ExitCode ...)
// is declared in the repository's code, so the map does not drift from
// the territory.
func TestArchitectureNamesExist(t *testing.T) {
	names := readGoNames(t, ".")
	data, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	var checked int
	for _, m := range regexp.MustCompile("`([^`\n]+)`").FindAllStringSubmatch(string(data), -1) {
		span := m[1]
		id := docIdent.FindStringSubmatch(span)
		if id == nil || strings.HasSuffix(id[1], ".go") || strings.HasSuffix(id[1], ".md") || strings.HasSuffix(id[1], ".json") {
			continue
		}
		ok, isName := names.resolves(id[1])
		if !isName {
			continue
		}
		checked++
		if !ok {
			t.Errorf("docs/architecture.md names `%s`, which no non-test Go file declares", span)
		}
	}
	t.Logf("%d Go names in docs/architecture.md, each declared", checked)
	if checked < 50 {
		t.Errorf("checked %d names in docs/architecture.md; expected it to name at least 50", checked)
	}
}
