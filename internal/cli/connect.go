package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/internal/mongoserver"
)

// connFlags are the flags of every command that talks to a database. Each
// reads an environment variable too.
func connFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "uri", EnvVars: []string{"OIDKIT_URI"}, Usage: "MongoDB connection string; empty means the embedded server"},
		&ucli.StringFlag{Name: "data-dir", EnvVars: []string{"OIDKIT_DATA_DIR"}, Value: mongoserver.DefaultDataDir, Usage: "data directory of the embedded server"},
		&ucli.DurationFlag{Name: "timeout", EnvVars: []string{"OIDKIT_TIMEOUT"}, Value: 10 * time.Second, Usage: "give up on an unreachable or unresponsive server after this long"},
	}
}

// target is a connected database: a server given by --uri, or the embedded one.
type target struct {
	Client   *mongo.Client
	Display  string // the URI with any password masked, for messages
	Embedded bool
	Timeout  time.Duration
	server   *mongoserver.Server
}

// openTarget connects to --uri, or starts the embedded server over --data-dir.
// It pings the server within --timeout so that an unreachable server fails
// fast with a message naming it.
func openTarget(ctx context.Context, c *ucli.Context) (*target, error) {
	uri := strings.TrimSpace(c.String("uri"))
	timeout := c.Duration("timeout")
	if timeout <= 0 {
		return nil, usageErrorf("--timeout %v: expected a positive duration such as 10s", timeout)
	}
	t := &target{Timeout: timeout}
	if uri == "" {
		srv, err := mongoserver.Start(mongoserver.Options{DataDir: c.String("data-dir")})
		if err != nil {
			return nil, failuref("embedded server: %w", err)
		}
		t.server, t.Embedded, uri = srv, true, srv.URI()
		t.Display = fmt.Sprintf("embedded server (data in %s)", c.String("data-dir"))
	} else {
		if !strings.HasPrefix(uri, "mongodb://") && !strings.HasPrefix(uri, "mongodb+srv://") {
			return nil, usageErrorf("--uri %q: expected a connection string starting with mongodb:// or mongodb+srv://", MaskURI(uri))
		}
		t.Display = MaskURI(uri)
	}
	opts := options.Client().ApplyURI(uri).
		SetServerSelectionTimeout(timeout).
		SetConnectTimeout(timeout).
		SetTimeout(timeout)
	if err := opts.Validate(); err != nil {
		t.Close()
		return nil, usageErrorf("--uri %q: %v", t.Display, err)
	}
	client, err := mongo.Connect(opts)
	if err != nil {
		t.Close()
		return nil, usageErrorf("--uri %q: %v", t.Display, err)
	}
	t.Client = client
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := client.Database("admin").RunCommand(pctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Close()
		return nil, failure(describeConnError(t.Display, timeout, err))
	}
	return t, nil
}

// describeConnError says why a server could not be used, naming it.
func describeConnError(display string, timeout time.Duration, err error) error {
	var ce mongo.CommandError
	switch {
	case errors.As(err, &ce) && (ce.Code == 18 || ce.Code == 13):
		return fmt.Errorf("authentication failed for %s: %v", display, err)
	case strings.Contains(err.Error(), "auth"):
		return fmt.Errorf("authentication failed for %s: %v", display, err)
	case errors.Is(err, context.DeadlineExceeded) || mongo.IsTimeout(err) || strings.Contains(err.Error(), "server selection"):
		return fmt.Errorf("server %s unreachable within --timeout %v: %v", display, timeout, err)
	}
	return fmt.Errorf("server %s: %v", display, err)
}

// IsFerretDB reports whether the connected server is FerretDB.
func (t *target) IsFerretDB(ctx context.Context) bool {
	var bi bson.M
	if err := t.Client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&bi); err != nil {
		return false
	}
	return mongoserver.IsFerretDB(bi)
}

// Close disconnects the client first (the embedded server waits for open
// connections when it stops), then stops the embedded server if any.
func (t *target) Close() {
	if t.Client != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = t.Client.Disconnect(ctx)
		cancel()
		t.Client = nil
	}
	if t.server != nil {
		_ = t.server.Close()
		t.server = nil
	}
}

// MaskURI hides the password of a connection string.
func MaskURI(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.User == nil {
		return uri
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
		return strings.Replace(u.String(), "xxxxx", "****", 1)
	}
	return u.String()
}
