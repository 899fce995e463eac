package engine

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

const crashChildEnv = "OIDKIT_ENGINE_CRASH_CHILD"

// TestCrashChild is the child of TestKillNineKeepsAcknowledged: it writes
// documents into the store in the directory it is given, printing each
// _id once its write is acknowledged, until it is killed.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashChildEnv)
	if dir == "" {
		t.Skip("run by TestKillNineKeepsAcknowledged")
	}
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(os.Stdout)
	pad := make([]byte, 20000) // large records make a kill mid-write likely
	for i := 0; ; i++ {
		d := bsoncore.NewDocumentBuilder().AppendInt32("_id", int32(i)).AppendBinary("pad", 0, pad).Build()
		err := st.write(context.Background(), func(t *tx) error {
			col, err := t.mut("d", "c", true)
			if err != nil {
				return err
			}
			return t.putDoc(col, d, true)
		})
		if err != nil {
			t.Fatal(err)
		}
		w.WriteString(strconv.Itoa(i) + "\n")
		w.Flush()
	}
}

// TestKillNineKeepsAcknowledged kills a writing process at random moments
// (including during checkpoints, which large journals trigger) and checks
// after each restart that every acknowledged write is there and that the
// store opens cleanly.
func TestKillNineKeepsAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	dir := t.TempDir()
	acked := -1
	for round := 0; round < 5; round++ {
		acked = max(acked, killChildAfter(t, "TestCrashChild", crashChildEnv+"="+dir, time.Duration(200+round*170)*time.Millisecond))
		st, err := Open(dir)
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		col := st.view().coll("d", "c")
		for i := 0; i <= acked; i++ {
			if col == nil {
				t.Fatalf("round %d: collection lost", round)
			}
			if _, ok := col.get(bsonval.Int32(int32(i))); !ok {
				t.Fatalf("round %d: acknowledged document %d lost (acknowledged up to %d)", round, i, acked)
			}
		}
		st.journal.Close(dump(st.view()))
		// the next child continues after what is stored
		if col != nil {
			acked = col.docs.Len() - 1
		}
		// children restart numbering at 0: clear for the next round
		os.RemoveAll(dir)
		os.MkdirAll(dir, 0o755)
		acked = -1
	}
}

// killChildAfter runs the test named child in a process of its own with
// env added, kills it with SIGKILL d after its first acknowledged write
// (so that the kill lands while it writes, however long a busy machine
// takes to start it), and returns the greatest number it printed (one per
// line, once acknowledged), or -1.
func killChildAfter(t *testing.T, child, env string, d time.Duration) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+child+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan int, 1<<16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if n, err := strconv.Atoi(sc.Text()); err == nil {
				lines <- n
			}
		}
		close(lines)
	}()
	acked := -1
	select {
	case n, ok := <-lines:
		if ok {
			acked = n
		}
	case <-time.After(time.Minute): // it never wrote: kill it all the same
	}
	time.Sleep(d)
	_ = cmd.Process.Kill()
	for n := range lines {
		acked = max(acked, n)
	}
	_ = cmd.Wait()
	return acked
}
