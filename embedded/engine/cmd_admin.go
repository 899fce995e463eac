package engine

import (
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
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
		"configureFailPoint": cmdConfigureFailPoint,
		"commitTransaction":  cmdCommitTransaction, "abortTransaction": cmdAbortTransaction,
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
		AppendArray("hosts", bsoncore.BuildArray(nil, vString(me))).
		AppendString("primary", me).AppendString("me", me).AppendBoolean("secondary", false).
		AppendObjectID("electionId", electionID).
		AppendDocument("lastWrite", bsoncore.NewDocumentBuilder().
			AppendDocument("opTime", bsoncore.NewDocumentBuilder().AppendTimestamp("ts", uint32(now.Unix()), 1).AppendInt64("t", 1).Build()).
			AppendDateTime("lastWriteDate", now.UnixMilli()).Build())
	b.AppendDocument("topologyVersion", topologyVersion()).
		AppendInt32("maxBsonObjectSize", maxDocSize).
		AppendInt32("maxMessageSizeBytes", wire.MaxMessageSize).
		AppendInt32("maxWriteBatchSize", 100000).
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
func (c *call) awaitTopologyChange() {
	tv, mt := c.arg("topologyVersion"), c.arg("maxAwaitTimeMS")
	if tv.Type != bsoncore.TypeEmbeddedDocument || !isNumber(mt) {
		return
	}
	pid, err := bsoncore.Document(tv.Data).LookupErr("processId")
	if err != nil || pid.Type != bsoncore.TypeObjectID || [12]byte(pid.Data) != processID {
		return // another process's version: answer at once
	}
	wait := time.Duration(numberFloat(mt) * float64(time.Millisecond))
	if wait <= 0 {
		return
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-c.ctx.Done():
	case <-c.srv.stopping:
	}
}

func cmdBuildInfo(c *call) (bsoncore.Document, error) {
	va := bsoncore.BuildArray(nil, vInt32(8), vInt32(0), vInt32(0), vInt32(0))
	return newReply().b.AppendString("version", Version).AppendString("gitVersion", "oidkit").
		AppendArray("versionArray", va).AppendInt32("bits", 64).AppendBoolean("debug", false).
		AppendInt32("maxBsonObjectSize", maxDocSize).AppendArray("storageEngines", bsoncore.BuildArray(nil, vString("oidkit"))).
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
	return newReply().b.AppendArray("argv", bsoncore.BuildArray(nil, vString("oidkit"))).AppendDocument("parsed", bsoncore.NewDocumentBuilder().Build()).AppendDouble("ok", 1).Build(), nil
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

// dataSize is the BSON bytes of a collection's documents.
func dataSize(col *collection) int64 { return col.bytes }

func cmdListDatabases(c *call) (bsoncore.Document, error) {
	st := c.view()
	names := make([]string, 0, len(st.dbs))
	for db := range st.dbs {
		names = append(names, db)
	}
	sort.Strings(names)
	nameOnly := truthy(c.arg("nameOnly"))
	var filter *Filter
	if f := c.arg("filter"); f.Type == bsoncore.TypeEmbeddedDocument {
		var err error
		if filter, err = compileFilter(bsoncore.Document(f.Data), nil); err != nil {
			return nil, err
		}
	}
	var vals []bsoncore.Value
	var total int64
	for _, db := range names {
		b := bsoncore.NewDocumentBuilder().AppendString("name", db)
		if !nameOnly {
			var size int64
			for _, col := range st.dbs[db] {
				size += dataSize(col)
			}
			total += size
			b.AppendInt64("sizeOnDisk", size).AppendBoolean("empty", size == 0)
		}
		d := b.Build()
		if filter != nil && !filter.Match(d) {
			continue
		}
		vals = append(vals, vDoc(d))
	}
	b := newReply().b.AppendArray("databases", bsoncore.BuildArray(nil, vals...))
	if !nameOnly {
		b.AppendInt64("totalSize", total).AppendInt64("totalSizeMb", total>>20)
	}
	return newReplyFrom(b).ok(), nil
}

func cmdListCollections(c *call) (bsoncore.Document, error) {
	st := c.view()
	var filter *Filter
	if f := c.arg("filter"); f.Type == bsoncore.TypeEmbeddedDocument {
		var err error
		if filter, err = compileFilter(bsoncore.Document(f.Data), nil); err != nil {
			return nil, err
		}
	}
	names := make([]string, 0)
	for n := range st.dbs[c.db] {
		names = append(names, n)
	}
	sort.Strings(names)
	nameOnly := truthy(c.arg("nameOnly"))
	var docs []bsoncore.Document
	for _, n := range names {
		col := st.dbs[c.db][n]
		if col.isView() {
			b := bsoncore.NewDocumentBuilder().AppendString("name", n).AppendString("type", "view")
			if !nameOnly {
				b.AppendDocument("options", col.opts).AppendDocument("info", bsoncore.NewDocumentBuilder().AppendBoolean("readOnly", true).Build())
			}
			if d := b.Build(); filter == nil || filter.Match(d) {
				docs = append(docs, d)
			}
			continue
		}
		kind := "collection"
		if timeField(col) != "" {
			kind = "timeseries"
		}
		b := bsoncore.NewDocumentBuilder().AppendString("name", n).AppendString("type", kind)
		if !nameOnly {
			opts := col.opts
			if opts == nil {
				opts = bsoncore.NewDocumentBuilder().Build()
			}
			b.AppendDocument("options", opts).
				AppendDocument("info", bsoncore.NewDocumentBuilder().AppendBoolean("readOnly", false).AppendBinary("uuid", 4, col.uuid[:]).Build()).
				AppendDocument("idIndex", bsoncore.NewDocumentBuilder().AppendInt32("v", 2).AppendDocument("key", idKey).AppendString("name", "_id_").Build())
		}
		d := b.Build()
		if filter != nil && !filter.Match(d) {
			continue
		}
		docs = append(docs, d)
	}
	return c.cursorReply(c.db+".$cmd.listCollections", docs, batchSizeOf(c.arg("cursor")), false), nil
}

var idKey = bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).Build()

func batchSizeOf(cur bsoncore.Value) int {
	if cur.Type != bsoncore.TypeEmbeddedDocument {
		return 0
	}
	if v, err := bsoncore.Document(cur.Data).LookupErr("batchSize"); err == nil && isNumber(v) {
		if n := int(numberFloat(v)); n > 0 {
			return n
		}
		return zeroBatch
	}
	return 0
}

func cmdCreate(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	if err := checkCappedOptions(c.arg("capped"), c.arg("size"), c.arg("max")); err != nil {
		return nil, err
	}
	if v := c.arg("expireAfterSeconds"); v.Type != 0 {
		if c.arg("timeseries").Type == 0 {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "'expireAfterSeconds' is only supported on time-series collections")
		}
		if n, ok := intOf(v); !ok || n < 0 {
			return nil, mongoerr.New(mongoerr.InvalidOptions, "'expireAfterSeconds' must be a non-negative whole number, got %s", shell(v))
		}
	}
	if c.arg("viewOn").Type != 0 {
		if err := checkViewOptions(c); err != nil {
			return nil, err
		}
	}
	for _, k := range []string{"clusteredIndex", "encryptedFields"} {
		if v := c.arg(k); v.Type != 0 && truthy(v) {
			return nil, mongoerr.New(mongoerr.NotImplemented, "create with '%s' is not supported by oidkit's server", k)
		}
	}
	opts := bsoncore.NewDocumentBuilder()
	for _, e := range elements(c.cmd)[1:] {
		switch {
		case genericArgs[e.Key()]:
		case e.Key() == "timeseries":
			ts, err := timeSeriesOptions(e.Value())
			if err != nil {
				return nil, err
			}
			opts.AppendDocument("timeseries", ts)
		case e.Key() == "size" && truthy(c.arg("capped")):
			opts.AppendInt64("size", (int64(numberFloat(e.Value()))+255)/256*256) // as MongoDB rounds it
		default:
			opts.AppendValue(e.Key(), e.Value())
		}
	}
	built := opts.Build()
	if _, err := parseValidation(built); err != nil {
		return nil, err
	}
	if _, err := parseCollation(lookupOr(built, "collation")); err != nil {
		return nil, err
	}
	return newReply().ok(), c.write(func(t *tx) error {
		if t.st.coll(c.db, name) != nil {
			return mongoerr.New(mongoerr.NamespaceExists, "Collection %s.%s already exists.", c.db, name)
		}
		col, err := t.mut(c.db, name, true)
		if err != nil {
			return err
		}
		t.setOptions(col, built)
		return nil
	})
}

