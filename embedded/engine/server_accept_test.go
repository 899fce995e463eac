package engine

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// failingListener is a real TCP listener whose Accept first returns the
// errors in fail, one a call, as the kernel can (too many open files).
type failingListener struct {
	net.Listener
	fail []error
}

func (l *failingListener) Accept() (net.Conn, error) {
	if len(l.fail) > 0 {
		err := l.fail[0]
		l.fail = l.fail[1:]
		return nil, err
	}
	return l.Listener.Accept()
}

func acceptErr(errno syscall.Errno) error {
	return &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", errno)}
}

// TestServeOutlivesPassingAcceptErrors: the server keeps accepting after
// errors that pass (too many open files, of the process or of the
// system), and a client is answered.
func TestServeOutlivesPassingAcceptErrors(t *testing.T) {
	st, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &failingListener{Listener: ln, fail: []error{acceptErr(syscall.EMFILE), acceptErr(syscall.ENFILE), acceptErr(syscall.EMFILE)}}
	srv := NewServer(st, fl)
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()
	defer func() {
		srv.Shutdown(0)
		_ = st.Close()
	}()
	c, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + ln.Addr().String() + "/").SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	if err := c.Ping(context.Background(), nil); err != nil {
		t.Fatalf("ping after three failed accepts: %v", err)
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v after errors that pass", err)
	default:
	}
}

// TestServeClosesListenerOnFinalError: after an accept error that does not
// pass, Serve returns it and closes the listener, so a client is refused
// at once instead of waiting in the queue for an answer that never comes.
func TestServeClosesListenerOnFinalError(t *testing.T) {
	st, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	final := errors.New("listener broken")
	srv := NewServer(st, &failingListener{Listener: ln, fail: []error{acceptErr(syscall.EMFILE), final}})
	if err := srv.Serve(); !errors.Is(err, final) {
		t.Fatalf("Serve: %v, want %v", err, final)
	}
	if c, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second); err == nil {
		c.Close()
		t.Fatalf("a client still connects to %s after Serve returned", ln.Addr())
	}
	srv.Shutdown(0)
}

func TestAcceptPause(t *testing.T) {
	if p := acceptPause(errors.New("closed"), 0); p != 0 {
		t.Errorf("a final error: pause %v, want 0", p)
	}
	var p time.Duration
	var got []time.Duration
	for range 10 {
		p = acceptPause(acceptErr(syscall.EMFILE), p)
		got = append(got, p)
	}
	if got[0] != 5*time.Millisecond || got[1] != 10*time.Millisecond || got[9] != time.Second {
		t.Errorf("pauses %v: want 5ms, 10ms, ... up to 1s", got)
	}
}
