package engine

import (
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// Change streams: an aggregate whose first stage is $changeStream opens a
// tailable cursor over the store's change log, on a collection, a
// database (aggregate: 1) or the whole server (aggregate: 1 on admin with
// allChangesForCluster). Each getMore waits up to its maxTimeMS (1 s when
// not given) for changes, turns each change in scope into MongoDB's
// change event document, runs the rest of the pipeline over it and
// answers with the events and a postBatchResumeToken.

// Token kinds, the last byte of a resume token.
const (
	tokEvent      = 0
	tokInvalidate = 1
	tokHighWater  = 2
)

// streamStages are the stages MongoDB allows after $changeStream.
var streamStages = map[string]bool{"$match": true, "$project": true, "$addFields": true, "$set": true, "$unset": true,
	"$replaceRoot": true, "$replaceWith": true, "$redact": true}

// excludedDBs are the databases a whole-server stream does not show.
var excludedDBs = map[string]bool{"admin": true, "config": true, "local": true}

// changeStream is one open change stream.
type changeStream struct {
	db, coll     string // "" coll: a database; "" db: the server
	fullDocument string // default, updateLookup, whenAvailable, required
	beforeChange string // off, whenAvailable, required
	expanded     bool   // showExpandedEvents
	pos          position
	stages       []stage
	store        *Store
	invalidated  bool // the invalidate event has been sent: the cursor ends
	split        bool // $changeStreamSplitLargeEvent: events over 16 MiB come in fragments
	skipTo       int  // fragments of the event at skipAt already seen (a resume from a fragment)
	skipAt       position
}

// token is a resume token for position p: {_data: hex}.
func token(p position, kind byte) bsoncore.Document { return fragmentToken(p, kind, 0) }

// fragmentToken is the token of fragment frag (from 1) of a split event;
// 0 for a whole event.
func fragmentToken(p position, kind byte, frag int) bsoncore.Document {
	var b [14]byte
	binary.BigEndian.PutUint32(b[0:], p.t)
	binary.BigEndian.PutUint32(b[4:], p.i)
	binary.BigEndian.PutUint32(b[8:], p.n)
	b[12] = kind
	b[13] = byte(frag)
	return bsoncore.NewDocumentBuilder().AppendString("_data", "82"+strings.ToUpper(hex.EncodeToString(b[:]))).Build()
}

// parseToken reads a resume token made by token: its position, kind and
// fragment.
func parseToken(v bsoncore.Value) (position, byte, int, error) {
	bad := mongoerr.New(mongoerr.Location(50811), "KeyString format error: the resume token is not one this server made: %s", shell(v))
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return position{}, 0, 0, mongoerr.New(mongoerr.TypeMismatch, "resume token must be an object, not %s", typeName(v.Type))
	}
	d, err := bsoncore.Document(v.Data).LookupErr("_data")
	if err != nil || d.Type != bsoncore.TypeString {
		return position{}, 0, 0, bad
	}
	s := d.StringValue()
	if !strings.HasPrefix(s, "82") {
		return position{}, 0, 0, bad
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil || len(b) != 14 || b[12] > tokHighWater {
		return position{}, 0, 0, bad
	}
	return position{binary.BigEndian.Uint32(b[0:]), binary.BigEndian.Uint32(b[4:]), binary.BigEndian.Uint32(b[8:])}, b[12], int(b[13]), nil
}

// before is the position just before the first change of time (t, i).
func before(t, i uint32) position {
	if i > 0 {
		return position{t, i - 1, ^uint32(0)}
	}
	if t > 0 {
		return position{t - 1, ^uint32(0), ^uint32(0)}
	}
	return position{}
}

// isChangeStream reports whether a pipeline opens a change stream.
func isChangeStream(stages []bsoncore.Value) bool {
	return len(stages) > 0 && stageName(stages[0]) == "$changeStream"
}

// stageName is the name of a pipeline stage, "" if it is not one.
func stageName(sv bsoncore.Value) string {
	if sv.Type != bsoncore.TypeEmbeddedDocument {
		return ""
	}
	if els := elements(bsoncore.Document(sv.Data)); len(els) == 1 {
		return els[0].Key()
	}
	return ""
}

// openChangeStream answers an aggregate whose first stage is $changeStream.
func openChangeStream(c *call, name string, stages []bsoncore.Value, env *pipelineEnv) (bsoncore.Document, error) {
	if c.txn != nil {
		return nil, mongoerr.New(mongoerr.OperationNotSupportedInTransaction, "Operation not permitted in transaction :: caused by :: $changeStream cannot run inside a transaction")
	}
	spec, err := needDoc("$changeStream", elements(bsoncore.Document(stages[0].Data))[0].Value())
	if err != nil {
		return nil, err
	}
	cs := &changeStream{db: c.db, coll: name, fullDocument: "default", beforeChange: "off", store: c.srv.store}
	all := false
	var resume, startAfter, atTime bsoncore.Value
	for _, e := range elements(spec) {
		v := e.Value()
		switch e.Key() {
		case "fullDocument":
			cs.fullDocument = toStr(v)
			switch cs.fullDocument {
			case "default", "updateLookup", "whenAvailable", "required":
			default:
				return nil, mongoerr.New(mongoerr.BadValue, "unknown full document mode: '%s': expected default, updateLookup, whenAvailable or required", cs.fullDocument)
			}
		case "fullDocumentBeforeChange":
			cs.beforeChange = toStr(v)
			switch cs.beforeChange {
			case "off", "whenAvailable", "required":
			default:
				return nil, mongoerr.New(mongoerr.BadValue, "unknown full document before change mode: '%s': expected off, whenAvailable or required", cs.beforeChange)
			}
		case "resumeAfter":
			resume = v
		case "startAfter":
			startAfter = v
		case "startAtOperationTime":
			if v.Type != bsoncore.TypeTimestamp {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$changeStream.startAtOperationTime' is the wrong type '%s', expected type 'timestamp'", typeName(v.Type))
			}
			atTime = v
		case "allChangesForCluster":
			all = truthy(v)
		case "showExpandedEvents":
			cs.expanded = truthy(v)
		case "allowToRunOnConfigDB", "allowToRunOnSystemNS", "showSystemEvents", "showRawUpdateDescription":
		default:
			return nil, mongoerr.New(mongoerr.Location(40415), "BSON field '$changeStream.%s' is an unknown field.", e.Key())
		}
	}
	set := 0
	for _, v := range []bsoncore.Value{resume, startAfter, atTime} {
		if v.Type != 0 {
			set++
		}
	}
	if set > 1 {
		return nil, mongoerr.New(mongoerr.Location(40674), "Only one type of resume option is allowed, but multiple were found.")
	}
	switch {
	case all && (c.db != "admin" || name != ""):
		return nil, mongoerr.New(mongoerr.Location(31123), "A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name")
	case all:
		cs.db = ""
	case c.db == "admin" || c.db == "config" || c.db == "local":
		return nil, mongoerr.New(mongoerr.InvalidNamespace, "$changeStream may not be opened on the internal %s database", c.db)
	case strings.HasPrefix(name, "system."):
		return nil, mongoerr.New(mongoerr.InvalidNamespace, "$changeStream may not be opened on the internal %s.%s collection", c.db, name)
	}
	if n := len(stages); n > 1 && stageName(stages[n-1]) == "$changeStreamSplitLargeEvent" {
		cs.split = true
		stages = stages[:n-1]
	}
	for _, sv := range stages[1:] {
		if stageName(sv) == "$changeStreamSplitLargeEvent" {
			return nil, mongoerr.New(mongoerr.Location(7182802), "$changeStreamSplitLargeEvent must be the last stage in the pipeline")
		}
		if sv.Type == bsoncore.TypeEmbeddedDocument {
			if els := elements(bsoncore.Document(sv.Data)); len(els) == 1 && !streamStages[els[0].Key()] {
				if _, known := compileStage(els[0].Key(), els[0].Value(), env); known != nil && mongoerr.Is(known, mongoerr.Location(40324)) {
					return nil, known
				}
				return nil, mongoerr.New(mongoerr.IllegalOperation, "%s is not permitted in a $changeStream pipeline", els[0].Key())
			}
		}
	}
	if cs.stages, err = compilePipeline(stages[1:], env); err != nil {
		return nil, err
	}
	cs.pos = c.srv.store.changes.last()
	switch {
	case atTime.Type != 0:
		t, i := atTime.Timestamp()
		cs.pos = before(t, i)
	case resume.Type != 0 || startAfter.Type != 0:
		tok := resume
		if tok.Type == 0 {
			tok = startAfter
		}
		p, kind, frag, err := parseToken(tok)
		if err != nil {
			return nil, err
		}
		if frag > 0 { // within a split event: that event again, from the next fragment
			cs.skipTo, cs.skipAt = frag, p
			p = p.prev()
		}
		if kind == tokInvalidate && resume.Type != 0 {
			return nil, mongoerr.New(mongoerr.InvalidResumeToken, "cannot resume stream; the resume token was from an invalidate event")
		}
		cs.pos = p
		if _, lost := c.srv.store.changes.after(p, 1); lost {
			return nil, mongoerr.New(mongoerr.ChangeStreamHistoryLost, "Resume of change stream was not possible, as the resume point may no longer be in the oplog.")
		}
	}
	ns := c.db + "." + name
	if name == "" {
		ns = c.db + ".$cmd.aggregate"
	}
	var first []bsoncore.Document
	if n := batchSizeOf(c.arg("cursor")); n != zeroBatch {
		if first, err = cs.next(c, n, 0); err != nil {
			return nil, err
		}
	}
	id := c.srv.cursors.openSource(ns, cs)
	if cs.invalidated {
		c.srv.cursors.kill(id)
		id = 0
	}
	return cursorDoc(id, ns, "firstBatch", first, cs.postBatch()), nil
}

func (cs *changeStream) ended() bool { return cs.invalidated }

// postBatch is the token of the last position the stream has seen.
func (cs *changeStream) postBatch() bsoncore.Document {
	kind := byte(tokHighWater)
	if cs.invalidated {
		kind = tokInvalidate
	}
	return token(cs.pos, kind)
}

// next is up to n event documents (n <= 0: as many as fit a reply),
// waiting up to wait for the first.
func (cs *changeStream) next(c *call, n int, wait time.Duration) ([]bsoncore.Document, error) {
	var out []bsoncore.Document
	size := 0
	deadline := time.Now().Add(wait)
	for {
		wake := cs.store.changes.waiter()
		evs, lost := cs.store.changes.after(cs.pos, 1000)
		if lost {
			return nil, mongoerr.New(mongoerr.ChangeStreamHistoryLost, "Resume of change stream was not possible, as the resume point may no longer be in the oplog.")
		}
		for _, ev := range evs {
			docs, err := cs.events(ev)
			if err != nil {
				return nil, err
			}
			cs.pos = ev.pos
			out = append(out, docs...)
			for _, d := range docs {
				size += len(d)
			}
			if cs.invalidated || (n > 0 && len(out) >= n) || size > maxDocSize {
				return out, nil
			}
		}
		if len(out) > 0 || len(evs) == 1000 {
			if len(out) > 0 {
				return out, nil
			}
			continue
		}
		if !awaitChange(c.ctx, wake, deadline) {
			return out, nil
		}
	}
}

// inScope reports whether ev is about the stream's namespace, and
// whether it ends the stream.
func (cs *changeStream) inScope(ev changeEvent) (show, invalidates bool) {
	switch {
	case cs.db == "":
		return !excludedDBs[ev.db] && !strings.HasPrefix(ev.coll, "system."), false
	case ev.db != cs.db:
		return false, false
	case cs.coll == "":
		if ev.kind == chDropDatabase {
			return true, true
		}
		return !strings.HasPrefix(ev.coll, "system."), false
	case ev.kind == chDropDatabase:
		return false, true
	case ev.coll != cs.coll:
		return ev.kind == chRename && ev.toDB == cs.db && ev.to == cs.coll, ev.kind == chRename && ev.toDB == cs.db && ev.to == cs.coll
	}
	return true, ev.kind == chDrop || ev.kind == chRename
}

// expandedOnly are the events shown only with showExpandedEvents.
var expandedOnly = map[string]bool{chCreate: true, chCreateIndex: true, chDropIndex: true, chModify: true}

// events are the documents one change gives the stream: its event, run
// through the pipeline, and an invalidate event when it ends the stream.
func (cs *changeStream) events(ev changeEvent) ([]bsoncore.Document, error) {
	show, invalidates := cs.inScope(ev)
	if !show && !invalidates || expandedOnly[ev.kind] && !cs.expanded {
		return nil, nil
	}
	var out []bsoncore.Document
	emit := func(d bsoncore.Document, id bsoncore.Document) error {
		docs, err := runPipeline(cs.stages, []bsoncore.Document{d})
		if err != nil {
			return err
		}
		for _, doc := range docs {
			got, err := doc.LookupErr("_id")
			if err != nil || got.Type != bsoncore.TypeEmbeddedDocument || !equalDocs(bsoncore.Document(got.Data), id) {
				return &mongoerr.Error{Code: mongoerr.ChangeStreamFatalError, Labels: []string{"NonResumableChangeStreamError"},
					Msg: "Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. Modifying the _id field of an event makes it impossible to resume the stream from that point. Only transformations that retain the unmodified _id field are allowed."}
			}
			if len(doc) <= maxDocSize {
				out = append(out, doc)
				continue
			}
			if !cs.split {
				return mongoerr.New(mongoerr.Location(10334), "BSONObj size: %d (0x%X) is invalid. Size must be between 0 and 16793600(16MB) First element: _id: %s", len(doc), len(doc), shell(vDoc(id)))
			}
			frags, err := splitEvent(doc, ev.pos)
			if err != nil {
				return err
			}
			if ev.pos == cs.skipAt && cs.skipTo > 0 {
				frags = frags[min(cs.skipTo, len(frags)):]
			}
			out = append(out, frags...)
		}
		return nil
	}
	if show {
		id := token(ev.pos, tokEvent)
		d, err := cs.eventDoc(ev, id)
		if err != nil {
			return nil, err
		}
		if err := emit(d, id); err != nil {
			return nil, err
		}
	}
	if invalidates {
		id := token(ev.pos, tokInvalidate)
		d := bsoncore.NewDocumentBuilder().AppendDocument("_id", id).AppendString("operationType", "invalidate").
			AppendTimestamp("clusterTime", ev.pos.t, ev.pos.i).AppendDateTime("wallTime", ev.wall.UnixMilli()).Build()
		if err := emit(d, id); err != nil {
			return nil, err
		}
		cs.invalidated = true
	}
	return out, nil
}

// equalDocs compares two documents byte for byte.
func equalDocs(a, b bsoncore.Document) bool { return string(a) == string(b) }

// eventDoc is MongoDB's change event document for ev.
func (cs *changeStream) eventDoc(ev changeEvent, id bsoncore.Document) (bsoncore.Document, error) {
	b := bsoncore.NewDocumentBuilder().AppendDocument("_id", id).AppendString("operationType", ev.kind).
		AppendTimestamp("clusterTime", ev.pos.t, ev.pos.i).AppendDateTime("wallTime", ev.wall.UnixMilli())
	if cs.expanded && ev.kind != chDropDatabase {
		b.AppendBinary("collectionUUID", 4, ev.uuid[:])
	}
	ns := bsoncore.NewDocumentBuilder().AppendString("db", ev.db)
	if ev.kind != chDropDatabase {
		ns.AppendString("coll", ev.coll)
	}
	switch ev.kind {
	case chInsert, chReplace:
		b.AppendDocument("fullDocument", ev.doc)
	case chUpdate:
		switch cs.fullDocument {
		case "updateLookup":
			if r := recordOf(cs.store.view(), ev.db, ev.coll, ev.id); r != nil {
				b.AppendDocument("fullDocument", r.doc)
			} else {
				b.AppendNull("fullDocument")
			}
		case "whenAvailable", "required":
			if ev.images {
				b.AppendDocument("fullDocument", ev.doc)
			} else if cs.fullDocument == "required" {
				return nil, noImage("post", ev)
			} else {
				b.AppendNull("fullDocument")
			}
		}
	}
	b.AppendDocument("ns", ns.Build())
	if cs.expanded && ev.kind == chCreate {
		b.AppendString("nsType", "collection")
	}
	switch ev.kind {
	case chInsert, chUpdate, chReplace, chDelete:
		b.AppendDocument("documentKey", bsoncore.NewDocumentBuilder().AppendValue("_id", ev.id).Build())
	case chRename:
		to := bsoncore.NewDocumentBuilder().AppendString("db", ev.toDB).AppendString("coll", ev.to).Build()
		b.AppendDocument("to", to)
		if cs.expanded {
			od := bsoncore.NewDocumentBuilder().AppendDocument("to", to)
			if ev.dropTarget != nil {
				od.AppendBinary("dropTarget", 4, ev.dropTarget[:])
			}
			b.AppendDocument("operationDescription", od.Build())
		}
	case chCreateIndex, chDropIndex:
		ix := bsoncore.BuildArray(nil, vDoc(ev.spec))
		b.AppendDocument("operationDescription", bsoncore.NewDocumentBuilder().AppendArray("indexes", ix).Build())
	case chCreate:
		od := ev.spec
		if od == nil {
			od = bsoncore.NewDocumentBuilder().Build()
		}
		b.AppendDocument("operationDescription", od)
	case chModify:
		b.AppendDocument("operationDescription", ev.spec)
	}
	if ev.kind == chUpdate {
		b.AppendDocument("updateDescription", describeUpdate(ev.prev, ev.doc, cs.expanded))
	}
	if ev.kind == chUpdate || ev.kind == chReplace || ev.kind == chDelete {
		switch cs.beforeChange {
		case "whenAvailable", "required":
			if ev.images && ev.prev != nil {
				b.AppendDocument("fullDocumentBeforeChange", ev.prev)
			} else if cs.beforeChange == "required" {
				return nil, noImage("pre", ev)
			} else {
				b.AppendNull("fullDocumentBeforeChange")
			}
		}
	}
	if ev.lsid != nil {
		b.AppendDocument("lsid", ev.lsid).AppendInt64("txnNumber", ev.txnNumber)
	}
	return b.Build(), nil
}

// noImage is the error of a stream that requires a pre- or post-image its
// collection does not keep.
func noImage(which string, ev changeEvent) error {
	return mongoerr.New(mongoerr.NoMatchingDocument, "Change stream was configured to require a %s-image for all update, delete and replace events, but the %s-image was not found for the %s event on %s.%s: the collection does not have changeStreamPreAndPostImages enabled", which, which, ev.kind, ev.db, ev.coll)
}

// pathPart is one step of a path: a field name or an array index.
type pathPart struct {
	name  string
	index int
	isIdx bool
}

func dotted(p []pathPart) string {
	s := make([]string, len(p))
	for k, x := range p {
		if x.isIdx {
			s[k] = strconv.Itoa(x.index)
		} else {
			s[k] = x.name
		}
	}
	return strings.Join(s, ".")
}

// ambiguous reports whether a dotted path could be read two ways: it
// goes through an array index or a field whose name is a number.
func ambiguous(p []pathPart) bool {
	for _, x := range p {
		if x.isIdx || x.name != "" && strings.Trim(x.name, "0123456789") == "" {
			return true
		}
	}
	return false
}

// updateDiff collects an update event's description.
type updateDiff struct {
	updated   *bsoncore.DocumentBuilder
	removed   []bsoncore.Value
	truncated []bsoncore.Value
	paths     [][]pathPart // ambiguous paths, for disambiguatedPaths
}

// describeUpdate is an update event's updateDescription: the fields set,
// the fields removed and the arrays truncated from old to new, and with
// expanded events the ambiguous paths spelled out.
func describeUpdate(old, new bsoncore.Document, expanded bool) bsoncore.Document {
	u := &updateDiff{updated: bsoncore.NewDocumentBuilder()}
	u.docs(nil, old, new)
	b := bsoncore.NewDocumentBuilder().AppendDocument("updatedFields", u.updated.Build()).
		AppendArray("removedFields", bsoncore.BuildArray(nil, u.removed...)).
		AppendArray("truncatedArrays", bsoncore.BuildArray(nil, u.truncated...))
	if expanded {
		dp := bsoncore.NewDocumentBuilder()
		for _, p := range u.paths {
			parts := make([]bsoncore.Value, len(p))
			for k, x := range p {
				if x.isIdx {
					parts[k] = bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, int32(x.index))}
				} else {
					parts[k] = vString(x.name)
				}
			}
			dp.AppendArray(dotted(p), bsoncore.BuildArray(nil, parts...))
		}
		b.AppendDocument("disambiguatedPaths", dp.Build())
	}
	return b.Build()
}

