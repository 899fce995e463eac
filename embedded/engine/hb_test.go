package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The driver's server monitor sends awaitable hellos (topologyVersion and
// maxAwaitTimeMS); the server answers them when the time is up, not at
// once, so an idle client costs nothing. The first waits of a connection
// are short (firstAwait, then twice as long each time), so that a client
// whose selection missed the first answer hears again within 50 ms, not
// after 10 s. A hello that waits does not hold up Shutdown.
func TestHelloAwaitsTopologyChange(t *testing.T) {
	c0, srv, st := serveUnmanaged(t, "")
	_ = c0.Disconnect(context.Background())
	const want = 5
	var mu sync.Mutex
	var waits []time.Duration // of the awaited heartbeats, in order
	enough := make(chan struct{})
	mon := &event.ServerMonitor{ServerHeartbeatSucceeded: func(e *event.ServerHeartbeatSucceededEvent) {
		mu.Lock()
		defer mu.Unlock()
		if e.Awaited {
			if waits = append(waits, e.Duration); len(waits) == want {
				close(enough)
			}
		}
	}}
	c, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + srv.addr + "/").SetServerMonitor(mon))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { // after Shutdown: its endSessions finds no server to send to
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = c.Disconnect(ctx)
	}()
	if err := c.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-enough:
	case <-time.After(30 * time.Second):
		t.Fatalf("%d awaited heartbeats in 30 s; want %d within about 1.6 s", len(waits), want)
	}
	mu.Lock()
	for k, d := range waits[:want] {
		if d < firstAwait<<k {
			t.Errorf("awaited heartbeat %d answered after %v; want at least %v (waits %v)", k, d, firstAwait<<k, waits)
		}
	}
	if waits[0] > time.Second {
		t.Errorf("the first awaited heartbeat answered after %v; want about %v, not the whole heartbeat interval", waits[0], firstAwait)
	}
	mu.Unlock()
	start := time.Now()
	srv.Shutdown(10 * time.Second)
	_ = st.Close()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Shutdown took %v with a hello waiting; want it to end the wait", took)
	}
}

// A client that asks for a wait of a second or less (heartbeatFrequencyMS
// 500) is answered after the whole wait from the first awaitable hello:
// it hears often enough, and no more often than it asked.
func TestHelloShortAwaitIsWhole(t *testing.T) {
	_, srv, st := serveUnmanaged(t, "")
	defer func() {
		srv.Shutdown(0)
		_ = st.Close()
	}()
	const interval, want = 500 * time.Millisecond, 3
	waits := make(chan time.Duration, 100)
	mon := &event.ServerMonitor{ServerHeartbeatSucceeded: func(e *event.ServerHeartbeatSucceededEvent) {
		if e.Awaited {
			waits <- e.Duration
		}
	}}
	c, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + srv.addr + "/").SetServerMonitor(mon).SetHeartbeatInterval(interval))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	if err := c.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	for k := range want {
		select {
		case d := <-waits:
			if d < interval {
				t.Errorf("awaited heartbeat %d answered after %v; want the whole %v", k, d, interval)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%d awaited heartbeats in 30 s; want %d", k, want)
		}
	}
}
