package cli

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// syncBuffer is a bytes.Buffer safe to read while the app writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The server prints its URI, serves seeded data to a plain driver client
// and stops cleanly when its context is cancelled (main cancels it on
// SIGINT and SIGTERM).
func TestServerCommand(t *testing.T) {
	dir := t.TempDir()
	if out, errOut, code := runApp(t, t.Context(), "", "seed", "--data-dir", dir, "--seed", "5", "-n", "50", "--quiet"); code != ExitOK {
		t.Fatalf("seed: %d %s %s", code, out, errOut)
	}
	var out, errb syncBuffer
	run, stop := context.WithCancel(t.Context())
	defer stop()
	done := make(chan int, 1)
	go func() {
		done <- NewApp(nil, &out, &errb).RunContext(run, []string{"oidkit", "server", "--listen", "127.0.0.1:0", "--data-dir", dir})
	}()
	var uri string
	deadline := time.Now().Add(20 * time.Second)
	for uri == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no URI printed; stderr %q", errb.String())
		}
		select {
		case code := <-done:
			t.Fatalf("server exited with %d: %s", code, errb.String())
		case <-time.After(20 * time.Millisecond):
		}
		if line, _, ok := strings.Cut(out.String(), "\n"); ok {
			uri = line
		}
	}
	if !strings.HasPrefix(uri, "mongodb://127.0.0.1:") || strings.HasSuffix(strings.TrimSuffix(uri, "/"), ":0") {
		t.Fatalf("URI %q: want mongodb://127.0.0.1:PORT", uri)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	n, err := client.Database("oidkit").Collection("users").CountDocuments(ctx, bson.D{})
	_ = client.Disconnect(ctx)
	if err != nil || n != 50 {
		t.Fatalf("count through the server = %d, %v; want 50", n, err)
	}

	stop()
	select {
	case code := <-done:
		if code != ExitOK || !strings.Contains(errb.String(), "stopped") {
			t.Fatalf("after cancel: exit %d, stderr %q", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop when its context was cancelled")
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(uri, "mongodb://"), "/")
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatalf("%s still accepts connections after the server stopped", addr)
	}
}

func TestServerCommandErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--listen", "nonsense"}, ExitUsage, `--listen "nonsense"`},
		{[]string{"--listen", busy.Addr().String()}, ExitFailure, busy.Addr().String()},
		{[]string{"extra"}, ExitUsage, `unexpected argument "extra"`},
		{[]string{"--listen", "127.0.0.1:99999"}, ExitUsage, `port "99999": expected a number from 0 to 65535`},
		{[]string{"--listen", "127.0.0.1:-1"}, ExitUsage, `port "-1"`},
	}
	for _, tc := range cases {
		_, errOut, code := runApp(t, t.Context(), "", append([]string{"server", "--data-dir", dir}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("server %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}
