package verify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/oid"
)

// objectIDs finishes the ObjectID timestamp rows after the read, which
// checked each _id: skipped when the _ids are not ObjectIDs, else the
// server converts them too (sc, started beside the read).
func (v *dbVerifier) objectIDs(ctx context.Context, st *collState, sc *serverCheck, oidDocs int64) error {
	e, rows := st.e, st.rows
	switch {
	case !e.oids:
		for _, r := range []*Row{rows.createdAt, rows.window, rows.driver, rows.server} {
			r.Skip(e.oidsReason)
		}
	case oidDocs == 0:
		for _, r := range []*Row{rows.createdAt, rows.window, rows.driver, rows.server} {
			r.Skip("no stored document has an ObjectID _id")
		}
	default:
		if !e.createdAt {
			rows.createdAt.Skip(e.createdAtReason)
		}
		return v.serverTimestamps(ctx, st, sc, oidDocs)
	}
	return nil
}

// timestamps checks an ObjectID _id against createdAt, the window and the
// driver. It runs for every document: messages are built only on a
// mismatch.
func (v *dbVerifier) timestamps(rows *collRows, e *Expected, raw bson.Raw, id bson.ObjectID) {
	ts := oid.ID(id).Timestamp()
	secs := ts.Unix()
	if e.createdAt {
		ca, err := raw.LookupErr("createdAt")
		ms, isDate := ca.DateTimeOK()
		switch {
		case err != nil:
			rows.createdAt.Failf("_id %s: no createdAt; expected %s", show(rawOID(id)), ts.Format(time.RFC3339))
		case !isDate:
			rows.createdAt.Failf("_id %s: createdAt is %s; expected the date %s", show(rawOID(id)), showTyped(ca), ts.Format(time.RFC3339))
		case ms == secs*1000:
			rows.createdAt.Pass()
		default:
			rows.createdAt.Failf("_id %s: timestamp %s, createdAt %s", show(rawOID(id)), ts.Format(time.RFC3339), time.UnixMilli(ms).UTC().Format(time.RFC3339Nano))
		}
	}
	if secs >= e.winLo && secs <= e.winHi {
		rows.window.Pass()
	} else {
		rows.window.Failf("_id %s: timestamp %s outside %s..%s (%s)", show(rawOID(id)),
			ts.Format(time.RFC3339), time.Unix(e.winLo, 0).UTC().Format(time.RFC3339), time.Unix(e.winHi, 0).UTC().Format(time.RFC3339), e.winDesc)
	}
	if dt := id.Timestamp(); dt.Equal(ts) {
		rows.driver.Pass()
	} else {
		rows.driver.Failf("_id %s: driver Timestamp() %s, oid %s", show(rawOID(id)), dt.Format(time.RFC3339), ts.Format(time.RFC3339))
	}
}

func rawOID(id bson.ObjectID) bson.RawValue {
	return bson.RawValue{Type: bson.TypeObjectID, Value: id[:]}
}

// serverCheck is the server's conversion of the ObjectID _ids, run beside
// the read of the collection (the two are independent reads of the same
// documents). The server converts every _id with $toDate and answers with
// a summary (idSummary); only when it differs from the read's does
// serverTimestamps ask for each conversion, to name the _ids that differ.
type serverCheck struct {
	row    Row
	sum    idSummary
	err    error
	done   chan struct{}
	cancel context.CancelFunc
}

// idSummary sums up the timestamps of a collection's ObjectID _ids: how
// many, and the sum of their milliseconds since 1970. Two summaries differ
// when any conversion differs, but for errors that cancel out. A sum
// beyond 64 bits (some 5 million _ids of this century) is a double on the
// server and differs too: the conversions are then compared one by one.
type idSummary struct {
	n, ms int64
}

// add counts idv, the _id of a document, if it is an ObjectID.
func (s *idSummary) add(idv bson.RawValue) {
	if id, ok := idv.ObjectIDOK(); ok {
		s.n++
		s.ms += oid.ID(id).Timestamp().Unix() * 1000
	}
}