func cmdDrop(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	var n int32
	err = c.write(func(t *tx) error {
		if col := t.st.coll(c.db, name); col != nil {
			n = int32(len(col.indexes) + 1)
		}
		t.dropCollection(c.db, name)
		return nil
	})
	return newReply().b.AppendInt32("nIndexesWas", n).AppendString("ns", c.db+"."+name).AppendDouble("ok", 1).Build(), err
}

func cmdDropDatabase(c *call) (bsoncore.Document, error) {
	err := c.write(func(t *tx) error { t.dropDatabase(c.db); return nil })
	return newReply().b.AppendString("dropped", c.db).AppendDouble("ok", 1).Build(), err
}

func splitNS(ns string) (string, string, error) {
	db, coll, ok := strings.Cut(ns, ".")
	if !ok || db == "" || coll == "" {
		return "", "", mongoerr.New(mongoerr.InvalidNamespace, "Invalid namespace specified '%s'", ns)
	}
	return db, coll, nil
}

func cmdRename(c *call) (bsoncore.Document, error) {
	fdb, fc, err := splitNS(toStr(elements(c.cmd)[0].Value()))
	if err != nil {
		return nil, err
	}
	tdb, tc, err := splitNS(toStr(c.arg("to")))
	if err != nil {
		return nil, err
	}
	if err := checkNamespace(tdb, tc); err != nil {
		return nil, err
	}
	dropTarget := truthy(c.arg("dropTarget"))
	return newReply().ok(), c.write(func(t *tx) error {
		if t.st.coll(fdb, fc) == nil {
			return mongoerr.New(mongoerr.NamespaceNotFound, "Source collection %s.%s does not exist", fdb, fc)
		}
		if fdb == tdb && fc == tc {
			return mongoerr.New(mongoerr.IllegalOperation, "Can't rename a collection to itself")
		}
		if t.st.coll(tdb, tc) != nil {
			if !dropTarget {
				return mongoerr.New(mongoerr.NamespaceExists, "target namespace exists")
			}
			dropped := t.st.coll(tdb, tc).uuid
			t.dropCollection(tdb, tc)
			t.changes = t.changes[:len(t.changes)-1] // the rename event tells it
			t.rename(fdb, fc, tdb, tc)
			t.changes[len(t.changes)-1].dropTarget = &dropped
			return nil
		}
		t.rename(fdb, fc, tdb, tc)
		return nil
	})
}

