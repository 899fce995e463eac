// Package mongotest starts the embedded server for one test, with a client
// connected to it, so tests in every package reach a real server the same way.
package mongotest

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/internal/mongoserver"
)

// Start starts an embedded server over a temporary directory and connects a
// client to it. Every operation of the client gives up after two minutes, so
// a stuck server fails the test instead of hanging it. Cleanup disconnects
// the client before stopping the server (which waits for open connections).
func Start(t testing.TB) (uri string, client *mongo.Client) {
	t.Helper()
	s, err := mongoserver.Start(mongoserver.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	client, err = mongo.Connect(options.Client().ApplyURI(s.URI()).SetTimeout(2 * time.Minute))
	if err != nil {
		_ = s.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.Disconnect(context.Background())
		_ = s.Close()
	})
	return s.URI(), client
}
