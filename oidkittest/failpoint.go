package oidkittest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/internal/ready"
	"github.com/oidkit/oidkit/internal/redact"
)

// FailPoint is a fault the server injects into the commands it names:
// MongoDB's failCommand fail point, which the embedded server implements
// (a MongoDB reached through OIDKIT_TEST_URI needs enableTestCommands).
type FailPoint struct {
	// Commands are the names of the commands to fail, as the server sees
	// them: "insert", "update", "delete", "find", "aggregate",
	// "findAndModify", "getMore", "count", "bulkWrite", ...
	Commands []string
	// Times is how many commands fail; 0 means every one until the test
	// ends.
	Times int
	// ErrorCode is the code of the error they answer with (for example 11600
	// InterruptedAtShutdown, 91 ShutdownInProgress, 50 MaxTimeMSExpired);
	// 0 means none.
	ErrorCode int32
	// ErrorLabels are the labels of that error; nil lets the server label
	// it as MongoDB would (RetryableWriteError on a retryable write).
	ErrorLabels []string
	// CloseConnection closes the connection instead of answering.
	CloseConnection bool
	// Block holds each command this long before it runs (or fails).
	Block time.Duration
	// WriteConcernError, when not 0, lets the write happen and answers
	// with a write concern error of this code.
	WriteConcernError int32
}

// failMu lets one test at a time hold the fail point: the server has one.
var failMu sync.Mutex

// failHolder is the name of the test holding failMu, "" when none.
var failHolder struct {
	sync.Mutex
	name string
}

// holdsFailPoint reports whether t, or a test t is a subtest of, holds
// the fail point.
func holdsFailPoint(t testing.TB) bool {
	failHolder.Lock()
	defer failHolder.Unlock()
	n := failHolder.name
	return n != "" && (t.Name() == n || strings.HasPrefix(t.Name(), n+"/"))
}

// FailCommand turns fp on, on the server of db (a database New made),
// until the test ends, and returns the same database through a client of
// its own: only that client's commands are failed (the fail point is
// scoped to its application name), so other tests, parallel ones
// included, are not. Give the code under test the returned database.
//
// A server has one fail point: tests that call FailCommand run one after
// the other (a second waits for the first to end); calling it again in
// the same test, or in one of its subtests, replaces the fault. Problems
// fail the test.
func FailCommand(t testing.TB, db *mongo.Database, fp FailPoint) *mongo.Database {
	t.Helper()
	h, err := lookup(db)
	if err != nil {
		t.Fatalf("oidkittest.FailCommand: %v", err)
	}
	if len(fp.Commands) == 0 {
		t.Fatalf("oidkittest.FailCommand: FailPoint.Commands is empty; expected the names of the commands to fail")
	}
	if !holdsFailPoint(t) {
		failMu.Lock()
		failHolder.Lock()
		failHolder.name = t.Name()
		failHolder.Unlock()
		t.Cleanup(func() {
			failHolder.Lock()
			failHolder.name = ""
			failHolder.Unlock()
			failMu.Unlock()
		})
	}
	var nonce [6]byte
	_, _ = rand.Read(nonce[:])
	app := "oidkittest-" + hex.EncodeToString(nonce[:])
	data := bson.D{{Key: "failCommands", Value: fp.Commands}, {Key: "appName", Value: app}}
	if fp.ErrorCode != 0 {
		data = append(data, bson.E{Key: "errorCode", Value: fp.ErrorCode})
	}
	if fp.ErrorLabels != nil {
		data = append(data, bson.E{Key: "errorLabels", Value: fp.ErrorLabels})
	}
	if fp.CloseConnection {
		data = append(data, bson.E{Key: "closeConnection", Value: true})
	}
	if fp.Block > 0 {
		data = append(data, bson.E{Key: "blockConnection", Value: true}, bson.E{Key: "blockTimeMS", Value: fp.Block.Milliseconds()})
	}
	if fp.WriteConcernError != 0 {
		data = append(data, bson.E{Key: "writeConcernError", Value: bson.D{{Key: "code", Value: fp.WriteConcernError}, {Key: "errmsg", Value: "injected by oidkittest.FailCommand"}}})
	}
	var mode any = "alwaysOn"
	if fp.Times > 0 {
		mode = bson.D{{Key: "times", Value: fp.Times}}
	}
	admin := db.Client().Database("admin")
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	cmd := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: mode}, {Key: "data", Value: data}}
	if err := admin.RunCommand(ctx, cmd).Err(); err != nil {
		t.Fatalf("oidkittest.FailCommand on %s: %v (a MongoDB server needs --setParameter enableTestCommands=1)", redact.URI(h.uri), err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		off := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}}
		if err := admin.RunCommand(ctx, off).Err(); err != nil {
			t.Errorf("oidkittest.FailCommand: turning the fail point off: %v", err)
		}
	})
	client, err := mongo.Connect(options.Client().ApplyURI(h.uri).SetAppName(app).SetTimeout(opTimeout))
	if err != nil {
		t.Fatalf("oidkittest.FailCommand: connecting to %s: %v", redact.URI(h.uri), err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	if err := ready.Ping(ctx, client); err != nil {
		t.Fatalf("oidkittest.FailCommand: connecting to %s: %v", redact.URI(h.uri), redact.In(err.Error(), h.uri))
	}
	return client.Database(db.Name())
}
