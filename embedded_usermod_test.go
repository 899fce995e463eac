package main

import (
	"strings"
	"testing"
)

// TestUserModuleServesEmbedded is package embedded's front door used as a
// user's own module would (example.com/usermod, oidkit replaced by this
// checkout): Start on a data directory, Addr and URI, a document written
// and read back through the driver, a second Start on the same directory
// refused with a LockedError that names the first server's URI, Close,
// and Done closed after it.
func TestUserModuleServesEmbedded(t *testing.T) {
	t.Parallel() // a module of its own
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	dir := userModule(t, map[string]string{
		"server_test.go": `package usermod

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded"
)

func TestEmbedded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := embedded.Start(embedded.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if s.Addr() == "" || s.URI() == "" {
		t.Fatalf("Addr %q, URI %q", s.Addr(), s.URI())
	}
	cl, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
	if err != nil {
		t.Fatal(err)
	}
	coll := cl.Database("app").Collection("users")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "Ada"}}); err != nil {
		t.Fatal(err)
	}
	var got struct{ Name string }
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&got); err != nil || got.Name != "Ada" {
		t.Fatalf("read back %+v, %v", got, err)
	}
	_, err = embedded.Start(embedded.Options{DataDir: dir})
	var locked *embedded.LockedError
	if !errors.As(err, &locked) || locked.URI != s.URI() {
		t.Fatalf("a second Start on the directory: %v, want a LockedError naming %s", err, s.URI())
	}
	_ = cl.Disconnect(ctx)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	default:
		t.Fatal("Done is open after Close")
	}
}
`,
	})
	out, err := goIn(dir, "test", "-count=1", "-v", ".").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestEmbedded") {
		t.Fatalf("the user module's test: %v\n%s", err, out)
	}
}
