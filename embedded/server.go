// Package embedded owns the MongoDB-compatible server that runs inside the
// calling process: oidkit's own engine (package engine), documents kept as
// BSON in copy-on-write trees in memory and made durable in a data
// directory by a journal and checkpoints; nothing to download and no other
// process.
//
// It is the default target of every oidkit command that talks to a database
// when no --uri or OIDKIT_URI is given, and the default backend of oidkittest,
// so that oidkit works on a machine with nothing else installed. Data lives in
// a directory (default .oidkit/).
//
// It speaks MongoDB 8.0's wire protocol and commands; docs/server.md lists
// what it does and what it refuses (non-simple collation, $text, $where,
// geospatial queries, views), with the conformance figures. A data directory
// written by the previous embedded server (SQLite files, which the engine
// cannot read) is refused, untouched, with an error that says how to export
// it.
//
// One server at a time may use a data directory: Start takes an exclusive
// lock on LockFile in it and fails at once with *LockedError naming the
// holder otherwise. The lock lasts until Close or the holder's death.
//
// Close lets the requests in flight finish (up to DrainGrace), writes a
// checkpoint and releases the directory; clients still connected then see
// their connection closed.
package embedded

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/oidkit/oidkit/embedded/engine"
)

// DefaultDataDir is where data is kept when no directory is given.
const DefaultDataDir = ".oidkit"

// ErrListen is returned when the listen address cannot be used (in use, not
// a local address).
var ErrListen = errors.New("cannot listen on address")

// Options configure an embedded server.
type Options struct {
	// DataDir holds the journal and checkpoint; it is created if missing.
	// Empty means DefaultDataDir.
	DataDir string
	// Listen is the TCP address; empty means a free port on 127.0.0.1.
	Listen string
	// Logger receives the server's log; nil discards it.
	Logger *slog.Logger

	// socket, when set, makes the server listen on a Unix socket in a
	// fresh temporary directory instead of TCP, and URI name it.
	socket bool
}

// Server is a running embedded server.
type Server struct {
	uri    string
	addr   string
	lock   *dirLock
	done   chan struct{}
	once   sync.Once
	socket string        // the Unix socket path, when it listens on one
	grace  time.Duration // how long Close lets requests in flight finish

	own     *engine.Server
	store   *engine.Store
	sockDir string
	err     error // why it stopped serving on its own; set before done closes
}

// DrainGrace is how long Close waits for the requests in flight to be
// answered before it closes their connections.
const DrainGrace = 10 * time.Second

// Start starts a server and returns once it accepts connections.
func Start(opts Options) (*Server, error) {
	dir := opts.DataDir
	if dir == "" {
		dir = DefaultDataDir
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("data directory %q: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("data directory %q: %w", dir, err)
	}
	lock, err := lockDir(abs)
	if err != nil {
		return nil, err
	}
	s, err := startOwn(abs, dir, opts)
	if err != nil {
		lock.release()
		return nil, err
	}
	s.lock = lock
	_ = lock.record(s.uri) // the URI only improves a second server's message
	return s, nil
}

// URI is a mongodb:// connection string for the server.
func (s *Server) URI() string { return s.uri }

// Addr is the host:port the server listens on.
func (s *Server) Addr() string { return s.addr }

// Close stops the server and waits until it has stopped. It first stops
// taking connections and lets the requests in flight be answered, up to
// DrainGrace, closing each client connection once it is idle, then writes
// a checkpoint.
func (s *Server) Close() error {
	s.once.Do(s.closeOwn)
	<-s.done
	s.lock.release()
	return nil
}

// Done is closed when the server has stopped.
func (s *Server) Done() <-chan struct{} { return s.done }

// Err is why the server stopped serving on its own (its listener failed),
// once Done is closed; nil while it serves and after Close.
func (s *Server) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}