// genericArgs are the fields every command may carry, which are not
// options of what it does.
var genericArgs = map[string]bool{"$db": true, "lsid": true, "$clusterTime": true, "writeConcern": true, "txnNumber": true,
	"$readPreference": true, "apiVersion": true, "apiStrict": true, "apiDeprecationErrors": true, "comment": true,
	"maxTimeMS": true, "readConcern": true, "autocommit": true, "startTransaction": true}

// collModOptions are the collection options collMod sets.
var collModOptions = map[string]bool{"validator": true, "validationLevel": true, "validationAction": true,
	"changeStreamPreAndPostImages": true, "expireAfterSeconds": true}

// cmdCollMod changes a collection's options (validator, validation level
// and action, changeStreamPreAndPostImages) and an index's
// expireAfterSeconds or hidden flag; change streams see a modify event.
func cmdCollMod(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	set := map[string]bsoncore.Value{}
	var order []string
	var ixMod bsoncore.Document
	for _, e := range elements(c.cmd)[1:] {
		k := e.Key()
		switch {
		case genericArgs[k]:
		case k == "index":
			if e.Value().Type != bsoncore.TypeEmbeddedDocument {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'collMod.index' is the wrong type '%s', expected type 'object'", typeName(e.Value().Type))
			}
			ixMod = bsoncore.Document(e.Value().Data)
		case collModOptions[k]:
			set[k] = e.Value()
			order = append(order, k)
		default:
			return nil, mongoerr.New(mongoerr.Location(40415), "BSON field 'collMod.%s' is an unknown field.", k)
		}
	}
	reply := newReply().b
	err = c.write(func(t *tx) error {
		col, err := t.mut(c.db, name, false)
		if err != nil {
			return err
		}
		if col == nil {
			return mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: %s.%s", c.db, name)
		}
		if ixMod != nil {
			if err := modifyIndex(t, col, ixMod, reply); err != nil {
				return err
			}
		}
		b := bsoncore.NewDocumentBuilder()
		for _, e := range elements(col.opts) {
			if _, replaced := set[e.Key()]; !replaced {
				b.AppendValue(e.Key(), e.Value())
			}
		}
		for _, k := range order {
			b.AppendValue(k, set[k])
		}
		opts := b.Build()
		if _, err := parseValidation(opts); err != nil {
			return err
		}
		t.setOptions(col, opts)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return newReplyFrom(reply).ok(), nil
}

// modifyIndex applies collMod's index field: the index named by name or
// keyPattern gets a new expireAfterSeconds or hidden flag, the old and
// new values reported as MongoDB does.
func modifyIndex(t *tx, col *collection, mod bsoncore.Document, reply *bsoncore.DocumentBuilder) error {
	var ix *index
	for _, x := range col.indexes {
		if n, err := mod.LookupErr("name"); err == nil && toStr(n) == x.name {
			ix = x
		}
		if kp, err := mod.LookupErr("keyPattern"); err == nil && kp.Type == bsoncore.TypeEmbeddedDocument && equalDocs(bsoncore.Document(kp.Data), x.key) {
			ix = x
		}
	}
	if ix == nil {
		return mongoerr.New(mongoerr.IndexNotFound, "cannot find index %s for ns %s.%s", shell(vDoc(mod)), col.db, col.name)
	}
	spec := bsoncore.NewDocumentBuilder()
	changed := map[string]bsoncore.Value{}
	for _, k := range []string{"expireAfterSeconds", "hidden"} {
		if v, err := mod.LookupErr(k); err == nil {
			changed[k] = v
			if old, err := ix.spec.LookupErr(k); err == nil {
				reply.AppendValue(k+"_old", old)
			}
			reply.AppendValue(k+"_new", v)
		}
	}
	for _, e := range elements(ix.spec) {
		if _, ok := changed[e.Key()]; !ok {
			spec.AppendValue(e.Key(), e.Value())
		}
	}
	for _, k := range []string{"expireAfterSeconds", "hidden"} {
		if v, ok := changed[k]; ok {
			spec.AppendValue(k, v)
		}
	}
	n := len(t.changes)
	t.dropIndex(col, ix.name)
	if _, err := t.createIndex(col, spec.Build()); err != nil {
		return err
	}
	t.changes = t.changes[:n] // one modify event, not a drop and a create
	return nil
}

func cmdCreateIndexes(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	specs := arrayValues(c.arg("indexes"))
	if c.arg("indexes").Type != bsoncore.TypeArray || len(specs) == 0 {
		return nil, mongoerr.New(mongoerr.BadValue, "Must specify at least one index")
	}
	var before, after int32
	created := false
	made := 0
	err = c.write(func(t *tx) error {
		created = t.st.coll(c.db, name) == nil
		col, err := t.mut(c.db, name, true)
		if err != nil {
			return err
		}
		before = int32(len(col.indexes) + 1)
		for _, s := range specs {
			if s.Type != bsoncore.TypeEmbeddedDocument {
				return mongoerr.New(mongoerr.TypeMismatch, "The elements of the 'indexes' array must be objects")
			}
			ok, err := t.createIndex(col, bsoncore.Document(s.Data))
			if err != nil {
				return err
			}
			if ok {
				made++
			}
		}
		after = int32(len(col.indexes) + 1)
		return nil
	})
	if err != nil {
		return nil, err
	}
	b := newReply().b.AppendInt32("numIndexesBefore", before).AppendInt32("numIndexesAfter", after).AppendBoolean("createdCollectionAutomatically", created)
	if made == 0 {
		b.AppendString("note", "all indexes already exist")
	}
	return newReplyFrom(b).ok(), nil
}

func cmdListIndexes(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	col := c.view().coll(c.db, name)
	if col == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "ns does not exist: %s.%s", c.db, name)
	}
	docs := []bsoncore.Document{bsoncore.NewDocumentBuilder().AppendInt32("v", 2).AppendDocument("key", idKey).AppendString("name", "_id_").Build()}
	for _, ix := range col.indexes {
		docs = append(docs, ix.spec)
	}
	return c.cursorReply(c.db+"."+name, docs, batchSizeOf(c.arg("cursor")), false), nil
}