func child(p []pathPart, x pathPart) []pathPart {
	return append(p[:len(p):len(p)], x)
}

func (u *updateDiff) set(p []pathPart, v bsoncore.Value) {
	u.updated.AppendValue(dotted(p), v)
	if ambiguous(p) {
		u.paths = append(u.paths, p)
	}
}

func (u *updateDiff) docs(p []pathPart, old, new bsoncore.Document) {
	for _, e := range elements(new) {
		q := child(p, pathPart{name: e.Key()})
		ov, err := old.LookupErr(e.Key())
		if err != nil {
			u.set(q, e.Value())
			continue
		}
		u.values(q, ov, e.Value())
	}
	for _, e := range elements(old) {
		if _, err := new.LookupErr(e.Key()); err != nil {
			q := child(p, pathPart{name: e.Key()})
			u.removed = append(u.removed, vString(dotted(q)))
			if ambiguous(q) {
				u.paths = append(u.paths, q)
			}
		}
	}
}

func (u *updateDiff) values(p []pathPart, ov, nv bsoncore.Value) {
	switch {
	case ov.Type == nv.Type && string(ov.Data) == string(nv.Data):
	case ov.Type == bsoncore.TypeEmbeddedDocument && nv.Type == bsoncore.TypeEmbeddedDocument:
		u.docs(p, bsoncore.Document(ov.Data), bsoncore.Document(nv.Data))
	case ov.Type == bsoncore.TypeArray && nv.Type == bsoncore.TypeArray:
		oa, na := arrayValues(ov), arrayValues(nv)
		if len(na) < len(oa) {
			u.truncated = append(u.truncated, vDoc(bsoncore.NewDocumentBuilder().AppendString("field", dotted(p)).AppendInt32("newSize", int32(len(na))).Build()))
		}
		for k, v := range na {
			q := child(p, pathPart{index: k, isIdx: true})
			if k < len(oa) {
				u.values(q, oa[k], v)
			} else {
				u.set(q, v)
			}
		}
	default:
		u.set(p, nv)
	}
}

