package engine

import (
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

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
		docs, err := cs.stages.Run([]bsoncore.Document{d})
		if err != nil {
			return err
		}
		for _, doc := range docs {
			got, err := doc.LookupErr("_id")
			if err != nil || got.Type != bsoncore.TypeEmbeddedDocument || !equalDocs(bsoncore.Document(got.Data), id) {
				return &mongoerr.Error{Code: mongoerr.ChangeStreamFatalError, Labels: []string{"NonResumableChangeStreamError"},
					Msg: "Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. Modifying the _id field of an event makes it impossible to resume the stream from that point. Only transformations that retain the unmodified _id field are allowed."}
			}
			if len(doc) <= bsonval.MaxDocSize {
				out = append(out, doc)
				continue
			}
			if !cs.split {
				return mongoerr.New(mongoerr.Location(10334), "BSONObj size: %d (0x%X) is invalid. Size must be between 0 and 16793600(16MB) First element: _id: %s", len(doc), len(doc), bsonval.Shell(bsonval.Doc(id)))
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
		ix := bsoncore.BuildArray(nil, bsonval.Doc(ev.spec))
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
					parts[k] = bsonval.String(x.name)
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
	for _, e := range bsonval.Elements(new) {
		q := child(p, pathPart{name: e.Key()})
		ov, err := old.LookupErr(e.Key())
		if err != nil {
			u.set(q, e.Value())
			continue
		}
		u.values(q, ov, e.Value())
	}
	for _, e := range bsonval.Elements(old) {
		if _, err := new.LookupErr(e.Key()); err != nil {
			q := child(p, pathPart{name: e.Key()})
			u.removed = append(u.removed, bsonval.String(dotted(q)))
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
		oa, na := bsonval.ArrayValues(ov), bsonval.ArrayValues(nv)
		if len(na) < len(oa) {
			u.truncated = append(u.truncated, bsonval.Doc(bsoncore.NewDocumentBuilder().AppendString("field", dotted(p)).AppendInt32("newSize", int32(len(na))).Build()))
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
	const room = bsonval.MaxDocSize - 200 // _id and splitEvent
	var groups [][]bsoncore.Element
	size := 0
	for _, e := range bsonval.Elements(doc) {
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
