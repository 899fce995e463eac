package engine

import (
	"os"
	"runtime"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/wire"
	"github.com/oidkit/oidkit/oid"
)

// handler runs a command.
type handler func(c *call) (bsoncore.Document, error)

// commands is every command the server knows, by name.
var commands map[string]handler

func init() {
	commands = map[string]handler{
		"hello": cmdHello, "isMaster": cmdHello, "ismaster": cmdHello,
		"buildInfo": cmdBuildInfo, "buildinfo": cmdBuildInfo,
		"ping": cmdOK, "endSessions": cmdEndSessions, "killSessions": cmdEndSessions, "killAllSessions": cmdKillAllSessions, "refreshSessions": cmdOK, "logout": cmdOK,
		"getParameter": cmdGetParameter, "serverStatus": cmdServerStatus, "connectionStatus": cmdConnectionStatus,
		"whatsmyuri": cmdWhatsMyURI, "hostInfo": cmdHostInfo, "getCmdLineOpts": cmdCmdLine,
		"listDatabases": cmdListDatabases, "listCollections": cmdListCollections,
		"create": cmdCreate, "drop": cmdDrop, "dropDatabase": cmdDropDatabase, "renameCollection": cmdRename,
		"collMod": cmdCollMod, "createIndexes": cmdCreateIndexes, "listIndexes": cmdListIndexes, "dropIndexes": cmdDropIndexes,
		"deleteIndexes": cmdDropIndexes,
		"dbStats":       cmdDBStats, "collStats": cmdCollStats, "validate": cmdValidate,
		"getMore": cmdGetMore, "killCursors": cmdKillCursors,
		"find": cmdFind, "count": cmdCount, "distinct": cmdDistinct, "aggregate": cmdAggregate,
		"insert": cmdInsert, "update": cmdUpdate, "delete": cmdDelete, "findAndModify": cmdFindAndModify, "findandmodify": cmdFindAndModify,
		"explain": cmdExplain, "getLastError": cmdOK, "fsync": cmdOK, "killOp": cmdKillOp, "currentOp": cmdCurrentOp,
		"startSession": cmdStartSession, "bulkWrite": cmdBulkWrite, "getLog": cmdGetLog,
		"configureFailPoint":  cmdConfigureFailPoint,
		"createSearchIndexes": cmdSearchIndexes, "updateSearchIndex": cmdSearchIndexes, "dropSearchIndex": cmdSearchIndexes,
		"commitTransaction": cmdCommitTransaction, "abortTransaction": cmdAbortTransaction,
	}
}

func cmdOK(c *call) (bsoncore.Document, error) { return newReply().ok(), nil }

func cmdHello(c *call) (bsoncore.Document, error) {
	if cl := c.arg("client"); cl.Type == bsoncore.TypeEmbeddedDocument {
		if app, err := bsoncore.Document(cl.Data).LookupErr("application", "name"); err == nil && app.Type == bsoncore.TypeString {
			c.conn.appName = app.StringValue()
		}
	}
	c.awaitTopologyChange()
	b := newReply().b
	if c.name == "hello" {
		b.AppendBoolean("isWritablePrimary", true)
	} else {
		b.AppendBoolean("ismaster", true)
	}
	now := time.Now()
	// A one-node replica set, so that drivers allow transactions: the
	// node is named by the address the client reached.
	me := c.conn.c.LocalAddr().String()
	b.AppendString("setName", ReplicaSetName).AppendInt32("setVersion", 1).
		AppendArray("hosts", bsoncore.BuildArray(nil, bsonval.String(me))).
		AppendString("primary", me).AppendString("me", me).AppendBoolean("secondary", false).
		AppendObjectID("electionId", electionID).
		AppendDocument("lastWrite", bsoncore.NewDocumentBuilder().
			AppendDocument("opTime", bsoncore.NewDocumentBuilder().AppendTimestamp("ts", uint32(now.Unix()), 1).AppendInt64("t", 1).Build()).
			AppendDateTime("lastWriteDate", now.UnixMilli()).Build())
	b.AppendDocument("topologyVersion", topologyVersion()).
		AppendInt32("maxBsonObjectSize", bsonval.MaxDocSize).
		AppendInt32("maxMessageSizeBytes", wire.MaxMessageSize).
		AppendInt32("maxWriteBatchSize", maxWriteBatchSize).
		AppendDateTime("localTime", now.UnixMilli()).
		AppendInt32("logicalSessionTimeoutMinutes", 30).
		AppendInt64("connectionId", c.conn.id).
		AppendInt32("minWireVersion", 0).
		AppendInt32("maxWireVersion", maxWireVersion).
		AppendBoolean("readOnly", false)
	return newReplyFrom(b).ok(), nil
}

func newReplyFrom(b *bsoncore.DocumentBuilder) reply { return reply{b} }

// ReplicaSetName is the name of the one-node replica set the server
// presents (hello's setName).
const ReplicaSetName = "oidkit"

// electionID is the primary's election id: one election, at start.
var electionID = [12]byte{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1}

// processID names this process in topologyVersion: a restarted server
// has another, so drivers know its state is new.
var processID = [12]byte(oid.New())

