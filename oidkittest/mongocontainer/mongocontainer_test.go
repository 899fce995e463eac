package mongocontainer_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/oidkit/oidkit/oidkittest/mongocontainer"
)

// An image that cannot be pulled or run here fails Start with an error
// instead of hanging or skipping; running a real container is tested by
// integration_test (TestOidkittestBackends), which builds an image first.
func TestStartFailsForAMissingImage(t *testing.T) {
	if testing.Short() {
		t.Skip("asks Docker")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	uri, stop, err := mongocontainer.Start(ctx, "oidkit-test-no-such-image:0")
	if err == nil {
		_ = stop()
		t.Skipf("a container of a missing image started at %s: Docker has it", uri)
	}
	if strings.TrimSpace(err.Error()) == "" {
		t.Fatal("an empty error")
	}
}
