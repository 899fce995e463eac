package gotest

import (
	"testing"

	"github.com/oidkit/oidkit/oidkittest"
)

// After the last test, Main stops the servers (or the container) New
// started and removes their temporary files.
func TestMain(m *testing.M) { oidkittest.Main(m) }
