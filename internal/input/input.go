// Package input opens and reads the files and streams oidkit takes as
// input so that a cancelled context ends every wait: an open(2) of a FIFO
// that waits for its writer, a read of a pipe, FIFO or terminal that waits
// for data, and a read loop over a device such as /dev/zero that never
// ends. fixtures and audit read their inputs through it.
package input

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

// chunk bounds one read, so that a read loop checks the context at least
// once per chunk.
const chunk = 1 << 20

// File is a file opened by Open. Its reads end with the context's error once
// the context is done.
type File struct {
	*Reader
	f *os.File
}

// Open opens the file at path for reading. A regular file (or directory)
// is opened at once. Anything else (a FIFO, whose open waits for a writer;
// a device) is opened in a goroutine: when ctx is done first, Open returns
// ctx's error and leaves that open behind, closing the file if it ever
// opens. A FIFO without a writer therefore holds one goroutine until a
// writer comes or the process ends.
func Open(ctx context.Context, path string) (*File, error) {
	if err := ctx.Err(); err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if fi, err := os.Stat(path); err == nil && (fi.Mode().IsRegular() || fi.IsDir()) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return &File{Reader: NewReader(ctx, f), f: f}, nil
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			return nil, o.err
		}
		return &File{Reader: NewReader(ctx, o.f), f: o.f}, nil
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.f != nil {
				_ = o.f.Close()
			}
		}()
		return nil, &os.PathError{Op: "open", Path: path, Err: ctx.Err()}
	}
}

// Name is the path given to Open.
func (f *File) Name() string { return f.f.Name() }

// Stat is os.File's Stat.
func (f *File) Stat() (os.FileInfo, error) { return f.f.Stat() }

// Close stops the reader and closes the file.
func (f *File) Close() error {
	f.Reader.Close()
	return f.f.Close()
}

// Reader reads from an io.Reader until its context is done; then every
// Read returns the context's error (context.Canceled on SIGINT). It picks
// one of three ways by what it reads:
//   - a file the runtime polls (a pipe, FIFO or terminal opened by name):
//     the context's end sets the file's read deadline to now, which ends a
//     waiting read;
//   - a regular file: reads of at most 1 MiB, the context checked before
//     each (a read of a regular file does not wait);
//   - anything else (standard input as the process got it, a device such as
//     /dev/zero, any io.Reader): reads run in one goroutine of the Reader's
//     and Read waits for them or for the context. A read under way when the
//     context ends is left behind; its data is dropped.
type Reader struct {
	ctx  context.Context
	r    io.Reader
	err  error // once set, every Read returns it
	stop func() bool

	// The goroutine's way.
	async bool
	once  sync.Once
	req   chan int
	res   chan result
	buf   []byte
}

type result struct {
	n   int
	err error
}

// NewReader reads r until ctx is done. Close releases what it started; it
// does not close r.
func NewReader(ctx context.Context, r io.Reader) *Reader {
	rd := &Reader{ctx: ctx, r: r}
	if f, ok := r.(*os.File); ok {
		if f.SetReadDeadline(time.Time{}) == nil {
			rd.stop = context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Now()) })
			return rd
		}
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			return rd
		}
	}
	rd.async = true
	return rd
}

// Read reads at most 1 MiB into p.
func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return 0, err
	}
	if len(p) > chunk {
		p = p[:chunk]
	}
	if !r.async {
		n, err := r.r.Read(p)
		if err != nil && errors.Is(err, os.ErrDeadlineExceeded) && r.ctx.Err() != nil {
			r.err = r.ctx.Err()
			return n, r.err
		}
		return n, err
	}
	r.once.Do(r.start)
	r.req <- len(p)
	select {
	case res := <-r.res:
		copy(p, r.buf[:res.n])
		return res.n, res.err
	case <-r.ctx.Done():
		r.err = r.ctx.Err()
		return 0, r.err
	}
}

// start runs the goroutine that makes the reads: one per request, into
// its own buffer, which Read copies out before it asks for the next.
func (r *Reader) start() {
	r.req = make(chan int)
	r.res = make(chan result, 1)
	r.buf = make([]byte, chunk)
	go func(req <-chan int, res chan<- result, buf []byte) {
		for n := range req {
			k, err := r.r.Read(buf[:n])
			res <- result{k, err}
		}
	}(r.req, r.res, r.buf)
}

// Close releases the context hook or the goroutine (once its read under
// way, if any, returns). It does not close what the Reader reads.
func (r *Reader) Close() {
	if r.stop != nil {
		r.stop()
	}
	if r.req != nil {
		close(r.req)
		r.req = nil
	}
	if r.err == nil {
		r.err = os.ErrClosed
	}
}
