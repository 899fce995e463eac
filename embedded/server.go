// Package embedded owns the MongoDB-compatible server that runs inside the
// calling process: FerretDB v1.24 with its SQLite backend, one SQLite file per
// database in a data directory, nothing to download and no other process.
//
// It is the default target of every oidkit command that talks to a database
// when no --uri or OIDKIT_URI is given, and the default backend of oidkittest,
// so that oidkit works on a machine with nothing else installed. Data lives in
// a directory (default .oidkit/).
//
// What it does not do, as FerretDB v1.24 does not: multi-document
// transactions, change streams, replica sets and sharding, time-series
// collections, collation, $text and $where queries. Aggregation knows only the
// stages $addFields, $collStats, $count, $group, $limit, $match, $project,
// $set, $skip, $sort, $unset and $unwind, and of the expression operators
// only $sum and $type: $lookup, $out, $merge, $toDate and the rest are
// refused. Pick a real MongoDB for code that needs them (oidkittest runs the
// same tests against one through OIDKIT_TEST_URI or OIDKIT_TEST_MONGO_IMAGE).
//
// One server at a time may use a data directory: Start takes an exclusive
// lock on LockFile in it and fails at once with *LockedError naming the
// holder otherwise. The lock lasts until Close or the holder's death.
//
// FerretDB waits up to 3 s for open client connections when it stops, so
// callers disconnect their clients before calling Close.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/FerretDB/FerretDB/ferretdb"
)

// DefaultDataDir is where data is kept when no directory is given.
const DefaultDataDir = ".oidkit"

// ErrListen is returned when the listen address cannot be used (in use, not
// a local address).
var ErrListen = errors.New("cannot listen on address")

// Options configure an embedded server.
type Options struct {
	// DataDir holds the SQLite files; it is created if missing.
	// Empty means DefaultDataDir.
	DataDir string
	// Listen is the TCP address; empty means a free port on 127.0.0.1.
	Listen string
	// Logger receives the server's log; nil discards it without formatting
	// (FerretDB logs every document at debug level, which costs much CPU
	// even when written to io.Discard).
	Logger *slog.Logger
}

// Server is a running embedded server.
type Server struct {
	db     *ferretdb.FerretDB
	uri    string
	addr   string
	lock   *dirLock
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

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
	s, err := start(abs, dir, opts)
	if err != nil {
		lock.release()
		return nil, err
	}
	s.lock = lock
	_ = lock.record(s.uri) // the URI only improves a second server's message
	return s, nil
}

// start runs FerretDB over the locked directory abs.
func start(abs, dir string, opts Options) (*Server, error) {
	listen := opts.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	if _, _, err := net.SplitHostPort(listen); err != nil {
		return nil, fmt.Errorf("listen address %q: expected host:port: %w", listen, err)
	}
	// Try the address first: FerretDB does not release its backend when its
	// listener fails, and the leaked backend later panics in a finalizer.
	probe, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrListen, listen, err)
	}
	_ = probe.Close()
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	db, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: listen},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + filepath.ToSlash(abs) + "/",
	})
	if err != nil {
		return nil, fmt.Errorf("embedded server over %q: %w", dir, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{db: db, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = db.Run(ctx)
	}()
	s.uri = db.MongoDBURI()
	s.addr = strings.TrimSuffix(strings.TrimPrefix(s.uri, "mongodb://"), "/")
	return s, nil
}

// URI is a mongodb:// connection string for the server.
func (s *Server) URI() string { return s.uri }

// Addr is the host:port the server listens on.
func (s *Server) Addr() string { return s.addr }

// Close stops the server and waits until it has stopped.
func (s *Server) Close() error {
	s.once.Do(s.cancel)
	<-s.done
	s.lock.release()
	return nil
}

// Done is closed when the server has stopped.
func (s *Server) Done() <-chan struct{} { return s.done }