// startServerCheck starts the $toDate conversion of st's collection, or
// returns nil when there is nothing to convert or no $toDate.
func (v *dbVerifier) startServerCheck(ctx context.Context, st *collState) *serverCheck {
	if !st.e.oids || !v.opts.Profile.HasToDate() {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	sc := &serverCheck{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(sc.done)
		sc.sum, sc.err = v.summarizeIDs(ctx, st.e, st.coll, &sc.row)
	}()
	return sc
}

// stop ends the conversion if it still runs and waits for it.
func (sc *serverCheck) stop() {
	if sc != nil {
		sc.cancel()
		<-sc.done
	}
}

// serverTimestamps finishes the $toDate row with what the server check
// found, against the oidDocs ObjectID _ids the read checked and the
// summary of all it read (other parts' documents included, since the
// server converts the whole collection).
func (v *dbVerifier) serverTimestamps(ctx context.Context, st *collState, sc *serverCheck, oidDocs int64) error {
	e, row := st.e, st.rows.server
	if sc == nil {
		row.Skip("server has no $toDate")
		return nil
	}
	<-sc.done
	if sc.err != nil {
		return sc.err
	}
	if sc.row.skipped {
		row.Skip(sc.row.Reason)
		return nil
	}
	seen := sc.sum.n
	if sc.sum == st.ids {
		row.Cases += seen
	} else {
		var err error
		if seen, err = v.convertIDs(ctx, e, st.coll, row); err != nil || row.skipped {
			return err
		}
	}
	v.progress(e.Collection, "server", seen, oidDocs)
	// The server converts the whole collection; the read may have covered
	// one part of it (--part), so only fewer conversions than documents
	// read is a failure (documents beyond the plan are the other rows').
	if seen < oidDocs {
		row.Failf("server converted %d ObjectID _ids, the read found %d", seen, oidDocs)
	}
	return nil
}

// summarizeIDs has the server convert every ObjectID _id of coll to a date
// and answer with their idSummary.
func (v *dbVerifier) summarizeIDs(ctx context.Context, e *Expected, coll *mongo.Collection, row *Row) (idSummary, error) {
	pipeline := mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$type", Value: "objectId"}}}}}},
		{{Key: "$group", Value: bson.D{
			{Key: "_id", Value: nil},
			{Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}},
			{Key: "ms", Value: bson.D{{Key: "$sum", Value: bson.D{{Key: "$toLong", Value: bson.D{{Key: "$toDate", Value: "$_id"}}}}}}},
		}}},
	}
	cur, err := v.aggregate(ctx, coll, pipeline, row, "$toDate", "$toDate on")
	if cur == nil || err != nil {
		return idSummary{}, err
	}
	defer cur.Close(context.WithoutCancel(ctx))
	var sum idSummary
	if cur.Next(ctx) {
		// A sum that is not a 64-bit integer (a double past 64 bits) leaves
		// n at -1: no read agrees with it, so each _id is compared.
		sum = idSummary{n: -1}
		n, okN := cur.Current.Lookup("n").AsInt64OK()
		ms, okMs := cur.Current.Lookup("ms").Int64OK()
		if okN && okMs {
			sum = idSummary{n: n, ms: ms}
		}
	}
	if err := cur.Err(); err != nil {
		var ce mongo.CommandError
		if errors.As(err, &ce) {
			row.Skip("server refused $toDate: " + ce.Message)
			return idSummary{}, nil
		}
		return idSummary{}, fmt.Errorf("$toDate on %s.%s: %w", e.DB, e.Collection, err)
	}
	return sum, nil
}

// convertIDs has the server convert every ObjectID _id to a date and
// compares each with the timestamp read from the bytes, into row; it
// returns how many the server converted. It runs when the summaries
// differ, to name the _ids whose conversions do.
func (v *dbVerifier) convertIDs(ctx context.Context, e *Expected, coll *mongo.Collection, row *Row) (int64, error) {
	pipeline := mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$type", Value: "objectId"}}}}}},
		{{Key: "$project", Value: bson.D{{Key: "t", Value: bson.D{{Key: "$toDate", Value: "$_id"}}}}}},
	}
	cur, err := v.aggregate(ctx, coll, pipeline, row, "$toDate", "$toDate on")
	if cur == nil || err != nil {
		return 0, err
	}
	defer cur.Close(context.WithoutCancel(ctx))
	var seen int64
	for cur.Next(ctx) {
		seen++
		idv, err1 := cur.Current.LookupErr("_id")
		t, err2 := cur.Current.LookupErr("t")
		id, ok1 := idv.ObjectIDOK()
		ms, ok2 := t.DateTimeOK()
		if err1 != nil || err2 != nil || !ok1 || !ok2 {
			row.Failf("server returned %s; expected {_id: ObjectId, t: date}", show(bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: cur.Current}))
			continue
		}
		want := oid.ID(id).Timestamp()
		row.Check(ms == want.Unix()*1000, "_id %s: server $toDate %s, client %s", show(idv), time.UnixMilli(ms).UTC().Format(time.RFC3339Nano), want.Format(time.RFC3339))
	}
	if err := cur.Err(); err != nil {
		var ce mongo.CommandError
		if errors.As(err, &ce) && seen == 0 {
			row.Skip("server refused $toDate: " + ce.Message)
			return 0, nil
		}
		return seen, fmt.Errorf("$toDate on %s.%s: %w", e.DB, e.Collection, err)
	}
	return seen, nil
}
