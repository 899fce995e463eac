package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The same test file, examples/gotest, passes unchanged on oidkittest's
// three backends: the embedded server, OIDKIT_TEST_URI (here an `oidkit
// server` process) and OIDKIT_TEST_MONGO_IMAGE (here the scratch image of
// `oidkit server`, started by oidkittest through Testcontainers' mongodb
// module: oidkit's own server in a container, not a real mongod). After
// each run the backend holds nothing of the tests: no database on the
// server, no container of the image, no oidkittest directory.
func TestOidkittestBackends(t *testing.T) {
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "gotest.test")
	// Built as TestMain built the oidkit binary (static, -trimpath), so
	// every package the two share comes from go's build cache.
	build := exec.Command("go", "test", "-c", "-trimpath", "-o", bin, "./examples/gotest/")
	build.Dir = suite.moduleDir
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building examples/gotest: %v\n%s", err, out)
	}
	run := func(t *testing.T, env ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "-test.count=1", "-test.v")
		cmd.Dir = filepath.Join(suite.moduleDir, "examples", "gotest")
		work := t.TempDir()
		cmd.Env = append(withoutBackend(os.Environ()), "TMPDIR="+work, "OIDKIT_TEST_CACHE="+filepath.Join(work, "cache"), "TESTCONTAINERS_RYUK_DISABLED=true")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("examples/gotest with %v: %v\n%s", env, err, out)
		}
		for _, want := range []string{"--- PASS: TestParallelSeeded", "--- PASS: TestFixturesFromEmbed", "--- PASS: TestVerifyCatchesChange", "--- PASS: TestConnectByURI", "--- PASS: TestUsers"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("examples/gotest with %v: no %q in its output:\n%s", env, want, out)
			}
		}
		left, _ := filepath.Glob(filepath.Join(work, "oidkittest-*"))
		if len(left) != 0 && !slices.Contains(env, keepAll) {
			t.Errorf("left behind by the test binary: %v", left)
		}
		return string(out)
	}
	// With every database kept, each test logs where its database is: the
	// backend the run really used.
	keptOn := func(t *testing.T, out, where string) {
		t.Helper()
		if n := strings.Count(out, "oidkittest: kept database "); n < 5 || n != strings.Count(out, where) {
			t.Fatalf("%d databases kept, %d of them %s; want every one there:\n%s", n, strings.Count(out, where), where, out)
		}
	}

	// The three backends share only the built test binary (read): each run
	// has its own TMPDIR and template cache, the uri case its own server
	// process, the image case its own containers. They run side by side.
	t.Run("embedded", func(t *testing.T) {
		t.Parallel()
		keptOn(t, run(t, keepAll), "data directory")
		run(t)
	})

	t.Run("uri", func(t *testing.T) {
		t.Parallel()
		uri := startServerProcess(t)
		c, err := mongo.Connect(options.Client().ApplyURI(uri))
		if err != nil {
			t.Fatal(err)
		}
		defer disconnect(c)
		keptOn(t, run(t, "OIDKIT_TEST_URI="+uri, keepAll), "on "+strings.TrimSuffix(uri, "/"))
		names, err := c.ListDatabaseNames(context.Background(), bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if n != "admin" && n != "config" && n != "local" {
				_ = c.Database(n).Drop(context.Background())
			}
		}
		run(t, "OIDKIT_TEST_URI="+uri)
		names, err = c.ListDatabaseNames(context.Background(), bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		names = slices.DeleteFunc(names, func(n string) bool { return n == "admin" || n == "config" || n == "local" })
		if len(names) != 0 {
			t.Fatalf("databases left on the server after the tests: %v", names)
		}
	})

	t.Run("image", func(t *testing.T) {
		t.Parallel()
		if suite.image == "" {
			t.Skipf("no scratch image of oidkit server built (%s)", suite.why)
		}
		keptOn(t, run(t, "OIDKIT_TEST_MONGO_IMAGE="+suite.image, keepAll), "on container "+suite.image+" at mongodb://")
		run(t, "OIDKIT_TEST_MONGO_IMAGE="+suite.image)
		provider, err := testcontainers.NewDockerProvider()
		if err != nil {
			t.Fatal(err)
		}
		defer provider.Close()
		// Removal is asynchronous in the engine: a container being removed
		// may still be listed for a moment.
		var left []string
		for deadline := time.Now().Add(30 * time.Second); ; {
			res, err := provider.Client().ContainerList(context.Background(), client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("ancestor", suite.image)})
			if err != nil {
				t.Fatal(err)
			}
			left = left[:0]
			for _, c := range res.Items {
				left = append(left, fmt.Sprintf("%s (%s: %s)", c.ID[:12], c.State, c.Status))
			}
			if len(left) == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
		if len(left) != 0 {
			t.Fatalf("containers of %s left after the tests: %v", suite.image, left)
		}
	})
}

// keepAll keeps every database New makes (oidkittest.KeepEnv).
const keepAll = "OIDKIT_TEST_KEEP=1"

// withoutBackend is env without the variables that choose oidkittest's
// backend.
func withoutBackend(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, envURI+"=") || strings.HasPrefix(kv, envMongoImage+"=") || strings.HasPrefix(kv, "TMPDIR=") || strings.HasPrefix(kv, "OIDKIT_TEST_CACHE=") || strings.HasPrefix(kv, "OIDKIT_TEST_KEEP=")
	})
}

// startServerProcess runs `oidkit server` on a loopback port it picks itself
// (see relServe) over a data directory of the test's, stopped at cleanup.
func startServerProcess(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(suite.bin, "server", "--listen", "127.0.0.1:0", "--data-dir", t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errOut := &syncBuffer{} // written by exec's copying goroutine
	cmd.Stderr = errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	first := make(chan string, 1)
	go func() {
		// The first line is the connection string; the rest is drained so
		// that the server never blocks on a full pipe.
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		first <- strings.TrimSpace(line)
		_, _ = io.Copy(io.Discard, r)
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	var uri string
	select {
	case uri = <-first:
	case <-time.After(time.Minute):
		t.Fatal("oidkit server printed no connection string within a minute")
	}
	if !strings.HasPrefix(uri, "mongodb://") {
		t.Fatalf("oidkit server printed %q, want a connection string\n%s", uri, errOut.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := pingUntil(ctx, uri); err != nil {
		t.Fatalf("oidkit server at %s: %v\n%s", uri, err, errOut.String())
	}
	return uri
}
