package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestInstallFromClone does what the README tells a reader with a clone:
// `go install .` in the top directory puts a working oidkit into GOBIN
// (`go build -o oidkit .` is what TestSignals builds with).
func TestInstallFromClone(t *testing.T) {
	t.Parallel() // a GOBIN of its own
	if testing.Short() {
		t.Skip("builds the binary")
	}
	gobin := t.TempDir()
	install := exec.Command("go", "install", ".")
	install.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install .: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(gobin, "oidkit"), "generate", "-n", "2", "--seed", "7").CombinedOutput()
	if want := "65920080565d24a1ed57220e\n65920080565d24a1ed57220f\n"; err != nil || string(out) != want {
		t.Fatalf("installed oidkit generate -n 2 --seed 7: %v, %q; want %q", err, out, want)
	}
}

// maxUserModules is the most modules a user module importing oidkittest
// and embedded may list in its go.mod (oidkit's among them).
const maxUserModules = 20

// TestUserModuleRequirements makes a module as a user's would be: one
// test that imports oidkittest and embedded, oidkit replaced by this
// checkout; after go mod tidy its go.mod lists at most maxUserModules
// modules, and no container library (that comes only with
// oidkittest/mongocontainer).
func TestUserModuleRequirements(t *testing.T) {
	t.Parallel() // a module of its own
	if testing.Short() {
		t.Skip("runs go mod tidy")
	}
	dir := userModule(t, map[string]string{
		"user_test.go": `package usermod

import (
	"testing"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/oidkittest"
)

func TestMain(m *testing.M) { oidkittest.Main(m) }

func TestUsers(t *testing.T) {
	_ = embedded.Options{}
	_ = oidkittest.New(t)
}
`,
	})
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var required []string
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && strings.HasPrefix(line, "\t"): // in a require block
			required = append(required, f[0])
		case len(f) == 3 && f[0] == "require":
			required = append(required, f[1])
		}
	}
	if len(required) > maxUserModules {
		t.Errorf("a user module lists %d modules, want at most %d: %v", len(required), maxUserModules, required)
	}
	for _, m := range required {
		if strings.Contains(m, "testcontainers") || strings.Contains(m, "docker") || strings.Contains(m, "moby") {
			t.Errorf("a user module without oidkittest/mongocontainer requires %s", m)
		}
	}
	if !slices.Contains(required, "github.com/oidkit/oidkit") {
		t.Errorf("go.mod does not list oidkit: %v", required)
	}
	t.Logf("%d modules: %v", len(required), required)
}

// userModule makes a module as a user's would be, in a new directory:
// example.com/usermod, requiring oidkit replaced by this checkout, with
// files (name → content); go mod tidy has run in it.
func userModule(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files["go.mod"] = "module example.com/usermod\n\ngo 1.26\n\nrequire github.com/oidkit/oidkit v0.0.0\n\nreplace github.com/oidkit/oidkit => " + root + "\n"
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := goIn(dir, "mod", "tidy").CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	return dir
}

// goIn is the go command with args, to run in the user module dir.
func goIn(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	return cmd
}
