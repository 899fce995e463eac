package engine

import (
	"encoding/binary"
	"encoding/hex"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
	"github.com/oidkit/oidkit/embedded/pipeline"
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
	stages       pipeline.Pipeline
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
	bad := mongoerr.New(mongoerr.Location(50811), "KeyString format error: the resume token is not one this server made: %s", bsonval.Shell(v))
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return position{}, 0, 0, mongoerr.New(mongoerr.TypeMismatch, "resume token must be an object, not %s", bsonval.TypeName(v.Type))
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
	return len(stages) > 0 && pipeline.StageName(stages[0]) == "$changeStream"
}

// openChangeStream answers an aggregate whose first stage is $changeStream.
func openChangeStream(c *call, name string, stages []bsoncore.Value, env *pipeline.Env) (bsoncore.Document, error) {
	if c.txn != nil {
		return nil, mongoerr.New(mongoerr.OperationNotSupportedInTransaction, "Operation not permitted in transaction :: caused by :: $changeStream cannot run inside a transaction")
	}
	spec, err := needDoc("$changeStream", bsonval.Elements(bsoncore.Document(stages[0].Data))[0].Value())
	if err != nil {
		return nil, err
	}
	cs := &changeStream{db: c.db, coll: name, fullDocument: "default", beforeChange: "off", store: c.srv.store}
	st, err := cs.readSpec(spec)
	if err != nil {
		return nil, err
	}
	if err := cs.checkScope(c, name, st.all); err != nil {
		return nil, err
	}
	if err := cs.compileStages(stages, env); err != nil {
		return nil, err
	}
	if err := cs.start(c, st); err != nil {
		return nil, err
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

// streamStart is where a change stream starts, as its $changeStream
// stage asks: resumeAfter, startAfter or startAtOperationTime (at most
// one), and whether it shows the whole server (allChangesForCluster).
type streamStart struct {
	resume, startAfter, atTime bsoncore.Value
	all                        bool
}

// readSpec reads the options of the $changeStream stage, spec, into cs,
// and where the stream starts.
func (cs *changeStream) readSpec(spec bsoncore.Document) (streamStart, error) {
	var st streamStart
	for _, e := range bsonval.Elements(spec) {
		v := e.Value()
		switch e.Key() {
		case "fullDocument":
			cs.fullDocument = bsonval.Text(v)
			switch cs.fullDocument {
			case "default", "updateLookup", "whenAvailable", "required":
			default:
				return st, mongoerr.New(mongoerr.BadValue, "unknown full document mode: '%s': expected default, updateLookup, whenAvailable or required", cs.fullDocument)
			}
		case "fullDocumentBeforeChange":
			cs.beforeChange = bsonval.Text(v)
			switch cs.beforeChange {
			case "off", "whenAvailable", "required":
			default:
				return st, mongoerr.New(mongoerr.BadValue, "unknown full document before change mode: '%s': expected off, whenAvailable or required", cs.beforeChange)
			}
		case "resumeAfter":
			st.resume = v
		case "startAfter":
			st.startAfter = v
		case "startAtOperationTime":
			if v.Type != bsoncore.TypeTimestamp {
				return st, mongoerr.New(mongoerr.TypeMismatch, "BSON field '$changeStream.startAtOperationTime' is the wrong type '%s', expected type 'timestamp'", bsonval.TypeName(v.Type))
			}
			st.atTime = v
		case "allChangesForCluster":
			st.all = bsonval.Truthy(v)
		case "showExpandedEvents":
			cs.expanded = bsonval.Truthy(v)
		case "allowToRunOnConfigDB", "allowToRunOnSystemNS", "showSystemEvents", "showRawUpdateDescription":
		default:
			return st, mongoerr.New(mongoerr.Location(40415), "BSON field '$changeStream.%s' is an unknown field.", e.Key())
		}
	}
	set := 0
	for _, v := range []bsoncore.Value{st.resume, st.startAfter, st.atTime} {
		if v.Type != 0 {
			set++
		}
	}
	if set > 1 {
		return st, mongoerr.New(mongoerr.Location(40674), "Only one type of resume option is allowed, but multiple were found.")
	}
	return st, nil
}

// checkScope sets the scope of cs (the whole server with all) and refuses
// a stream on the internal databases and collections.
func (cs *changeStream) checkScope(c *call, name string, all bool) error {
	switch {
	case all && (c.db != "admin" || name != ""):
		return mongoerr.New(mongoerr.Location(31123), "A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name")
	case all:
		cs.db = ""
	case c.db == "admin" || c.db == "config" || c.db == "local":
		return mongoerr.New(mongoerr.InvalidNamespace, "$changeStream may not be opened on the internal %s database", c.db)
	case strings.HasPrefix(name, "system."):
		return mongoerr.New(mongoerr.InvalidNamespace, "$changeStream may not be opened on the internal %s.%s collection", c.db, name)
	}
	return nil
}

// compileStages compiles the stages after $changeStream: only those a
// change stream allows, and $changeStreamSplitLargeEvent last.
func (cs *changeStream) compileStages(stages []bsoncore.Value, env *pipeline.Env) error {
	if n := len(stages); n > 1 && pipeline.StageName(stages[n-1]) == "$changeStreamSplitLargeEvent" {
		cs.split = true
		stages = stages[:n-1]
	}
	for _, sv := range stages[1:] {
		if pipeline.StageName(sv) == "$changeStreamSplitLargeEvent" {
			return mongoerr.New(mongoerr.Location(7182802), "$changeStreamSplitLargeEvent must be the last stage in the pipeline")
		}
		if sv.Type == bsoncore.TypeEmbeddedDocument {
			if els := bsonval.Elements(bsoncore.Document(sv.Data)); len(els) == 1 && !streamStages[els[0].Key()] {
				if _, known := pipeline.CompileStage(els[0].Key(), els[0].Value(), env); known != nil && mongoerr.Is(known, mongoerr.Location(40324)) {
					return known
				}
				return mongoerr.New(mongoerr.IllegalOperation, "%s is not permitted in a $changeStream pipeline", els[0].Key())
			}
		}
	}
	var err error
	cs.stages, err = pipeline.Compile(stages[1:], env)
	return err
}

// start sets the position cs reads changes after: now, just before
// startAtOperationTime, or a resume token's (within a split event, that
// event again from the fragment after the token's).
func (cs *changeStream) start(c *call, st streamStart) error {
	cs.pos = c.srv.store.changes.last()
	switch {
	case st.atTime.Type != 0:
		t, i := st.atTime.Timestamp()
		cs.pos = before(t, i)
	case st.resume.Type != 0 || st.startAfter.Type != 0:
		tok := st.resume
		if tok.Type == 0 {
			tok = st.startAfter
		}
		p, kind, frag, err := parseToken(tok)
		if err != nil {
			return err
		}
		if frag > 0 { // within a split event: that event again, from the next fragment
			cs.skipTo, cs.skipAt = frag, p
			p = p.prev()
		}
		if kind == tokInvalidate && st.resume.Type != 0 {
			return mongoerr.New(mongoerr.InvalidResumeToken, "cannot resume stream; the resume token was from an invalidate event")
		}
		cs.pos = p
		if _, lost := c.srv.store.changes.after(p, 1); lost {
			return mongoerr.New(mongoerr.ChangeStreamHistoryLost, "Resume of change stream was not possible, as the resume point may no longer be in the oplog.")
		}
	}
	return nil
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
			if cs.invalidated || (n > 0 && len(out) >= n) || size > bsonval.MaxDocSize {
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
