// Package mongotest starts the embedded server for one test, with a client
// connected to it, so tests in every package reach a real server the same way.
package mongotest

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/internal/ready"
)

// Option changes how Start starts the server.
type Option func(*config)

type config struct {
	dataDir string
}

// DataDir makes the server keep its data in dir instead of a new temporary
// directory, so a test can stop a server and start another over the same
// data. Only one server may use a directory at a time.
func DataDir(dir string) Option {
	return func(c *config) { c.dataDir = dir }
}

// Start starts an embedded server (over a temporary directory unless an
// option names one) and connects a client to it. Every operation of the
// client gives up after two minutes, so a stuck server fails the test
// instead of hanging it. Cleanup disconnects the client before stopping the
// server (which waits for open connections).
func Start(t testing.TB, opts ...Option) (uri string, client *mongo.Client) {
	t.Helper()
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.dataDir == "" {
		cfg.dataDir = t.TempDir()
	}
	s, err := embedded.Start(embedded.Options{DataDir: cfg.dataDir})
	if err != nil {
		t.Fatal(err)
	}
	client, err = mongo.Connect(options.Client().ApplyURI(s.URI()).SetTimeout(2 * time.Minute))
	if err != nil {
		_ = s.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ready.Ping(ctx, client); err != nil {
		_ = client.Disconnect(ctx)
		_ = s.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.Disconnect(context.Background())
		_ = s.Close()
	})
	return s.URI(), client
}
