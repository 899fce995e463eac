package gotest

import (
	"testing"

	"github.com/oidkit/oidkit/oidkittest"
	_ "github.com/oidkit/oidkit/oidkittest/mongocontainer" // OIDKIT_TEST_MONGO_IMAGE runs these tests on a container
)

// After the last test, Main stops the servers (or the container) New
// started and removes their temporary files.
func TestMain(m *testing.M) { oidkittest.Main(m) }
