package engine

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// operations are the requests in flight, for currentOp and killOp.
type operations struct {
	mu   sync.Mutex
	next int64
	m    map[int64]*operation
}

type operation struct {
	id      int64
	ns      string
	cmd     bsoncore.Document
	client  string
	appName string
	conn    int64
	started time.Time
	cancel  context.CancelFunc
}

// begin registers a request and returns its context, which killOp
// cancels, and the function that ends it.
func (o *operations) begin(ctx context.Context, cn *conn, db, name string, cmd bsoncore.Document) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	op := &operation{ns: db + "." + bsonval.Text(lookupOr(cmd, name)), cmd: cmd, started: time.Now(), cancel: cancel}
	if cn != nil {
		op.appName, op.conn = cn.appName, cn.id
		if cn.c != nil {
			op.client = cn.c.RemoteAddr().String()
		}
	}
	o.mu.Lock()
	if o.m == nil {
		o.m = map[int64]*operation{}
	}
	o.next++
	op.id = o.next
	o.m[op.id] = op
	o.mu.Unlock()
	return ctx, func() {
		o.mu.Lock()
		delete(o.m, op.id)
		o.mu.Unlock()
		cancel()
	}
}

// cmdCurrentOp lists the requests in flight (the asking one included).
func cmdCurrentOp(c *call) (bsoncore.Document, error) {
	o := &c.srv.ops
	o.mu.Lock()
	var vals []bsoncore.Value
	for _, op := range o.m {
		d := bsoncore.NewDocumentBuilder().AppendString("type", "op").AppendInt64("opid", op.id).AppendBoolean("active", true).
			AppendString("op", "command").AppendString("ns", op.ns).AppendDocument("command", op.cmd).
			AppendInt64("connectionId", op.conn).AppendString("client", op.client).AppendString("appName", op.appName).
			AppendInt64("microsecs_running", time.Since(op.started).Microseconds()).
			AppendInt64("secs_running", int64(time.Since(op.started).Seconds())).Build()
		vals = append(vals, bsonval.Doc(d))
	}
	o.mu.Unlock()
	return newReply().b.AppendArray("inprog", bsoncore.BuildArray(nil, vals...)).AppendDouble("ok", 1).Build(), nil
}

// cmdKillOp interrupts the request op: it ends with Interrupted (11601).
func cmdKillOp(c *call) (bsoncore.Document, error) {
	v := c.arg("op")
	if !bsonval.IsNumber(v) {
		return nil, mongoerr.New(mongoerr.TypeMismatch, "killOp: expected the op id as a number, got %s", bsonval.Shell(v))
	}
	id := numberInt64(v)
	o := &c.srv.ops
	o.mu.Lock()
	op := o.m[id]
	o.mu.Unlock()
	if op != nil {
		op.cancel()
	}
	return newReply().b.AppendString("info", "attempting to kill op").AppendDouble("ok", 1).Build(), nil
}
