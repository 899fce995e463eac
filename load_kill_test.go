package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/indexes"
)

// A load into an empty collection creates its unique indexes after the
// documents: killed (SIGKILL) while they go in, it leaves documents
// without the indexes. Run again, the load creates the indexes before writing the
// rest, and ends with every document and every index of the sidecar.
func TestLoadKilledBeforeIndexesRunAgain(t *testing.T) {
	t.Parallel() // a server, data directory and port of its own
	bin := oidkitBinary(t)
	_, _, uri := startServerProcess(t, bin)
	dir := t.TempDir()
	const n = 50000
	if out, err := exec.Command(bin, "fixtures", "--plan", "shop", "--collection", "users", "-n", "50000", "--seed", "1", "--out", dir, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("fixtures: %v\n%s", err, out)
	}
	file := filepath.Join(dir, "users.ndjson")
	load := func() *exec.Cmd {
		cmd := exec.Command(bin, "load", "--uri", uri, "--db", "k", "--quiet", file)
		cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &bytes.Buffer{}
		return cmd
	}
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	ctx := context.Background()
	coll := client.Database("k").Collection("users")

	first := load()
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for waiting := true; waiting; {
		if c, err := coll.EstimatedDocumentCount(ctx); err == nil && c >= 1000 {
			waiting = false
			continue
		}
		select {
		case err := <-done:
			t.Fatalf("the load ended before 1000 documents were in: %v\n%s", err, first.Stderr)
		case <-tick.C:
		}
	}
	have, err := indexes.List(ctx, coll)
	if err != nil || len(have) != 0 {
		t.Fatalf("indexes while the documents go in: %v, %v; want none yet", have, err)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	if stored, _ := coll.CountDocuments(ctx, bson.D{}); stored == 0 {
		t.Fatal("after the kill: no documents; want those written before it")
	}

	again := load()
	if err := again.Run(); err != nil || !strings.Contains(again.Stdout.(*bytes.Buffer).String(), "k.users: 2 indexes: email_1, username_1") {
		t.Fatalf("run again: %v\n%s\n%s", err, again.Stdout, again.Stderr)
	}
	if c, _ := coll.CountDocuments(ctx, bson.D{}); c != n {
		t.Fatalf("run again: %d documents; want %d", c, n)
	}
	have, err = indexes.List(ctx, coll)
	if err != nil || len(have) != 2 || !have[0].Unique || !have[1].Unique {
		t.Fatalf("run again: indexes %v, %v; want email_1 and username_1, unique", have, err)
	}
}
