package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestInstallFromClone does what the README tells a reader with a clone:
// `go install .` in the top directory puts a working oidkit into GOBIN
// (`go build -o oidkit .` is what TestSignals builds with).
func TestInstallFromClone(t *testing.T) {
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
