package cli

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/seed"
)

// A data directory held by a running `oidkit server` (another process) is
// used through that server: seed and load write into it, and say so in one
// line on stderr.
func TestCommandsUseRunningServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := buildOidkit(t, root)
	dataDir := filepath.Join(t.TempDir(), "data")
	srv := exec.Command(bin, "server", "--listen", "127.0.0.1:0", "--data-dir", dataDir)
	stdout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Process.Signal(os.Interrupt)
		_ = srv.Wait()
	})
	uric := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		uric <- strings.TrimSpace(line)
	}()
	var uri string
	select {
	case uri = <-uric:
	case <-time.After(time.Minute):
		t.Fatal("oidkit server printed no connection string within a minute")
	}
	if !strings.HasPrefix(uri, "mongodb://") {
		t.Fatalf("oidkit server printed %q, want a connection string", uri)
	}

	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), bin, args...)
		cmd.Stdin = strings.NewReader(stdin)
		var errb strings.Builder
		cmd.Stderr = &errb
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("oidkit %v: %v\nstdout %s\nstderr %s", args, err, out, errb.String())
		}
		return errb.String()
	}
	want := "oidkit: note: data directory " + dataDir + " is held by oidkit server (process " // then the pid and the URI
	for _, args := range [][]string{
		{"seed", "--kind", "user", "-n", "40", "--seed", "3", "--data-dir", dataDir, "--quiet"},
		{"load", "-c", "piped", "--data-dir", dataDir, "--quiet"},
	} {
		errOut := run(`{"_id":1,"via":"server"}`, args...)
		if n := strings.Count(errOut, "\n"); n != 1 || !strings.HasPrefix(errOut, want) || !strings.Contains(errOut, "using it at "+uri) {
			t.Errorf("oidkit %s: stderr %q; want one line %q... using it at %s", args[0], errOut, want, uri)
		}
	}

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Disconnect(context.Background()) }()
	db := client.Database(seed.DefaultDB)
	for coll, n := range map[string]int64{"users": 40, "piped": 1} {
		got, err := db.Collection(coll).CountDocuments(ctx, bson.D{})
		if err != nil || got != n {
			t.Errorf("%s.%s through the server: %d documents (%v), want %d", seed.DefaultDB, coll, got, err, n)
		}
	}
}

// Only a data directory held by oidkit server is used through its holder:
// another command's in-process server ends with that command.
func TestHeldByServer(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/usr/bin/oidkit server --data-dir d":    true,
		"oidkit server":                          true,
		"./oidkit --quiet server --listen :0":    true,
		"oidkit seed --db server --data-dir d":   false,
		"oidkit load -c server":                  false,
		"/tmp/go-build/cli.test -test.run TestX": false,
		"":                                       false,
		"oidkit":                                 false,
	} {
		if got := heldByServer(cmd); got != want {
			t.Errorf("heldByServer(%q) = %v, want %v", cmd, got, want)
		}
	}
}