// splitEvent cuts an event over 16 MiB into fragments, as
// $changeStreamSplitLargeEvent does: the top-level fields in order, as
// many as fit in each, each fragment with its own resume token and
// splitEvent {fragment, of}.
func splitEvent(doc bsoncore.Document, p position) ([]bsoncore.Document, error) {
	const room = maxDocSize - 200 // _id and splitEvent
	var groups [][]bsoncore.Element
	size := 0
	for _, e := range elements(doc) {
		if e.Key() == "_id" {
			continue
		}
		if len(e) > room {
			return nil, mongoerr.New(mongoerr.Location(7182803), "Cannot split an event: its field '%s' alone is over 16 MiB", e.Key())
		}
		if len(groups) == 0 || size+len(e) > room {
			groups = append(groups, nil)
			size = 0
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], e)
		size += len(e)
	}
	out := make([]bsoncore.Document, len(groups))
	for k, g := range groups {
		b := bsoncore.NewDocumentBuilder().AppendDocument("_id", fragmentToken(p, tokEvent, k+1)).
			AppendDocument("splitEvent", bsoncore.NewDocumentBuilder().AppendInt32("fragment", int32(k+1)).AppendInt32("of", int32(len(groups))).Build())
		for _, e := range g {
			b.AppendValue(e.Key(), e.Value())
		}
		out[k] = b.Build()
	}
	return out, nil
}
