package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// Four containers of the scratch image, each running one part of one
// dataset (`oidkit seed --part I/4`) against a server container, end with
// exactly the single run's documents.
func TestPartsInContainers(t *testing.T) {
	t.Parallel()
	if suite.mode != modeContainer {
		t.Skipf("skipped: needs the scratch image (%s)", suite.why)
	}
	s := newServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ip, err := s.ctr.ContainerIP(ctx)
	if err != nil {
		t.Fatalf("the server container's address: %v", err)
	}
	const parts = 4
	g := gen{db: s.DB, coll: "users", kind: "user", n: 4 * 2500, seed: 12, span: time.Hour}
	ctrs := make([]testcontainers.Container, parts)
	errs := make(chan error, parts)
	for i := range parts {
		args := append([]string{"/oidkit", "seed", "--uri", fmt.Sprintf("mongodb://%s:27017/", ip), "--quiet", "--timeout", "60s"}, g.flags()...)
		go func() {
			ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
				ContainerRequest: testcontainers.ContainerRequest{
					Image:      suite.image,
					Entrypoint: append(args, "--part", fmt.Sprintf("%d/%d", i, parts)),
					WaitingFor: wait.ForExit().WithExitTimeout(4 * time.Minute),
				},
				Started: true,
			})
			ctrs[i] = ctr
			errs <- err
		}()
	}
	var startErr error
	for range parts {
		if err := <-errs; err != nil && startErr == nil {
			startErr = err
		}
	}
	for _, ctr := range ctrs {
		if ctr != nil {
			t.Cleanup(func() { _ = testcontainers.TerminateContainer(ctr) })
		}
	}
	if startErr != nil {
		t.Fatalf("a part's container: %v", startErr)
	}
	for i, ctr := range ctrs {
		st, err := ctr.State(ctx)
		if err != nil || st.ExitCode != 0 {
			t.Fatalf("part %d/%d: exit %v, %v\n%s", i, parts, st, err, containerLogs(ctr))
		}
	}
	verifyDB(t, s, g, "--quiet")
	c := s.Client()
	defer disconnect(c)
	checkExactIDs(t, s.Coll(c, g.coll), g)
}
