package oidkittest

import (
	"fmt"
	"os"
	"testing"

	"github.com/oidkit/oidkit/oidkittest/tplcache"
)

// TestMain is Main's, with a template cache of the package's own, so that
// its tests never read or fill the user's (tests that look into the cache
// set a directory of their own with t.Setenv).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "oidkit-cache-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv(tplcache.DirEnv, dir)
	code := runAndClose(m)
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