func cmdDropIndexes(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	target := c.arg("index")
	var n int32
	err = c.write(func(t *tx) error {
		col, err := t.mut(c.db, name, false)
		if err != nil {
			return err
		}
		if col == nil {
			return mongoerr.New(mongoerr.NamespaceNotFound, "ns not found %s.%s", c.db, name)
		}
		n = int32(len(col.indexes) + 1)
		var names []string
		switch target.Type {
		case bsoncore.TypeString:
			if target.StringValue() == "*" {
				for _, ix := range col.indexes {
					names = append(names, ix.name)
				}
			} else {
				names = []string{target.StringValue()}
			}
		case bsoncore.TypeArray:
			for _, v := range arrayValues(target) {
				names = append(names, toStr(v))
			}
		case bsoncore.TypeEmbeddedDocument:
			found := false
			for _, ix := range col.indexes {
				if compareDocs(ix.key, bsoncore.Document(target.Data), false) == 0 {
					names, found = []string{ix.name}, true
				}
			}
			if !found {
				if compareDocs(idKey, bsoncore.Document(target.Data), false) == 0 {
					return mongoerr.New(mongoerr.InvalidOptions, "cannot drop _id index")
				}
				return mongoerr.New(mongoerr.IndexNotFound, "can't find index with key: %s", shell(target))
			}
		default:
			return mongoerr.New(mongoerr.TypeMismatch, "invalid index name spec")
		}
		for _, nm := range names {
			if nm == "_id_" {
				return mongoerr.New(mongoerr.InvalidOptions, "cannot drop _id index")
			}
			if col.index(nm) == nil {
				return mongoerr.New(mongoerr.IndexNotFound, "index not found with name [%s]", nm)
			}
		}
		for _, nm := range names {
			t.dropIndex(col, nm)
		}
		return nil
	})
	return newReply().b.AppendInt32("nIndexesWas", n).AppendDouble("ok", 1).Build(), err
}

