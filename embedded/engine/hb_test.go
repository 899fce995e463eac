package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
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

// An awaitable hello is one with this server's topologyVersion and a
// numeric maxAwaitTimeMS (int32, int64 or double); one without either, with
// a null, a string or a wait of 0 or less, or another process's version,
// is answered at once. Over a second, the first wait of a connection is
// firstAwait; a second or less is waited whole.
func TestHelloAwaitArguments(t *testing.T) {
	c, _ := serve(t, "")
	ctx := context.Background()
	admin := c.Database("admin")
	var first struct {
		TopologyVersion bson.Raw `bson:"topologyVersion"`
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&first); err != nil {
		t.Fatal(err)
	}
	other := bson.D{{Key: "processId", Value: bson.NewObjectID()}, {Key: "counter", Value: int64(0)}}
	for _, tc := range []struct {
		name string
		tv   any
		max  any
		min  time.Duration // the least wait
	}{
		{"no maxAwaitTimeMS", first.TopologyVersion, nil, 0},
		{"null", first.TopologyVersion, bson.Null{}, 0},
		{"string", first.TopologyVersion, "900", 0},
		{"zero", first.TopologyVersion, int32(0), 0},
		{"negative", first.TopologyVersion, int64(-5), 0},
		{"another process", other, int32(900), 0},
		{"no topologyVersion", nil, int32(900), 0},
		{"int32 300", first.TopologyVersion, int32(300), 300 * time.Millisecond},
		{"int64 300", first.TopologyVersion, int64(300), 300 * time.Millisecond},
		{"double 300.5", first.TopologyVersion, 300.5, 300 * time.Millisecond},
		{"over a second: the first wait is short", first.TopologyVersion, int32(20000), firstAwait},
	} {
		cmd := bson.D{{Key: "hello", Value: 1}}
		if tc.tv != nil {
			cmd = append(cmd, bson.E{Key: "topologyVersion", Value: tc.tv})
		}
		if tc.max != nil {
			cmd = append(cmd, bson.E{Key: "maxAwaitTimeMS", Value: tc.max})
		}
		start := time.Now()
		if err := admin.RunCommand(ctx, cmd).Err(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		took := time.Since(start)
		switch {
		case took < tc.min:
			t.Errorf("%s: answered after %v; want a wait of at least %v", tc.name, took, tc.min)
		case tc.min == 0 && took >= 900*time.Millisecond: // the wait asked for, where one was
			t.Errorf("%s: answered after %v; want it at once", tc.name, took)
		case took > 10*time.Second:
			t.Errorf("%s: answered after %v; want it after %v", tc.name, took, tc.min)
		}
	}
}
