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
// Close lets the requests in flight finish before FerretDB stops (see
// Close); clients still connected then see their connection closed.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"

	"github.com/oidkit/oidkit/embedded/engine"
)

// DefaultDataDir is where data is kept when no directory is given.
const DefaultDataDir = ".oidkit"

// ErrListen is returned when the listen address cannot be used (in use, not
// a local address).
var ErrListen = errors.New("cannot listen on address")

// SQLitePragmas are what the server asks of SQLite beyond FerretDB's own
// defaults (WAL journal, 10 s busy timeout, no auto-vacuum), as the query of
// its SQLite URL. With the WAL journal, synchronous=NORMAL syncs the WAL to
// disk at each checkpoint rather than at each commit: a write acknowledged
// is in the WAL file before the answer is sent, so a killed process loses
// nothing acknowledged, while an OS crash or power loss may undo the
// acknowledged writes since the last checkpoint (at most about 4 MB of
// WAL), never corrupting the file (docs/reliability.md). FerretDB commits
// every 100 documents, and at FULL each commit waits for the disk.
const SQLitePragmas = "_pragma=synchronous(normal)"

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

	// Engine picks the server: EngineOwn, EngineFerretDB, or empty for
	// the one EngineEnv names (FerretDB when it names none).
	Engine string

	// socket, when set, makes the server listen on a Unix socket in a
	// fresh temporary directory instead of TCP, and URI name it.
	socket bool
	// sqliteQuery, when set, replaces SQLitePragmas in FerretDB's SQLite URL.
	sqliteQuery string
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
	socket string        // the Unix socket path, when it listens on one
	grace  time.Duration // how long Close lets requests in flight finish

	own     *engine.Server // oidkit's own engine, when it runs instead of FerretDB
	store   *engine.Store
	sockDir string
}

// DrainGrace is how long Close waits for the requests in flight to be
// answered before FerretDB stops, which cancels those still running 3 s
// later.
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
	var s *Server
	if opts.Engine == EngineOwn || opts.Engine == "" && ownEngine() {
		s, err = startOwn(abs, dir, opts)
	} else {
		s, err = start(abs, dir, opts)
	}
	if err != nil {
		lock.release()
		return nil, err
	}
	s.lock = lock
	_ = lock.record(s.uri) // the URI only improves a second server's message
	return s, nil
}

// newMu serializes ferretdb.New: it sets a package variable of FerretDB's
// (its version's package name) on every call, so servers started at once
// (oidkittest's clones) would write it together.
var newMu sync.Mutex

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
	lc := ferretdb.ListenerConfig{TCP: listen}
	var sockDir string
	if opts.socket {
		if sockDir, err = os.MkdirTemp("", "oidkit-sock"); err != nil {
			return nil, fmt.Errorf("embedded server socket: %w", err)
		}
		lc = ferretdb.ListenerConfig{Unix: filepath.Join(sockDir, "mongodb.sock")}
	}
	query := SQLitePragmas
	if opts.sqliteQuery != "" {
		query = opts.sqliteQuery
	}
	sqliteURL := "file:" + filepath.ToSlash(abs) + "/?" + query
	newMu.Lock()
	db, err := ferretdb.New(&ferretdb.Config{
		Listener:  lc,
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: sqliteURL,
	})
	newMu.Unlock()
	if err != nil {
		if sockDir != "" {
			_ = os.RemoveAll(sockDir)
		}
		return nil, fmt.Errorf("embedded server over %q: %w", dir, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{db: db, cancel: cancel, done: make(chan struct{}), socket: lc.Unix, grace: DrainGrace}
	go func() {
		defer close(s.done)
		_ = db.Run(ctx)
		if sockDir != "" {
			_ = os.RemoveAll(sockDir)
		}
	}()
	if lc.Unix != "" {
		s.addr = lc.Unix
		s.uri = "mongodb://" + url.QueryEscape(lc.Unix) + "/"
		return s, nil
	}
	s.uri = db.MongoDBURI()
	s.addr = strings.TrimSuffix(strings.TrimPrefix(s.uri, "mongodb://"), "/")
	return s, nil
}

// URI is a mongodb:// connection string for the server.
func (s *Server) URI() string { return s.uri }

// Addr is the host:port the server listens on.
func (s *Server) Addr() string { return s.addr }

// Close stops the server and waits until it has stopped. It first stops
// taking connections and lets the requests in flight be answered, up to
// DrainGrace, closing each client connection once it is idle; on systems
// other than Linux it cannot see them, and FerretDB cancels those still
// running after 3 s.
func (s *Server) Close() error {
	s.once.Do(func() {
		if s.own != nil {
			s.closeOwn()
			return
		}
		s.drain(s.grace)
		s.cancel()
	})
	<-s.done
	s.lock.release()
	return nil
}

// Done is closed when the server has stopped.
func (s *Server) Done() <-chan struct{} { return s.done }