// awaitTopologyChange is the wait of an awaitable hello: a driver that
// sends the topologyVersion it last saw and maxAwaitTimeMS asks to be
// answered when the topology changes or the time is up. The topology of
// this server never changes while it runs, so the answer waits the whole
// time, or until the server shuts down or the request is cancelled.
// Answering at once would have the driver's monitor ask again at once,
// thousands of times a second.
//
// The first waits of a connection that asks for more than
// earlyAwaitAbove are shorter (firstAwait, then twice as long each time,
// up to maxAwaitTimeMS): a client's server selection that started before
// its monitor's first hello can miss the news of that hello when it
// arrives while the selection subscribes to changes (the Go driver can,
// against a server that answers within a millisecond), and then waits for
// the next answer. A new client hears again within 50 ms, not after the
// whole heartbeatFrequencyMS (10 s by default). A client that asks for a
// second or less hears often enough, and as often as it asked.
func (c *call) awaitTopologyChange() {
	tv, mt := c.arg("topologyVersion"), c.arg("maxAwaitTimeMS")
	if tv.Type != bsoncore.TypeEmbeddedDocument || !bsonval.IsNumber(mt) {
		return
	}
	pid, err := bsoncore.Document(tv.Data).LookupErr("processId")
	if err != nil || pid.Type != bsoncore.TypeObjectID || [12]byte(pid.Data) != processID {
		return // another process's version: answer at once
	}
	wait := time.Duration(bsonval.NumberFloat(mt) * float64(time.Millisecond))
	if wait <= 0 {
		return
	}
	if wait > earlyAwaitAbove {
		wait = min(wait, firstAwait<<min(c.conn.awaits, 20))
	}
	c.conn.awaits++
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-c.ctx.Done():
	case <-c.srv.stopping:
	}
}

// firstAwait is how long a connection's first awaitable hello waits when
// it asks for more than earlyAwaitAbove (awaitTopologyChange).
const (
	firstAwait      = 50 * time.Millisecond
	earlyAwaitAbove = time.Second
)

func cmdBuildInfo(c *call) (bsoncore.Document, error) {
	va := bsoncore.BuildArray(nil, bsonval.Int32(8), bsonval.Int32(0), bsonval.Int32(0), bsonval.Int32(0))
	return newReply().b.AppendString("version", Version).AppendString("gitVersion", "oidkit").
		AppendArray("versionArray", va).AppendInt32("bits", 64).AppendBoolean("debug", false).
		AppendInt32("maxBsonObjectSize", bsonval.MaxDocSize).AppendArray("storageEngines", bsoncore.BuildArray(nil, bsonval.String("oidkit"))).
		AppendArray("modules", bsoncore.BuildArray(nil)).AppendDouble("ok", 1).Build(), nil
}

func cmdGetParameter(c *call) (bsoncore.Document, error) {
	b := newReply().b
	if _, err := c.cmd.LookupErr("featureCompatibilityVersion"); err == nil || c.arg("getParameter").Type == bsoncore.TypeString {
		b.AppendDocument("featureCompatibilityVersion", bsoncore.NewDocumentBuilder().AppendString("version", "8.0").Build())
	}
	return newReplyFrom(b).ok(), nil
}

func cmdServerStatus(c *call) (bsoncore.Document, error) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	c.srv.mu.Lock()
	n := len(c.srv.conns)
	c.srv.mu.Unlock()
	host, _ := os.Hostname()
	return newReply().b.AppendString("host", host).AppendString("version", Version).AppendString("process", "oidkit").
		AppendInt64("pid", int64(os.Getpid())).AppendInt64("uptime", int64(time.Since(c.srv.started).Seconds())).
		AppendDateTime("localTime", time.Now().UnixMilli()).
		AppendDocument("connections", bsoncore.NewDocumentBuilder().AppendInt32("current", int32(n)).AppendInt32("available", 1000000).Build()).
		AppendDocument("mem", bsoncore.NewDocumentBuilder().AppendInt64("resident", int64(ms.Sys>>20)).AppendInt64("virtual", int64(ms.Sys>>20)).Build()).
		AppendDocument("storageEngine", bsoncore.NewDocumentBuilder().AppendString("name", "oidkit").Build()).
		AppendDouble("ok", 1).Build(), nil
}

func cmdConnectionStatus(c *call) (bsoncore.Document, error) {
	info := bsoncore.NewDocumentBuilder().AppendArray("authenticatedUsers", bsoncore.BuildArray(nil)).AppendArray("authenticatedUserRoles", bsoncore.BuildArray(nil)).Build()
	return newReply().b.AppendDocument("authInfo", info).AppendDouble("ok", 1).Build(), nil
}

func cmdWhatsMyURI(c *call) (bsoncore.Document, error) {
	return newReply().b.AppendString("you", c.conn.c.RemoteAddr().String()).AppendDouble("ok", 1).Build(), nil
}

func cmdHostInfo(c *call) (bsoncore.Document, error) {
	host, _ := os.Hostname()
	sys := bsoncore.NewDocumentBuilder().AppendString("hostname", host).AppendInt32("numCores", int32(runtime.NumCPU())).AppendString("cpuArch", runtime.GOARCH).Build()
	return newReply().b.AppendDocument("system", sys).AppendDouble("ok", 1).Build(), nil
}

func cmdCmdLine(c *call) (bsoncore.Document, error) {
	return newReply().b.AppendArray("argv", bsoncore.BuildArray(nil, bsonval.String("oidkit"))).AppendDocument("parsed", bsoncore.NewDocumentBuilder().Build()).AppendDouble("ok", 1).Build(), nil
}

func cmdStartSession(c *call) (bsoncore.Document, error) {
	var u [16]byte
	copy(u[:], processID[:])
	id := bsoncore.NewDocumentBuilder().AppendBinary("id", 4, u[:]).Build()
	return newReply().b.AppendDocument("id", id).AppendInt32("timeoutMinutes", 30).AppendDouble("ok", 1).Build(), nil
}

func cmdGetLog(c *call) (bsoncore.Document, error) {
	return newReply().b.AppendInt32("totalLinesWritten", 0).AppendArray("log", bsoncore.BuildArray(nil)).AppendDouble("ok", 1).Build(), nil
}
