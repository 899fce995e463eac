package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The driver's server monitor sends awaitable hellos (topologyVersion and
// maxAwaitTimeMS); the server answers them when the time is up, not at
// once, so an idle client costs nothing: over two seconds the monitor
// sees a few heartbeats, not thousands. A hello that waits does not hold
// up Shutdown.
func TestHelloAwaitsTopologyChange(t *testing.T) {
	c0, srv, st := serveUnmanaged(t, "")
	_ = c0.Disconnect(context.Background())
	var beats atomic.Int64
	mon := &event.ServerMonitor{ServerHeartbeatSucceeded: func(*event.ServerHeartbeatSucceededEvent) { beats.Add(1) }}
	c, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + srv.addr + "/").SetServerMonitor(mon))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	if err := c.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if n := beats.Load(); n > 5 {
		t.Errorf("%d heartbeats in 2 s; want the monitor to wait for the server's answer", n)
	}
	start := time.Now()
	srv.Shutdown(10 * time.Second)
	_ = st.Close()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Shutdown took %v with a hello waiting; want it to end the wait", took)
	}
}