func cmdDBStats(c *call) (bsoncore.Document, error) {
	st := c.view()
	var objs, size int64
	var idx int32
	for _, col := range st.dbs[c.db] {
		objs += int64(col.docs.Len())
		size += dataSize(col)
		idx += int32(len(col.indexes) + 1)
	}
	return newReply().b.AppendString("db", c.db).AppendInt64("collections", int64(len(st.dbs[c.db]))).AppendInt64("views", 0).
		AppendInt64("objects", objs).AppendInt64("dataSize", size).AppendInt64("storageSize", size).
		AppendInt64("indexes", int64(idx)).AppendInt64("totalSize", size).AppendDouble("scaleFactor", 1).AppendDouble("ok", 1).Build(), nil
}

func collStatsDoc(db, name string, col *collection) bsoncore.Document {
	var count, size int64
	nidx := int32(1)
	if col != nil {
		count, size, nidx = int64(col.docs.Len()), dataSize(col), int32(len(col.indexes)+1)
	}
	avg := int64(0)
	if count > 0 {
		avg = size / count
	}
	b := bsoncore.NewDocumentBuilder().AppendString("ns", db+"."+name).AppendInt64("count", count).AppendInt64("size", size).
		AppendInt64("avgObjSize", avg).AppendInt64("storageSize", size).AppendInt32("nindexes", nidx).AppendInt64("totalIndexSize", 0).
		AppendInt64("totalSize", size)
	if col != nil {
		if size, max, ok := cappedLimits(col.opts); ok {
			b.AppendBoolean("capped", true).AppendInt64("max", max).AppendInt64("maxSize", size)
			return b.Build()
		}
	}
	return b.AppendBoolean("capped", false).Build()
}

func cmdCollStats(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	col := c.view().coll(c.db, name)
	if col == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "Collection [%s.%s] not found.", c.db, name)
	}
	b := bsoncore.NewDocumentBuilder()
	for _, e := range elements(collStatsDoc(c.db, name, col)) {
		b.AppendValue(e.Key(), e.Value())
	}
	return newReplyFrom(b).ok(), nil
}

func cmdValidate(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	col := c.view().coll(c.db, name)
	if col == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "Collection '%s.%s' does not exist to validate.", c.db, name)
	}
	return newReply().b.AppendString("ns", c.db+"."+name).AppendInt64("nrecords", int64(col.docs.Len())).AppendBoolean("valid", true).
		AppendArray("errors", bsoncore.BuildArray(nil)).AppendDouble("ok", 1).Build(), nil
}
