// Package target owns opening the database a program works on: a MongoDB
// server named by a connection string, or the embedded server over a data
// directory; connected and pinged within a timeout, with what the server
// stores and can do (its rules.Profile) detected once. No error it returns
// shows the password of the connection string.
package target

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/auth"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/internal/ready"
	"github.com/oidkit/oidkit/internal/redact"
	"github.com/oidkit/oidkit/rules"
)

// ErrTimeout is what a timeout that is not positive is refused with.
var ErrTimeout = errors.New("expected a positive duration such as 10s")

// DefaultTimeout is how long a program waits for a server unless told
// otherwise: the Timeout to give Open.
const DefaultTimeout = 10 * time.Second

// Options say which database to open.
type Options struct {
	// URI is a connection string (mongodb:// or mongodb+srv://); empty
	// starts the embedded server over DataDir.
	URI string
	// DataDir is the embedded server's data directory, created if missing
	// unless ExistingDataDir is set.
	DataDir string
	// ExistingDataDir makes a missing DataDir an *OptionError instead of
	// creating it: a program that only reads would otherwise find an empty
	// database in a mistyped directory.
	ExistingDataDir bool
	// Timeout bounds server selection, connecting, the ping and every
	// operation of the client; zero is DefaultTimeout, and a negative one
	// is an *OptionError.
	Timeout time.Duration
}

// Target is an open database server: its client, how messages name it,
// and its profile once asked.
type Target struct {
	Client   *mongo.Client
	Display  string // the URI with any password masked, or the embedded server and its data directory
	Embedded bool
	Timeout  time.Duration
	server   *embedded.Server
	profile  rules.Profile // once detected
}

// The options an *OptionError names.
const (
	OptionURI     = "URI"
	OptionDataDir = "DataDir"
	OptionTimeout = "Timeout"
)

// OptionError is an option Open cannot use: bad input, not a failure of
// the server.
type OptionError struct {
	Option string // OptionURI, OptionDataDir or OptionTimeout
	Value  string // the value, any password masked
	Err    error
}

func (e *OptionError) Error() string { return fmt.Sprintf("%s %q: %v", e.Option, e.Value, e.Err) }
func (e *OptionError) Unwrap() error { return e.Err }

// Why a server could not be used, in a *ConnectError.
const (
	Unreachable = iota + 1 // not reached within the timeout
	Unauthenticated
	Refused // reached, but the ping failed
)

// ConnectError says why a server could not be used, naming it.
type ConnectError struct {
	Display string // the server, as Target.Display
	Timeout time.Duration
	Reason  int // Unreachable, Unauthenticated or Refused
	Err     error
}

func (e *ConnectError) Error() string {
	switch e.Reason {
	case Unauthenticated:
		return fmt.Sprintf("authentication failed for %s: %v", e.Display, e.Err)
	case Unreachable:
		return fmt.Sprintf("server %s unreachable within %v: %v", e.Display, e.Timeout, e.Err)
	}
	return fmt.Sprintf("server %s: %v", e.Display, e.Err)
}

func (e *ConnectError) Unwrap() error { return e.Err }

// Open connects to o.URI, or starts the embedded server over o.DataDir,
// and pings the server within o.Timeout so that an unreachable server
// fails fast with an error naming it: an *OptionError for an option it
// cannot use, an *embedded.LockedError when another process holds the data
// directory, a *ConnectError when the server cannot be used. Close the
// Target when done.
func Open(ctx context.Context, o Options) (*Target, error) {
	uri := strings.TrimSpace(o.URI)
	t, err := connect(ctx, o, uri)
	if err != nil {
		return nil, RedactError(err, uri)
	}
	return t, nil
}

func connect(ctx context.Context, o Options, uri string) (*Target, error) {
	timeout := o.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if timeout < 0 {
		return nil, &OptionError{Option: OptionTimeout, Value: timeout.String(), Err: ErrTimeout}
	}
	t := &Target{Timeout: timeout}
	if uri == "" {
		if o.ExistingDataDir {
			if fi, err := os.Stat(o.DataDir); err != nil || !fi.IsDir() {
				return nil, &OptionError{Option: OptionDataDir, Value: o.DataDir, Err: errors.New("no such directory; expected the data directory of an earlier seed or load")}
			}
		}
		srv, err := startEmbedded(o.DataDir)
		if err != nil {
			return nil, err
		}
		t.server, t.Embedded, uri = srv, true, srv.URI()
		t.Display = fmt.Sprintf("embedded server (data in %s)", o.DataDir)
	} else {
		if !strings.HasPrefix(uri, "mongodb://") && !strings.HasPrefix(uri, "mongodb+srv://") {
			return nil, &OptionError{Option: OptionURI, Value: redact.URI(uri), Err: errors.New("expected a connection string starting with mongodb:// or mongodb+srv://")}
		}
		t.Display = redact.URI(uri)
	}
	opts := options.Client().ApplyURI(uri).
		SetServerSelectionTimeout(timeout).
		SetConnectTimeout(timeout).
		SetTimeout(timeout)
	if err := opts.Validate(); err != nil {
		t.Close()
		return nil, &OptionError{Option: OptionURI, Value: t.Display, Err: err}
	}
	client, err := mongo.Connect(opts)
	if err != nil {
		t.Close()
		return nil, &OptionError{Option: OptionURI, Value: t.Display, Err: err}
	}
	t.Client = client
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := ready.Ping(pctx, client); err != nil {
		if t.server != nil && t.server.Err() != nil {
			err = fmt.Errorf("%w (the embedded server stopped: %v)", err, t.server.Err())
		}
		t.Close()
		return nil, &ConnectError{Display: t.Display, Timeout: timeout, Reason: connectReason(err), Err: err}
	}
	return t, nil
}

// startEmbedded starts the embedded server over dir.
func startEmbedded(dir string) (*embedded.Server, error) {
	srv, err := embedded.Start(embedded.Options{DataDir: dir})
	var le *embedded.LockedError
	switch {
	case errors.As(err, &le):
		return nil, le
	case err != nil:
		return nil, fmt.Errorf("embedded server: %w", err)
	}
	return srv, nil
}

// connectReason is why the ping of a server failed.
func connectReason(err error) int {
	var ce mongo.CommandError
	var ae *auth.Error // the handshake's authentication failed
	var se topology.ServerSelectionError
	switch {
	case errors.As(err, &ce) && (ce.Code == 18 || ce.Code == 13), errors.As(err, &ae):
		return Unauthenticated
	case errors.Is(err, context.DeadlineExceeded) || mongo.IsTimeout(err) || errors.As(err, &se):
		return Unreachable
	}
	return Refused
}

// Database is the database name of the target.
func (t *Target) Database(name string) *mongo.Database { return t.Client.Database(name) }

// Profile is what the connected server stores and can do, asked once
// (rules.Detect) and kept for the life of the target.
func (t *Target) Profile(ctx context.Context) (rules.Profile, error) {
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
func (t *Target) Close() {
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
// and errors.Is still see the original chain.
type redactedError struct {
	err error
	uri string
}

func (e *redactedError) Error() string { return redact.In(e.err.Error(), e.uri) }
func (e *redactedError) Unwrap() error { return e.err }

// RedactError masks the password of uri in err's message.
func RedactError(err error, uri string) error {
	if err == nil || len(redact.Secrets(uri)) == 0 {
		return err
	}
	return &redactedError{err: err, uri: uri}
}
