package embedded

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

const serverChildEnv = "OIDKIT_EMBEDDED_SERVER_CHILD"

// TestServerChild is the server of TestSigtermThenKillKeepsAcknowledged,
// as oidkit server runs it: it serves the directory it is given, prints
// its URI, and closes on SIGTERM.
func TestServerChild(t *testing.T) {
	dir := os.Getenv(serverChildEnv)
	if dir == "" {
		t.Skip("run by TestSigtermThenKillKeepsAcknowledged")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	s, err := Start(Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(s.URI())
	<-ctx.Done()
	_ = s.Close()
	os.Exit(0)
}

// TestSigtermThenKillKeepsAcknowledged stops a server process as docker
// stop does, while clients insert: SIGTERM, then SIGKILL after a delay
// that falls, round after round, across its Close (the drain of the
// requests in flight, the checkpoint, the emptying of the journal). After
// each round the directory must open, and every insert the server
// acknowledged must be there.
func TestSigtermThenKillKeepsAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	dir := t.TempDir()
	// Every fourth round is not killed: how long its Close takes places
	// the next three kills at a sixth, a half and five sixths of a Close.
	var closeTook time.Duration
	const rounds = 8
	killedInClose := 0
	for round := range rounds {
		delay := closeTook * time.Duration(2*(round%4)-1) / 6
		if round%4 == 0 {
			delay = -1
		}
		acked, took, killed := sigtermThenKill(t, dir, round, delay)
		if delay < 0 {
			closeTook = took
		}
		if killed {
			killedInClose++
		}
		s, c := serve(t, Options{DataDir: dir})
		have := map[int64]bool{}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cur, err := c.Database("t").Collection("c").Find(ctx, bson.D{}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
		for err == nil && cur.Next(ctx) {
			have[cur.Current.Lookup("_id").AsInt64()] = true
		}
		if err == nil {
			err = cur.Err()
		}
		cancel()
		if err != nil {
			t.Fatalf("round %d: reading back: %v", round, err)
		}
		for _, id := range acked {
			if !have[id] {
				t.Fatalf("round %d (SIGKILL %v after SIGTERM): acknowledged document %d is lost; %d acknowledged, %d stored", round, delay, id, len(acked), len(have))
			}
		}
		_ = s.Close()
	}
	t.Logf("the last unkilled Close took %v; %d of %d kills landed before the process ended", closeTook, killedInClose, rounds*3/4)
	if killedInClose == 0 {
		t.Errorf("no SIGKILL landed during Close: the test did not exercise it")
	}
}

// sigtermThenKill runs a server process over dir with two clients
// inserting into it, sends SIGTERM once some inserts are acknowledged and
// SIGKILL delay later (none when delay is negative), and returns the _ids the
// server acknowledged, how long the process took to end after SIGTERM,
// and whether the SIGKILL found it still running.
func sigtermThenKill(t *testing.T, dir string, round int, delay time.Duration) (acked []int64, took time.Duration, killed bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), serverChildEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "mongodb://") {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("round %d: the server process printed no URI: %q", round, sc.Text())
	}
	go func() {
		for sc.Scan() { // the test binary's own output
		}
	}()
	c, err := mongo.Connect(options.Client().ApplyURI(sc.Text()).SetTimeout(10 * time.Second).SetRetryWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	// Once the process has ended nothing more can be acknowledged: the
	// clients stop at once rather than wait for a server to select.
	exited := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = cmd.Wait(); close(exited); cancel() }()
	defer func() { _ = c.Disconnect(ctx) }()
	coll := c.Database("t").Collection("c")
	pad := strings.Repeat("x", 4000) // a few MB by the later rounds: a checkpoint takes a while
	var mu sync.Mutex
	var wg sync.WaitGroup
	some := make(chan struct{}, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := int64(round)<<32 | int64(w)<<24
			for ctx.Err() == nil {
				docs := make([]any, 50)
				for i := range docs {
					docs[i] = bson.D{{Key: "_id", Value: next + int64(i)}, {Key: "pad", Value: pad}}
				}
				if _, err := coll.InsertMany(ctx, docs); err != nil {
					return // the server is going: nothing more is acknowledged
				}
				mu.Lock()
				for i := range docs {
					acked = append(acked, next+int64(i))
				}
				mu.Unlock()
				next += int64(len(docs))
				select {
				case some <- struct{}{}:
				default:
				}
			}
		}()
	}
	for range 4 {
		<-some
	}
	sent := time.Now()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if delay >= 0 {
		select {
		case <-exited:
		case <-time.After(delay):
			killed = true
			_ = cmd.Process.Kill()
		}
	}
	<-exited
	took = time.Since(sent)
	wg.Wait()
	return acked, took, killed
}
