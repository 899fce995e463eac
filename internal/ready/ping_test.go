package ready

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/oidkit/oidkit/embedded"
)

// freeAddr is a loopback address no one listens on (for now).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func connectTo(t *testing.T, addr string) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}

// TestPingWaitsForALateServer: tries that select no server go on until
// the server answers.
func TestPingWaitsForALateServer(t *testing.T) {
	addr := freeAddr(t)
	c := connectTo(t, addr)
	started := make(chan *embedded.Server, 1)
	go func() {
		time.Sleep(3 * PingTry) // a few tries select nothing
		s, err := embedded.Start(embedded.Options{DataDir: t.TempDir(), Listen: addr})
		if err != nil {
			t.Error(err)
		}
		started <- s
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := Ping(ctx, c)
	_ = c.Disconnect(ctx)
	if s := <-started; s != nil {
		s.Close()
	}
	if err != nil {
		t.Fatalf("Ping of a server that starts late: %v", err)
	}
}

// TestPingUnreachable: with no server, Ping ends with ctx and returns the
// last selection's error.
func TestPingUnreachable(t *testing.T) {
	c := connectTo(t, freeAddr(t))
	ctx, cancel := context.WithTimeout(context.Background(), 3*PingTry)
	defer cancel()
	err := Ping(ctx, c)
	var se topology.ServerSelectionError
	if !errors.As(err, &se) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Ping with no server: %v; want a server selection error that ran out of time", err)
	}
}

// TestPingReturnsTheServersError: an answer that is an error ends Ping at
// once; it is not tried again (the fail point fails one ping only, so a
// second try would succeed).
func TestPingReturnsTheServersError(t *testing.T) {
	s, err := embedded.Start(embedded.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() }) // after the client's Disconnect, a cleanup of connectTo
	c := connectTo(t, s.Addr())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := Ping(ctx, c); err != nil {
		t.Fatal(err)
	}
	fp := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"ping"}}, {Key: "errorCode", Value: 13}}}}
	if err := c.Database("admin").RunCommand(ctx, fp).Err(); err != nil {
		t.Fatal(err)
	}
	err = Ping(ctx, c)
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 13 {
		t.Fatalf("Ping answered with error 13: %v; want that error, not a second try", err)
	}
}

// TestSpentTry: a try is tried again when its own time ran out, also when
// the driver refused to send the command for the little time left (its
// ErrDeadlineWouldBeExceeded, as it wraps it); never for a server's answer,
// nor once the caller's time is over.
func TestSpentTry(t *testing.T) {
	live := context.Background()
	over, cancel := context.WithCancel(live)
	cancel()
	notSent := fmt.Errorf("calculated server-side timeout (0 ms) is less than or equal to 0: %w", driver.ErrDeadlineWouldBeExceeded)
	server := mongo.CommandError{Code: 13, Message: "unauthorized"}
	for _, c := range []struct {
		name     string
		ctx, try context.Context
		err      error
		want     bool
	}{
		{"answered", live, live, nil, false},
		{"server error", live, live, server, false},
		{"not sent", live, live, notSent, true},
		{"try ended", live, over, server, true},
		{"caller ended", over, over, notSent, false},
	} {
		if got := spent(c.ctx, c.try, c.err); got != c.want {
			t.Errorf("%s: spent = %v, want %v", c.name, got, c.want)
		}
	}
}
