package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Eight parts of one dataset run as eight concurrent seed processes
// against one server; one is killed (SIGKILL) mid-way and resumed with
// --resume --part. verify db then finds exactly the single run's
// documents, through the run manifests and through the single run's flags.
func TestPartsConcurrentKillResume(t *testing.T) {
	t.Parallel()
	if suite.stubs["seed"] {
		t.Skip(`skipped: "seed" is not built yet`)
	}
	s := newServer(t)
	const parts, victim, perPart = 8, 3, 3000
	g := gen{db: s.DB, coll: "users", kind: "user", n: parts * perPart, seed: 11, span: time.Hour}
	base := []string{"seed", "--uri", s.URI(), "--quiet", "--timeout", "60s", "--batch", "200"}
	procs := make([]*proc, parts)
	for i := range parts {
		args := append(append([]string{}, base...), g.flags()...)
		if i == victim {
			// One document per insert keeps the victim running long
			// after the others (3,000 round trips, as many as 6,000 in
			// batches of 2), so the kill lands mid-way however fast the
			// machine, while the other parts, the verify runs and the
			// _id check handle 24,000 documents, not 48,000.
			args = append(args, "--batch", "1")
		}
		procs[i] = start(t, 5*time.Minute, nil, append(args, "--part", fmt.Sprintf("%d/%d", i, parts))...)
	}
	// Document 100 of the victim's 3000 is in (waitForDoc sees it within
	// a probe or two): it is under way, with 2,900 inserts still to send
	// when the kill is sent.
	waitForDoc(t, s, g, victim*perPart+100, procs[victim])
	if err := procs[victim].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if r := procs[victim].Wait(); r.code == 0 {
		t.Fatalf("the killed part exited 0, so it was not killed mid-way:\n%s", r)
	}
	for i, p := range procs {
		if i == victim {
			continue
		}
		if r := p.Wait(); r.code != 0 {
			t.Fatalf("part %d/%d:\n%s", i, parts, r)
		}
	}
	// The whole dataset is not done: verify db says which part is missing.
	r := run(t, 5*time.Minute, nil, "verify", "db", "--uri", s.URI(), "--db", s.DB, "--quiet")
	if want := fmt.Sprintf("users part %d/%d: running", victim, parts); r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Fatalf("verify db with part %d/%d killed should fail naming it (%q):\n%s", victim, parts, want, r)
	}
	r = run(t, 5*time.Minute, nil, "seed", "--uri", s.URI(), "--db", s.DB, "--quiet", "--timeout", "60s", "--resume", "--part", fmt.Sprintf("%d/%d", victim, parts))
	if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("users part %d/%d: inserted", victim, parts)) {
		t.Fatalf("seed --resume of part %d/%d:\n%s", victim, parts, r)
	}
	r = run(t, 5*time.Minute, nil, "verify", "db", "--uri", s.URI(), "--db", s.DB, "--quiet")
	if r.code != 0 {
		t.Fatalf("verify db from the manifests should pass:\n%s", r)
	}
	verifyDB(t, s, g, "--quiet")
	c := s.Client()
	defer disconnect(c)
	checkExactIDs(t, s.Coll(c, g.coll), g)
}
