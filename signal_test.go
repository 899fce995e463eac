package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oidkit/oidkit/mongowrite"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestSignals checks main's part of Ctrl-C: the built binary turns SIGINT
// into a cancelled context, so that an interrupted seed stops cleanly (one
// line saying what is there, exit 1) and a server stops with exit 0.
func TestSignals(t *testing.T) {
	t.Parallel() // a server, data directory and port of its own
	bin := oidkitBinary(t)
	server, serverErr, uri := startServerProcess(t, bin)

	const n = 300000
	seedCmd := exec.Command(bin, "seed", "--uri", uri, "--seed", "1", "-n", strconv.Itoa(n), "--quiet")
	var seedOut, seedErr bytes.Buffer
	seedCmd.Stdout, seedCmd.Stderr = &seedOut, &seedErr
	if err := seedCmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- seedCmd.Wait() }()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	waitForAcked(t, client.Database("oidkit"), 1000, done)
	if err := seedCmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-done
	line := regexp.MustCompile(`^oidkit: oidkit\.users on \S+: inserted \d+ of ` + strconv.Itoa(n) + `; re-run with --resume: interrupted\n$`)
	if code := seedCmd.ProcessState.ExitCode(); code != 1 || !line.MatchString(seedErr.String()) {
		t.Fatalf("interrupted seed: exit %d\nstdout %s\nstderr %q", code, seedOut.String(), seedErr.String())
	}

	if err := server.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = server.Wait()
	if code := server.ProcessState.ExitCode(); code != 0 || !strings.HasSuffix(serverErr.String(), "oidkit: note: server stopped\n") {
		t.Fatalf("interrupted server: exit %d\nstderr %q", code, serverErr.String())
	}
}

// startServerProcess starts oidkit server from bin on a port of its own,
// over a data directory of the test, and returns it, its stderr and its
// connection string. It is killed when the test ends.
func startServerProcess(t *testing.T, bin string) (*exec.Cmd, *bytes.Buffer, string) {
	t.Helper()
	server := exec.Command(bin, "server", "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(t.TempDir(), "data"))
	serverErr := &bytes.Buffer{}
	server.Stderr = serverErr
	stdout, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = server.Process.Kill() })
	uri, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = server.Wait()
		t.Fatalf("server printed no connection string: %v\n%s", err, serverErr.String())
	}
	return server, serverErr, strings.TrimSpace(uri)
}

// waitForAcked returns once the run manifest of users in db says at least
// n documents were acknowledged: the seed is then under way. It fails the
// test if the seed ends first.
func waitForAcked(t *testing.T, db *mongo.Database, n int64, done chan error) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if m, err := mongowrite.ReadManifest(context.Background(), db, "users"); err == nil && m.AckedCount >= n {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("the seed ended before %d documents were in: %v", n, err)
		case <-tick.C:
		}
	}
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// oidkitBinary builds the binary once for the tests of this package.
func oidkitBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "oidkit-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "oidkit")
		if out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput(); err != nil {
			buildErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		_ = os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}
