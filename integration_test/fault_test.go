package integration

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// faultN is the size of the seed that the server is stopped, killed or
// paused in the middle of. The fault comes once document faultN/10 is
// stored (waitForDoc sees it within a round trip or two), with 45,000
// documents still to write: the run is still under way when the fault
// lands, and every case reads the collection back twice (the test's own
// _id check, then verify db), so a larger size only costs time.
const faultN = 50000

var insertedKofN = regexp.MustCompile(`inserted (\d+) of (\d+)`)

// Scenario 3: the server fails in the middle of a 50,000-document seed.
// seed exits 1 saying how far it got; once the server is back, seed --resume
// completes it: exactly N documents, no duplicates, verify db passes.
func TestSeedResumeAfterServerFault(t *testing.T) {
	for _, fault := range []string{"stop", "kill", "pause"} {
		t.Run(fault, func(t *testing.T) {
			s := newServer(t)
			s.requireFaults(t, fault)
			if suite.stubs["seed"] {
				t.Skip(`skipped: "seed" is not built yet`)
			}
			n := int64(faultN)
			g := gen{db: s.DB, coll: "fault_" + fault, kind: "user", n: n, seed: 42, span: 24 * time.Hour}
			// --timeout bounds each operation. A stopped or killed server
			// refuses connections at once, so a generous timeout costs
			// nothing there; a paused one answers nothing, so the timeout
			// is short and the batches small enough to stay well inside it
			// on a loaded machine.
			timeout, tuning := 20*time.Second, []string{}
			if fault == "pause" {
				timeout, tuning = 4*time.Second, []string{"--workers", "1", "--batch", "200"}
			}
			args := append([]string{"seed", "--uri", s.URI(), "--quiet", "--timeout", timeout.String()}, g.flags()...)
			args = append(args, tuning...)
			p := start(t, 3*time.Minute, nil, args...)

			// Let a tenth of the documents in, then break the server.
			waitForDoc(t, s, g, g.n/10, p)
			before := s.URI()
			broke := time.Now()
			switch fault {
			case "stop":
				s.Stop()
			case "kill":
				s.Kill()
			case "pause":
				s.Pause()
			}
			answered := pingWhile(before, p)
			r := p.Wait()
			gaveUp := time.Since(broke)
			if r.code != 1 {
				t.Fatalf("seed into a server that went away (%s): want exit 1:\n%s", fault, r)
			}
			m := insertedKofN.FindStringSubmatch(r.stderr)
			if m == nil {
				t.Fatalf("seed's error does not say \"inserted K of N\":\n%s", r)
			}
			k, _ := strconv.ParseInt(m[1], 10, 64)
			// K counts acknowledged documents; a kill can lose every
			// acknowledgement in flight, so K may be 0 even though some
			// documents are in (the probe saw one).
			if total, _ := strconv.ParseInt(m[2], 10, 64); total != n || k < 0 || k >= n {
				t.Fatalf("seed says inserted %d of %d; want 0 <= K < %d of %d:\n%s", k, total, n, n, r)
			}
			if !strings.Contains(r.stderr, "--resume") {
				t.Errorf("seed's error does not tell to re-run with --resume:\n%s", r)
			}
			if fault == "pause" {
				// A frozen server must not hang the client: it gives up
				// within --timeout (plus the batch in flight and shutdown).
				if gaveUp > timeout+20*time.Second {
					t.Errorf("seed took %v to give up on a paused server with --timeout %v", gaveUp, timeout)
				}
				if !regexp.MustCompile(`(?i)time(d)?[ -]?out`).MatchString(r.stderr) {
					t.Errorf("seed's error does not say it timed out:\n%s", r)
				}
				s.Unpause()
			} else {
				s.Start()
			}
			t.Logf("%s after %d of %d documents (%v into the run); seed gave up %v later", fault, k, n, broke.Sub(p.start).Round(time.Millisecond), gaveUp.Round(time.Millisecond))

			phase := time.Now()
			lap := func(what string) {
				t.Logf("%s: %v", what, time.Since(phase).Round(time.Millisecond))
				phase = time.Now()
			}
			// Acknowledged writes survive the fault.
			c := s.Client()
			have := countDocs(t, s.Coll(c, g.coll))
			if have < k || have == 0 {
				// Seed's count is of acknowledgments: from another server
				// when one took the freed port while seed went on.
				t.Errorf("after the %s the collection holds %d documents; want at least the %d seed reported inserted, and at least the one the test saw (%d pings of the freed address %s were answered while seed ran on)", fault, have, k, answered, before)
			}
			disconnect(c)
			lap("count after restart")

			// A generous --timeout: on a loaded machine one bulk insert
			// can wait behind the others for the server's single writer.
			r = run(t, 5*time.Minute, nil, append([]string{"seed", "--uri", s.URI(), "--quiet", "--resume", "--timeout", "60s"}, g.flags()...)...)
			if r.code != 0 {
				t.Fatalf("seed --resume failed:\n%s", r)
			}
			lap("seed --resume")
			c = s.Client()
			checkExactIDs(t, s.Coll(c, g.coll), g)
			lap("reading every _id back")
			verifyDB(t, s, g)
			lap("verify db")
		})
	}
}

