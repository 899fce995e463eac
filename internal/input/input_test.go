//go:build unix

package input

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within fails the test unless fn returns within limit.
func within(t *testing.T, limit time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		fn()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("still waiting after %v", limit)
	}
}

// An open of a FIFO without a writer ends when the context does.
func TestOpenFIFOCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	var err error
	within(t, time.Second, func() { _, err = Open(ctx, path) })
	var pe *os.PathError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &pe) || pe.Path != path {
		t.Fatalf("err %v; want the path and context.Canceled", err)
	}
	// The open left behind ends when a writer comes, and closes its file.
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
}

// A read that waits for data ends when the context does, whichever way the
// Reader reads: a FIFO opened by name (its deadline), a pipe as a process
// gets it on standard input (a goroutine), and any io.Reader.
func TestReadCancelled(t *testing.T) {
	fifo := func(t *testing.T) io.Reader {
		path := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		go func() {
			w, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err == nil {
				_, _ = w.WriteString("abc")
				t.Cleanup(func() { w.Close() })
			}
		}()
		f, err := Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f.f
	}
	pipe := func(t *testing.T) io.Reader {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		// A blocking descriptor, as a process gets its standard input.
		fd, err := syscall.Dup(int(r.Fd()))
		if err != nil {
			t.Fatal(err)
		}
		blocking := os.NewFile(uintptr(fd), "stdin")
		_, _ = w.WriteString("abc")
		t.Cleanup(func() { w.Close(); r.Close(); blocking.Close() })
		return blocking
	}
	reader := func(t *testing.T) io.Reader {
		pr, pw := io.Pipe()
		go func() { _, _ = pw.Write([]byte("abc")) }()
		t.Cleanup(func() { pw.Close() })
		return pr
	}
	for name, mk := range map[string]func(*testing.T) io.Reader{"FIFO": fifo, "pipe": pipe, "io.Reader": reader} {
		t.Run(name, func(t *testing.T) {
			src := mk(t)
			ctx, cancel := context.WithCancel(t.Context())
			r := NewReader(ctx, src)
			defer r.Close()
			buf := make([]byte, 10)
			n, err := io.ReadAtLeast(r, buf, 3)
			if err != nil || string(buf[:n]) != "abc" {
				t.Fatalf("read %q, %v", buf[:n], err)
			}
			time.AfterFunc(50*time.Millisecond, cancel)
			within(t, time.Second, func() { _, err = r.Read(buf) })
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v; want context.Canceled", err)
			}
			if _, err := r.Read(buf); !errors.Is(err, context.Canceled) {
				t.Fatalf("a read after the cancel: %v", err)
			}
		})
	}
}

// A regular file is read to its end in chunks, and a read loop over a
// device that never ends stops once the context is done.
func TestReadRegularAndDevice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	want := strings.Repeat("x", 3*chunk+5)
	if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(f)
	f.Close()
	if err != nil || string(got) != want {
		t.Fatalf("read %d bytes, %v", len(got), err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	z, err := Open(ctx, "/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer z.Close()
	time.AfterFunc(50*time.Millisecond, cancel)
	within(t, 5*time.Second, func() { _, err = io.Copy(io.Discard, z) })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("copy of /dev/zero: %v; want context.Canceled", err)
	}
}
