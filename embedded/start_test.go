package embedded

import (
	"sync"
	"testing"
)

// Servers started at once (oidkittest starts clones in parallel) each
// start and close; under the race detector this also checks that starting
// shares nothing unguarded.
func TestStartAtOnce(t *testing.T) {
	const n = 4
	errs := make([]error, n)
	servers := make([]*Server, n)
	var wg sync.WaitGroup
	for i := range n {
		dir := t.TempDir()
		wg.Add(1)
		go func() {
			defer wg.Done()
			servers[i], errs[i] = Start(Options{DataDir: dir})
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Errorf("server %d: %v", i, errs[i])
			continue
		}
		if err := servers[i].Close(); err != nil {
			t.Errorf("closing server %d: %v", i, err)
		}
	}
}
