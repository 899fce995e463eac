package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/auth"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/internal/redact"
	"github.com/oidkit/oidkit/rules"
)

// target is a connected database: a server given by --uri, or the embedded one.
type target struct {
	Client   *mongo.Client
	Display  string // the URI with any password masked, for messages
	Embedded bool
	Timeout  time.Duration
	server   *embedded.Server
	profile  rules.Profile // once detected
}

// targetOption changes how openTarget treats --data-dir.
type targetOption int

// existingDataDir makes a missing --data-dir bad input (exit 2) instead of
// creating it: a command that only reads would otherwise report an empty
// database for a mistyped directory.
const existingDataDir targetOption = 1

// openTarget connects to --uri, or starts the embedded server over --data-dir.
// It pings the server within --timeout so that an unreachable server fails
// fast with a message naming it. No error it returns shows a password of the
// connection string.
func openTarget(ctx context.Context, c *ucli.Context, opts ...targetOption) (*target, error) {
	uri := strings.TrimSpace(c.String(flagURI))
	t, err := connectTarget(ctx, c, uri, opts)
	if err != nil {
		return nil, redactError(err, uri)
	}
	return t, nil
}

func connectTarget(ctx context.Context, c *ucli.Context, uri string, topts []targetOption) (*target, error) {
	timeout := c.Duration(flagTimeout)
	if timeout <= 0 {
		return nil, usageErrorf("%s %v: expected a positive duration such as 10s", arg(flagTimeout), timeout)
	}
	t := &target{Timeout: timeout}
	if uri == "" {
		dir := c.String(flagDataDir)
		if slices.Contains(topts, existingDataDir) {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return nil, usageErrorf("%s %q: no such directory; expected the data directory of an earlier seed or load", arg(flagDataDir), dir)
			}
		}
		srv, err := startEmbedded(dir)
		if err != nil {
			return nil, err
		}
		t.server, t.Embedded, uri = srv, true, srv.URI()
		t.Display = fmt.Sprintf("embedded server (data in %s)", c.String(flagDataDir))
	} else {
		if !strings.HasPrefix(uri, "mongodb://") && !strings.HasPrefix(uri, "mongodb+srv://") {
			return nil, usageErrorf("%s %q: expected a connection string starting with mongodb:// or mongodb+srv://", arg(flagURI), MaskURI(uri))
		}
		t.Display = MaskURI(uri)
	}
	opts := options.Client().ApplyURI(uri).
		SetServerSelectionTimeout(timeout).
		SetConnectTimeout(timeout).
		SetTimeout(timeout)
	if err := opts.Validate(); err != nil {
		t.Close()
		return nil, usageErrorf("%s %q: %v", arg(flagURI), t.Display, err)
	}
	client, err := mongo.Connect(opts)
	if err != nil {
		t.Close()
		return nil, usageErrorf("%s %q: %v", arg(flagURI), t.Display, err)
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

// startEmbedded starts the embedded server over dir, saying how to reach the
// data when another process holds the directory.
func startEmbedded(dir string) (*embedded.Server, error) {
	srv, err := embedded.Start(embedded.Options{DataDir: dir})
	var le *embedded.LockedError
	switch {
	case errors.As(err, &le):
		return nil, failure(lockedMessage(le))
	case err != nil:
		return nil, failuref("embedded server: %w", err)
	}
	return srv, nil
}

// lockedMessage names the holder of a data directory and the two ways on.
func lockedMessage(le *embedded.LockedError) error {
	reach := "the " + arg(flagURI) + " mongodb://HOST:PORT printed by a running oidkit server over it"
	if le.URI != "" {
		reach = arg(flagURI) + " " + le.URI + " if that is a running oidkit server"
	}
	return fmt.Errorf("%w; only one server may use a data directory at a time: use %s, or another %s", le, reach, arg(flagDataDir))
}

// describeConnError says why a server could not be used, naming it.
func describeConnError(display string, timeout time.Duration, err error) error {
	var ce mongo.CommandError
	var ae *auth.Error // the handshake's authentication failed
	var se topology.ServerSelectionError
	switch {
	case errors.As(err, &ce) && (ce.Code == 18 || ce.Code == 13), errors.As(err, &ae):
		return fmt.Errorf("authentication failed for %s: %v", display, err)
	case errors.Is(err, context.DeadlineExceeded) || mongo.IsTimeout(err) || errors.As(err, &se):
		return fmt.Errorf("server %s unreachable within %s %v: %v", display, arg(flagTimeout), timeout, err)
	}
	return fmt.Errorf("server %s: %v", display, err)
}

// Profile is what the connected server stores and can do, asked once
// (rules.Detect) and kept for the life of the target.
func (t *target) Profile(ctx context.Context) (rules.Profile, error) {
	if t.profile.Name() == "" {
		p, err := rules.Detect(ctx, t.Client)
		if err != nil {
			return rules.Profile{}, err
		}
		t.profile = p
	}
	return t.profile, nil
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

// MaskURI hides the password of a connection string, well-formed or not.
func MaskURI(uri string) string { return redact.URI(uri) }

// redactedError shows its error with the password of uri masked; errors.As
// and errors.Is still see the original chain (exit code included).
type redactedError struct {
	err error
	uri string
}

func (e *redactedError) Error() string { return redact.In(e.err.Error(), e.uri) }
func (e *redactedError) Unwrap() error { return e.err }

// redactError masks the password of uri in err's message.
func redactError(err error, uri string) error {
	if err == nil || len(redact.Secrets(uri)) == 0 {
		return err
	}
	return &redactedError{err: err, uri: uri}
}
