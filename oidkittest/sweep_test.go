package oidkittest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A later test binary removes what exited ones left, keeps the directories
// with a kept database of the KeptRuns most recently kept, removes older
// ones, and with OIDKIT_TEST_KEEP=1 removes no kept directory; a running
// binary's directory is never touched.
func TestSweepBoundsKeptDirectories(t *testing.T) {
	for _, keepAll := range []bool{false, true} {
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		t.Setenv(KeepEnv, "")
		if keepAll {
			t.Setenv(KeepEnv, "1")
		}
		exited := exec.Command("true")
		if err := exited.Run(); err != nil {
			t.Skipf("skipped: cannot run true: %v", err)
		}
		dead := exited.Process.Pid
		mk := func(pid int, name string, keptAt time.Time) string {
			d := filepath.Join(tmp, fmt.Sprintf("oidkittest-%d-%s", pid, name))
			if err := os.MkdirAll(filepath.Join(d, "shared"), 0o755); err != nil {
				t.Fatal(err)
			}
			if !keptAt.IsZero() {
				k := filepath.Join(d, "KEEP")
				if err := os.WriteFile(k, []byte("shared\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(k, keptAt, keptAt); err != nil {
					t.Fatal(err)
				}
			}
			return d
		}
		now := time.Now()
		var keptDirs []string
		for i := range KeptRuns + 2 {
			keptDirs = append(keptDirs, mk(dead, fmt.Sprint("k", i), now.Add(-time.Duration(i)*time.Hour)))
		}
		plain := mk(dead, "plain", time.Time{})
		running := mk(1, "running", time.Time{}) // pid 1 is alive
		sweep()
		var left []string
		for _, d := range append(append(keptDirs, plain), running) {
			if _, err := os.Stat(d); err == nil {
				left = append(left, filepath.Base(d))
			}
		}
		var want []string
		for i, d := range keptDirs {
			if keepAll || i < KeptRuns {
				want = append(want, filepath.Base(d))
			}
		}
		want = append(want, filepath.Base(running))
		if !slices.Equal(left, want) {
			t.Errorf("OIDKIT_TEST_KEEP=1 %v: after the sweep %v remain; want %v", keepAll, left, want)
		}
	}
}
