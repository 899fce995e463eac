package embedded

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"

	"github.com/oidkit/oidkit/embedded/engine"
)

// ErrFerretDBData is returned when a data directory holds the previous
// embedded server's SQLite files, which oidkit's own engine cannot read.
var ErrFerretDBData = fmt.Errorf("data directory holds data of the previous embedded server (FerretDB with SQLite)")

// refuseFerretDBData fails when dir holds FerretDB's SQLite files and no
// data of oidkit's own engine: nothing there is read, changed or removed.
func refuseFerretDBData(abs, dir string) error {
	if _, err := os.Stat(filepath.Join(abs, "checkpoint")); err == nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(abs, "journal")); err == nil {
		return nil
	}
	matches, _ := filepath.Glob(filepath.Join(abs, "*.sqlite"))
	if len(matches) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %q holds %s; this oidkit cannot read it: export it with the oidkit version that wrote it (oidkit export), or choose another --data-dir", ErrFerretDBData, dir, filepath.Base(matches[0]))
}

// startOwn runs oidkit's own engine over the locked directory abs.
func startOwn(abs, dir string, opts Options) (*Server, error) {
	if err := refuseFerretDBData(abs, dir); err != nil {
		return nil, err
	}
	listen := opts.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	var ln net.Listener
	var sockDir string
	var err error
	if opts.socket {
		if sockDir, err = os.MkdirTemp("", "oidkit-sock"); err != nil {
			return nil, fmt.Errorf("embedded server socket: %w", err)
		}
		ln, err = net.Listen("unix", filepath.Join(sockDir, "mongodb.sock"))
	} else {
		if _, _, err := net.SplitHostPort(listen); err != nil {
			return nil, fmt.Errorf("listen address %q: expected host:port: %w", listen, err)
		}
		ln, err = net.Listen("tcp", listen)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrListen, listen, err)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("embedded server socket: %w", err)
	}
	st, err := engine.Open(abs)
	if err != nil {
		ln.Close()
		if sockDir != "" {
			_ = os.RemoveAll(sockDir)
		}
		return nil, fmt.Errorf("embedded server over %q: %w", dir, err)
	}
	srv := engine.NewServer(st, ln)
	s := &Server{own: srv, store: st, done: make(chan struct{}), grace: DrainGrace}
	go func() {
		defer close(s.done)
		s.err = srv.Serve()
	}()
	if opts.socket {
		s.socket = ln.Addr().String()
		s.addr = s.socket
		s.uri = "mongodb://" + url.QueryEscape(s.socket) + "/"
		s.sockDir = sockDir
		return s, nil
	}
	s.addr = ln.Addr().String()
	s.uri = "mongodb://" + s.addr + "/"
	return s, nil
}

// closeOwn stops oidkit's own engine: requests in flight finish (up to the
// grace), then the store writes its checkpoint.
func (s *Server) closeOwn() {
	s.own.Shutdown(s.grace)
	<-s.done
	_ = s.store.Close()
	if s.sockDir != "" {
		_ = os.RemoveAll(s.sockDir)
	}
}

// CloneDatabase makes database to a copy of database from in O(1) of
// their documents: both share the data until either writes.
func (s *Server) CloneDatabase(ctx context.Context, from, to string) error {
	return s.store.CloneDatabase(ctx, from, to)
}