// waitForDoc waits until document i of the plan is stored: seed inserts in
// order with a few batches in flight, so by then roughly i documents are in.
// It looks the one _id up (an index seek) rather than counting, probe after
// probe with only a 2 ms pause between them, so the moment is seen within a
// round trip or two, not up to a fixed sleep later while the run goes on.
// The test fails if the process ends first (the fault would come too late to
// test anything).
func waitForDoc(t *testing.T, s *server, g gen, i int64, p *proc) {
	t.Helper()
	id := bson.ObjectID(g.dataset(t).Collection(g.coll).ObjectID(i))
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer disconnect(c) // before an embedded server is stopped
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(3 * time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err := s.Coll(c, g.coll).FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Err()
		cancel()
		if err == nil {
			return
		}
		select {
		case <-p.done:
			t.Fatalf("seed ended before document %d was in, so the fault could not hit it mid-run:\n%s", i, p.Wait())
		case <-deadline:
			t.Fatalf("document %d (_id %s) was not stored within 3 minutes", i, id.Hex())
		case <-tick.C:
		}
	}
}

// pingWhile pings uri until p ends and returns how many pings were
// answered: after a stop or a kill, none, unless another server took the
// freed port.
func pingWhile(uri string, p *proc) int {
	n := 0
	for {
		select {
		case <-p.done:
			return n
		case <-time.After(100 * time.Millisecond):
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if ping(ctx, uri) == nil {
			n++
		}
		cancel()
	}
}

func countDocs(t *testing.T, coll *mongo.Collection) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := coll.CountDocuments(ctx, bson.D{})
	if err != nil {
		t.Fatalf("count %s: %v", coll.Name(), err)
	}
	return n
}

// checkExactIDs reads every _id back and requires exactly the generated set:
// N documents, each expected _id once, nothing else. (Whole documents are
// compared by verify db, and byte for byte in scenario 1.)
func checkExactIDs(t *testing.T, coll *mongo.Collection, g gen) {
	t.Helper()
	col := g.dataset(t).Collection(g.coll)
	want := make(map[string]bool, col.Len())
	for i := int64(0); i < col.Len(); i++ {
		id := bson.ObjectID(col.ObjectID(i))
		want[string(id[:])] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatalf("find: %v", err)
	}
	defer cur.Close(ctx)
	seen := make(map[string]bool, len(want))
	var total, dups, unexpected int64
	for cur.Next(ctx) {
		total++
		id, ok := cur.Current.Lookup("_id").ObjectIDOK()
		if !ok {
			unexpected++
			continue
		}
		k := string(id[:])
		switch {
		case seen[k]:
			dups++
		case !want[k]:
			unexpected++
		}
		seen[k] = true
	}
	if err := cur.Err(); err != nil {
		t.Fatalf("reading _ids: %v", err)
	}
	missing := 0
	for k := range want {
		if !seen[k] {
			missing++
		}
	}
	if total != col.Len() || dups > 0 || unexpected > 0 || missing > 0 {
		t.Fatalf("after --resume: %d documents (want %d), %d duplicate _ids, %d unexpected, %d missing", total, col.Len(), dups, unexpected, missing)
	}
}
