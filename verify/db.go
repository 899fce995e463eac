package verify

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/oid"
)

// DBOptions tune VerifyDB.
type DBOptions struct {
	// FerretDB says the server is FerretDB. It has no $toDate, so the
	// server-side timestamp row is skipped with that reason, and it sorts in
	// memory, so the collection is read in natural order and the _id order
	// is checked on a sorted read of the _ids alone, up to OrderLimit
	// documents.
	FerretDB bool
	// OrderLimit caps the sorted _id read on FerretDB; 0 means
	// DefaultOrderLimit. Above it the order row is skipped with the reason.
	OrderLimit int64
	// Batch is the cursor batch size; 0 means 1000.
	Batch int32
	// Progress, if set, is called from time to time (never concurrently).
	Progress func(DBProgress)
}

// DefaultOrderLimit is the largest collection whose _ids are read sorted on
// FerretDB, which sorts in memory (about 1 KB per _id, measured).
const DefaultOrderLimit = 100_000

// DBProgress is a snapshot of a running VerifyDB.
type DBProgress struct {
	Collection string
	Phase      string // "index", "read", "order", "server", "references", "details"
	Done       int64
	Total      int64 // 0 when unknown
	Elapsed    time.Duration
}

// ExpectedSet is the expected content of the collections of a plan: the
// ones to verify, and the ones only referred to.
type ExpectedSet struct {
	Verify []*Expected
	// Referenced are collections the verified ones refer to but that are
	// not verified themselves (a plan's RefOnly collections): references
	// into them are checked against what the database holds.
	Referenced []*Expected
}

// VerifyDB reads each collection of set.Verify and compares it with what it
// should hold, one group of report rows per collection (named
// "collection: check"). It returns an error only when the check could not
// run (the server failed, a fixture file is bad: *fixtures.LineError, or it cannot be read); a mismatch
// is a failed row.
func VerifyDB(ctx context.Context, client *mongo.Client, set ExpectedSet, opts DBOptions) (*Report, error) {
	if opts.Batch <= 0 {
		opts.Batch = 1000
	}
	if opts.OrderLimit <= 0 {
		opts.OrderLimit = DefaultOrderLimit
	}
	title := "verify db"
	for k, e := range set.Verify {
		sep := ", "
		if k == 0 {
			sep = " "
		}
		title += sep + e.DB + "." + e.Collection
	}
	rep := NewReport(title)
	v := &dbVerifier{client: client, opts: opts, rep: rep, start: time.Now(), states: map[string]*collState{}}
	for _, e := range set.Referenced {
		v.states[e.DB+"."+e.Collection] = &collState{e: e, refOnly: true}
	}
	for _, e := range set.Verify {
		v.states[e.DB+"."+e.Collection] = &collState{e: e}
	}
	// Collections referred to are read first, so that references are
	// checked while the referring collection is read.
	order := referenceOrder(set.Verify)
	for _, e := range order {
		if err := v.collection(ctx, v.states[e.DB+"."+e.Collection]); err != nil {
			return rep, err
		}
	}
	// References not checked while reading (into a collection read later,
	// or only referred to) are checked now that every collection is read.
	for _, e := range order {
		st := v.states[e.DB+"."+e.Collection]
		if err := v.finishReferences(ctx, st); err != nil {
			return rep, err
		}
		st.finish()
	}
	if opts.FerretDB {
		rep.Note("server is FerretDB: it sorts in memory, so collections are read in natural order and the _id order is checked on a separate sorted read of the _ids alone, for collections of at most %d documents", opts.OrderLimit)
	}
	return rep, nil
}

// referenceOrder puts the collections a collection refers to before it,
// where the references allow (a cycle keeps the given order).
func referenceOrder(es []*Expected) []*Expected {
	byName := map[string]*Expected{}
	for _, e := range es {
		byName[e.Collection] = e
	}
	var out []*Expected
	state := map[*Expected]int{} // 1 visiting, 2 done
	var visit func(e *Expected)
	visit = func(e *Expected) {
		if state[e] != 0 {
			return
		}
		state[e] = 1
		for _, r := range e.refs {
			if t := byName[r.To]; t != nil && t != e {
				visit(t)
			}
		}
		state[e] = 2
		out = append(out, e)
	}
	for _, e := range es {
		visit(e)
	}
	return out
}

type dbVerifier struct {
	client *mongo.Client
	opts   DBOptions
	rep    *Report
	start  time.Time
	states map[string]*collState
}

func (v *dbVerifier) progress(coll, phase string, done, total int64) {
	if v.opts.Progress != nil {
		v.opts.Progress(DBProgress{Collection: coll, Phase: phase, Done: done, Total: total, Elapsed: time.Since(v.start)})
	}
}

// collState is what is known of one collection once read: which expected
// documents are there and which other _ids, so that references into it can
// be resolved.
type collState struct {
	e          *Expected
	rows       *collRows
	coll       *mongo.Collection
	refOnly    bool
	done       bool // read completely
	seen       []uint64
	unexpected map[idKey]struct{}
	stored     int64
}

func (s *collState) has(v bson.RawValue) bool {
	if !s.done {
		return false
	}
	if i, ok := s.e.src.lookup(v); ok && s.seen[i>>6]&(1<<(i&63)) != 0 {
		return true
	}
	_, ok := s.unexpected[keyOf(v)]
	return ok
}

// mark records that expected document i is stored; it reports whether it
// was already.
func (s *collState) mark(i int64) bool {
	w, b := i>>6, uint64(1)<<(i&63)
	was := s.seen[w]&b != 0
	s.seen[w] |= b
	return was
}

// rows of one collection, in report order.
type collRows struct {
	count, missing, unexpected, dups, equal, idType *Row
	createdAt, window, driver, order, server        *Row
	refs                                            []*Row
}

func (v *dbVerifier) rows(e *Expected) *collRows {
	p := e.Collection + ": "
	r := &collRows{
		count:      v.rep.Row(p + "count"),
		missing:    v.rep.Row(p + "missing _ids"),
		unexpected: v.rep.Row(p + "unexpected _ids"),
		dups:       v.rep.Row(p + "duplicated documents"),
		equal:      v.rep.Row(p + "documents equal (BSON bytes)"),
		idType:     v.rep.Row(p + "_id type"),
		createdAt:  v.rep.Row(p + "ObjectID timestamp = createdAt"),
		window:     v.rep.Row(p + "ObjectID timestamp in window"),
		driver:     v.rep.Row(p + "driver Timestamp() agrees"),
		order:      v.rep.Row(p + "sorted by _id = generation order"),
		server:     v.rep.Row(p + "timestamp on server ($toDate)"),
	}
	for _, ref := range e.refs {
		r.refs = append(r.refs, v.rep.Row(p+"references "+ref.Field+" -> "+ref.To))
	}
	return r
}

// item is one stored document on its way through the workers.
type item struct {
	seq    int64 // position in the read
	i      int64 // expected index, or -1 when the _id is not expected
	id     bson.RawValue
	stored bson.Raw
	// filled by a worker
	equal    bool
	expected bson.Raw
	content  digest
}

type batch struct {
	items []item
	done  chan struct{}
}

// candidate is a stored document that may be a copy of another expected
// document: its _id is unexpected, or its content differs from the
// expected document with its _id.
type candidate struct {
	seq  int64
	self int64 // the expected index of its _id, or -1
	id   bson.RawValue
}

const maxCandidates = 100_000

// pendingDiff is a mismatch whose expected document is not at hand yet.
type pendingDiff struct {
	i      int64
	id     bson.RawValue
	stored bson.Raw
}

func (v *dbVerifier) collection(ctx context.Context, st *collState) error {
	e := st.e
	name := e.Collection
	rows := v.rows(e)
	st.rows = rows
	if err := e.src.setup(ctx, func(done int64) { v.progress(name, "index", done, e.Len()) }); err != nil {
		return err
	}
	n := e.Len()
	st.seen = make([]uint64, (n+63)/64)
	st.unexpected = map[idKey]struct{}{}

	coll := v.client.Database(e.DB).Collection(name)
	st.coll = coll
	fo := options.Find().SetBatchSize(v.opts.Batch)
	sorted := !v.opts.FerretDB
	if sorted {
		fo.SetSort(bson.D{{Key: "_id", Value: 1}})
	}
	cur, err := coll.Find(ctx, bson.D{}, fo)
	if err != nil {
		return fmt.Errorf("read %s.%s: %w", e.DB, name, err)
	}
	defer cur.Close(context.WithoutCancel(ctx))

	// Workers compare documents; batches come back in read order.
	workers := max(1, runtime.GOMAXPROCS(0))
	work := make(chan *batch, workers*2)
	ordered := make(chan *batch, workers*4)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := e.src.newMatcher()
			for b := range work {
				for k := range b.items {
					it := &b.items[k]
					if it.i >= 0 {
						it.equal, it.expected = m.match(it.i, it.stored)
					}
					if it.i < 0 || !it.equal {
						it.content = digestOf(content(it.stored))
					}
				}
				close(b.done)
			}
		}()
	}

	var (
		candidates    = map[digest][]candidate{}
		nCandidates   int
		overflow      int64
		pending       []pendingDiff
		collectorDone = make(chan struct{})
	)
	go func() {
		defer close(collectorDone)
		for b := range ordered {
			<-b.done
			for k := range b.items {
				it := &b.items[k]
				if it.i >= 0 {
					if it.equal {
						rows.equal.Pass()
					} else if it.expected != nil {
						diffs, total := diffDocs(it.stored, it.expected)
						rows.equal.Failf("%s (_id %s): %s", e.src.label(it.i), show(it.id), diffText(diffs, total))
					} else if len(pending) < MaxExamples {
						pending = append(pending, pendingDiff{i: it.i, id: it.id, stored: it.stored})
						rows.equal.Cases++
						rows.equal.Mismatches++
					} else {
						rows.equal.Failf("%s (_id %s): differs", e.src.label(it.i), show(it.id))
					}
				}
				if it.i < 0 || !it.equal {
					if nCandidates < maxCandidates {
						candidates[it.content] = append(candidates[it.content], candidate{seq: it.seq, self: it.i, id: it.id})
						nCandidates++
					} else {
						overflow++
					}
				}
			}
		}
	}()

	var (
		seq      int64
		prevI    = int64(-1)
		prevID   bson.RawValue
		oidDocs  int64
		cur0     = &batch{done: make(chan struct{})}
		readErr  error
		lastProg time.Time
	)
	send := func() {
		if len(cur0.items) == 0 {
			return
		}
		work <- cur0
		ordered <- cur0
		cur0 = &batch{done: make(chan struct{})}
	}
	for cur.Next(ctx) {
		raw := bson.Raw(append([]byte(nil), cur.Current...))
		st.stored++
		idv, err := raw.LookupErr("_id")
		it := item{seq: seq, i: -1, stored: raw}
		seq++
		if err != nil {
			rows.unexpected.Failf("a document without _id: %s", show(bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: raw}))
			rows.idType.Failf("a document without _id")
			continue
		}
		it.id = bson.RawValue{Type: idv.Type, Value: idv.Value}
		rows.idType.Check(e.typeOK(idv), "_id %s: expected %s", showTyped(idv), e.typeDesc)
		if i, ok := e.src.lookup(idv); ok {
			if st.mark(i) {
				rows.unexpected.Failf("_id %s: %s stored twice (the same _id under another numeric type)", showTyped(idv), e.src.label(i))
			} else {
				rows.unexpected.Pass()
				it.i = i
			}
			if sorted && e.ordered {
				rows.order.Check(prevI < 0 || i > prevI, "_id %s (%s) read after _id %s (%s)", show(idv), e.src.label(i), show(prevID), e.src.label(prevI))
				prevI, prevID = i, it.id
			}
		} else {
			rows.unexpected.Failf("_id %s: not among the expected _ids", showTyped(idv))
			st.unexpected[keyOf(idv)] = struct{}{}
		}
		if id, ok := idv.ObjectIDOK(); ok && e.oids {
			oidDocs++
			v.timestamps(rows, e, raw, id)
		}
		v.references(rows, e, raw, it.i)
		cur0.items = append(cur0.items, it)
		if len(cur0.items) == 256 {
			send()
		}
		if v.opts.Progress != nil && time.Since(lastProg) > 100*time.Millisecond {
			lastProg = time.Now()
			v.progress(name, "read", st.stored, n)
		}
	}
	send()
	readErr = cur.Err()
	close(work)
	close(ordered)
	wg.Wait()
	<-collectorDone
	if readErr != nil {
		return fmt.Errorf("read %s.%s: %w", e.DB, name, readErr)
	}
	v.progress(name, "read", st.stored, n)
	st.done = true

	rows.count.Check(st.stored == n, "%s.%s holds %d documents, expected %d", e.DB, name, st.stored, n)

	// Missing documents; their _ids are described now when the source
	// has them at hand, else by the details pass.
	var missingLater []int64
	var found int64
	for i := int64(0); i < n; i++ {
		if st.seen[i>>6]&(1<<(i&63)) != 0 {
			found++
			continue
		}
		if len(rows.missing.Examples) >= MaxExamples || len(missingLater) >= MaxExamples {
			rows.missing.Cases++
			rows.missing.Mismatches++
			continue
		}
		if id, ok := e.src.id(i); ok {
			rows.missing.Failf("%s (_id %s): not in the collection", e.src.label(i), show(id))
		} else {
			missingLater = append(missingLater, i)
		}
	}
	rows.missing.Cases += found

	if err := v.details(ctx, e, rows, candidates, overflow, pending, missingLater, st.stored); err != nil {
		return err
	}

	// The _id order.
	switch {
	case !e.ordered:
		rows.order.Skip(e.orderReason)
	case n == 0:
		rows.order.Skip("no expected documents")
	case !sorted:
		if err := v.sortedOrder(ctx, e, coll, rows.order); err != nil {
			return err
		}
	}

	// ObjectID timestamps.
	switch {
	case !e.oids:
		rows.createdAt.Skip(e.oidsReason)
		rows.window.Skip(e.oidsReason)
		rows.driver.Skip(e.oidsReason)
		rows.server.Skip(e.oidsReason)
	case oidDocs == 0:
		for _, r := range []*Row{rows.createdAt, rows.window, rows.driver, rows.server} {
			r.Skip("no stored document has an ObjectID _id")
		}
	default:
		if !e.createdAt {
			rows.createdAt.Skip(e.createdAtReason)
		}
		if err := v.serverTimestamps(ctx, e, coll, rows.server, oidDocs); err != nil {
			return err
		}
	}
	return nil
}

// finish skips the rows that had nothing to check, saying why, so that
// they do not read as failures of a check that never ran.
func (st *collState) finish() {
	r := st.rows
	if st.stored == 0 {
		for _, row := range append([]*Row{r.unexpected, r.dups, r.equal, r.idType, r.createdAt, r.window, r.driver, r.order}, r.refs...) {
			if row.Cases == 0 && !row.skipped {
				row.Skip("the collection is empty")
			}
		}
	}
	if st.e.Len() == 0 {
		for _, row := range []*Row{r.missing, r.order} {
			if row.Cases == 0 && !row.skipped {
				row.Skip("no document is expected")
			}
		}
	}
	if r.equal.Cases == 0 && !r.equal.skipped {
		r.equal.Skip("no stored document has an expected _id")
	}
	if r.order.Cases == 0 && !r.order.skipped {
		r.order.Skip("no stored document has an expected _id")
	}
	for _, row := range r.refs {
		if row.Cases == 0 && !row.skipped {
			row.Skip("no stored document has the field")
		}
	}
}

func diffText(diffs []string, total int) string {
	s := ""
	for k, d := range diffs {
		if k > 0 {
			s += "; "
		}
		s += d
	}
	if total > len(diffs) {
		s += fmt.Sprintf("; and %d more", total-len(diffs))
	}
	return s
}

// timestamps checks an ObjectID _id against createdAt, the window and the
// driver.
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
		default:
			rows.createdAt.Check(ms == secs*1000, "_id %s: timestamp %s, createdAt %s", show(rawOID(id)), ts.Format(time.RFC3339), time.UnixMilli(ms).UTC().Format(time.RFC3339Nano))
		}
	}
	rows.window.Check(secs >= e.winLo && secs <= e.winHi, "_id %s: timestamp %s outside %s..%s (%s)", show(rawOID(id)),
		ts.Format(time.RFC3339), time.Unix(e.winLo, 0).UTC().Format(time.RFC3339), time.Unix(e.winHi, 0).UTC().Format(time.RFC3339), e.winDesc)
	dt := id.Timestamp()
	rows.driver.Check(dt.Equal(ts), "_id %s: driver Timestamp() %s, oid %s", show(rawOID(id)), dt.Format(time.RFC3339), ts.Format(time.RFC3339))
}

func rawOID(id bson.ObjectID) bson.RawValue {
	return bson.RawValue{Type: bson.TypeObjectID, Value: id[:]}
}

// references checks the reference fields of one stored document against
// the collections they point to, when those have been read completely.
func (v *dbVerifier) references(rows *collRows, e *Expected, raw bson.Raw, i int64) {
	for k, ref := range e.refs {
		t := v.states[e.DB+"."+ref.To]
		if t == nil || !t.done {
			continue // checked by a later pass (finishReferences)
		}
		checkRef(rows.refs[k], e, ref, t, raw, i)
	}
}

func checkRef(row *Row, e *Expected, ref refSpec, t *collState, raw bson.Raw, i int64) {
	where := func() string {
		idv, _ := raw.LookupErr("_id")
		if i >= 0 {
			return fmt.Sprintf("%s (_id %s)", e.src.label(i), show(idv))
		}
		return "_id " + show(idv)
	}
	val, err := raw.LookupErr(ref.Field)
	if err != nil {
		row.Failf("%s: no field %s", where(), ref.Field)
		return
	}
	if arr, ok := val.ArrayOK(); ok {
		vals, err := arr.Values()
		if err != nil {
			row.Failf("%s: %s is malformed", where(), ref.Field)
			return
		}
		for k, x := range vals {
			row.Check(t.has(x), "%s: %s.%d %s is not an _id of %s.%s", where(), ref.Field, k, show(x), t.e.DB, t.e.Collection)
		}
		return
	}
	row.Check(t.has(val), "%s: %s %s is not an _id of %s.%s", where(), ref.Field, show(val), t.e.DB, t.e.Collection)
}

// details finishes the rows that need a look at expected documents beyond
// the one with the same _id: duplicates, and mismatches or missing
// documents whose expected content was not at hand. It makes one pass over
// the expected documents, only when needed.
func (v *dbVerifier) details(ctx context.Context, e *Expected, rows *collRows, candidates map[digest][]candidate, overflow int64, pending []pendingDiff, missing []int64, stored int64) error {
	type dup struct {
		c    candidate
		of   int64
		ofID bson.RawValue
	}
	var (
		dups  []dup
		found = map[int64]bool{} // candidates seen as copies, by seq
		exp   = map[int64]bson.Raw{}
		ids   = map[int64]bson.RawValue{}
	)
	wantDoc := map[int64]bool{}
	for _, p := range pending {
		wantDoc[p.i] = true
	}
	wantID := map[int64]bool{}
	for _, i := range missing {
		wantID[i] = true
	}
	if len(candidates) > 0 || len(wantDoc) > 0 || len(wantID) > 0 {
		var done int64
		err := e.src.scan(ctx, func(i int64, doc bson.Raw) {
			var d digest
			if len(candidates) > 0 {
				d = digestOf(content(doc))
			}
			for _, c := range candidates[d] {
				if c.self != i && !found[c.seq] {
					found[c.seq] = true
					idv, _ := doc.LookupErr("_id")
					dups = append(dups, dup{c: c, of: i, ofID: bson.RawValue{Type: idv.Type, Value: append([]byte(nil), idv.Value...)}})
				}
			}
			if wantDoc[i] {
				exp[i] = append(bson.Raw(nil), doc...)
			}
			if wantID[i] {
				idv, _ := doc.LookupErr("_id")
				ids[i] = bson.RawValue{Type: idv.Type, Value: append([]byte(nil), idv.Value...)}
			}
			done++
			if done%8192 == 0 {
				v.progress(e.Collection, "details", done, e.Len())
			}
		})
		if err != nil {
			return err
		}
	}
	slices.SortFunc(dups, func(a, b dup) int { return cmpInt(a.c.seq, b.c.seq) })
	for _, d := range dups {
		rows.dups.Failf("stored _id %s has the content of %s (_id %s)", showTyped(d.c.id), e.src.label(d.of), show(d.ofID))
	}
	rows.dups.Cases += stored - int64(len(dups))
	if overflow > 0 {
		v.rep.Note("%s: %d documents not searched for copies (over %d candidates)", e.Collection, overflow, maxCandidates)
	}
	// Pending mismatches were counted already: add their messages first.
	msgs := rows.equal.Examples
	rows.equal.Examples = nil
	for _, p := range pending {
		msg := fmt.Sprintf("%s (_id %s): differs", e.src.label(p.i), show(p.id))
		if want, ok := exp[p.i]; ok {
			diffs, total := diffDocs(p.stored, want)
			msg = fmt.Sprintf("%s (_id %s): %s", e.src.label(p.i), show(p.id), diffText(diffs, total))
		}
		rows.equal.Examples = append(rows.equal.Examples, msg)
	}
	for _, m := range msgs {
		if len(rows.equal.Examples) < MaxExamples {
			rows.equal.Examples = append(rows.equal.Examples, m)
		}
	}
	for _, i := range missing {
		msg := fmt.Sprintf("%s: not in the collection", e.src.label(i))
		if id, ok := ids[i]; ok {
			msg = fmt.Sprintf("%s (_id %s): not in the collection", e.src.label(i), show(id))
		}
		rows.missing.Failf("%s", msg)
	}
	return nil
}

// sortTimeout bounds the sorted _id read on FerretDB, which answers only
// once it has sorted every _id.
const sortTimeout = time.Hour

// sortedOrder reads the _ids sorted (FerretDB: only the _ids, since it sorts
// in memory) and checks that the expected ones come in generation order.
func (v *dbVerifier) sortedOrder(ctx context.Context, e *Expected, coll *mongo.Collection, row *Row) error {
	if e.Len() > v.opts.OrderLimit {
		row.Skip(fmt.Sprintf("FerretDB sorts in memory: the sorted _id read is limited to %d documents (this collection expects %d)", v.opts.OrderLimit, e.Len()))
		return nil
	}
	pipeline := mongo.Pipeline{
		{{Key: "$project", Value: bson.D{{Key: "_id", Value: 1}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	}
	// The server sorts everything before it answers: longer than the
	// client's per-operation timeout on a large collection.
	ctx, cancel := context.WithTimeout(ctx, sortTimeout)
	defer cancel()
	cur, err := coll.Aggregate(ctx, pipeline, options.Aggregate().SetBatchSize(v.opts.Batch))
	if err != nil {
		var ce mongo.CommandError
		if errors.As(err, &ce) {
			row.Skip("server refused the sorted _id read: " + ce.Message)
			return nil
		}
		return fmt.Errorf("sorted _id read of %s.%s: %w", e.DB, e.Collection, err)
	}
	defer cur.Close(context.WithoutCancel(ctx))
	prevI := int64(-1)
	var prevID bson.RawValue
	var done int64
	for cur.Next(ctx) {
		idv, err := cur.Current.LookupErr("_id")
		if err != nil {
			continue
		}
		done++
		if done%8192 == 0 {
			v.progress(e.Collection, "order", done, e.Len())
		}
		i, ok := e.src.lookup(idv)
		if !ok {
			continue
		}
		row.Check(prevI < 0 || i > prevI, "_id %s (%s) read after _id %s (%s)", show(idv), e.src.label(i), show(prevID), e.src.label(prevI))
		prevI, prevID = i, bson.RawValue{Type: idv.Type, Value: append([]byte(nil), idv.Value...)}
	}
	if err := cur.Err(); err != nil {
		return fmt.Errorf("sorted _id read of %s.%s: %w", e.DB, e.Collection, err)
	}
	return nil
}

// serverTimestamps has the server convert every ObjectID _id to a date and
// compares with the timestamp read from the bytes.
func (v *dbVerifier) serverTimestamps(ctx context.Context, e *Expected, coll *mongo.Collection, row *Row, oidDocs int64) error {
	if v.opts.FerretDB {
		row.Skip("server has no $toDate")
		return nil
	}
	pipeline := mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$type", Value: "objectId"}}}}}},
		{{Key: "$project", Value: bson.D{{Key: "t", Value: bson.D{{Key: "$toDate", Value: "$_id"}}}}}},
	}
	cur, err := coll.Aggregate(ctx, pipeline, options.Aggregate().SetBatchSize(v.opts.Batch))
	if err != nil {
		var ce mongo.CommandError
		if errors.As(err, &ce) {
			row.Skip("server refused $toDate: " + ce.Message)
			return nil
		}
		return fmt.Errorf("$toDate on %s.%s: %w", e.DB, e.Collection, err)
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
		if seen%8192 == 0 {
			v.progress(e.Collection, "server", seen, oidDocs)
		}
	}
	if err := cur.Err(); err != nil {
		var ce mongo.CommandError
		if errors.As(err, &ce) && seen == 0 {
			row.Skip("server refused $toDate: " + ce.Message)
			return nil
		}
		return fmt.Errorf("$toDate on %s.%s: %w", e.DB, e.Collection, err)
	}
	if seen != oidDocs {
		row.Failf("server converted %d ObjectID _ids, the read found %d", seen, oidDocs)
	}
	return nil
}

// finishReferences checks the references into collections that were not
// read before this one: itself, a cycle, or collections only referred to
// (read now, _ids only).
func (v *dbVerifier) finishReferences(ctx context.Context, st *collState) error {
	e, coll, rows := st.e, st.coll, st.rows
	if st.stored == 0 {
		return nil
	}
	var fields []refSpec
	var idx []int
	for k, ref := range e.refs {
		t := v.states[e.DB+"."+ref.To]
		switch {
		case t == nil:
			rows.refs[k].Skip("collection " + ref.To + " is not part of the plan")
		case t.refOnly && !t.done:
			if err := v.readIDs(ctx, t); err != nil {
				return err
			}
			if t.stored == 0 {
				rows.refs[k].Skip(fmt.Sprintf("%s.%s is empty: it is not written by this plan (seed it with the same --seed to check references)", t.e.DB, t.e.Collection))
				continue
			}
			fields, idx = append(fields, ref), append(idx, k)
		case rows.refs[k].Cases == 0:
			fields, idx = append(fields, ref), append(idx, k)
		}
	}
	if len(fields) == 0 {
		return nil
	}
	proj := bson.D{{Key: "_id", Value: 1}}
	for _, f := range fields {
		proj = append(proj, bson.E{Key: f.Field, Value: 1})
	}
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetProjection(proj).SetBatchSize(v.opts.Batch))
	if err != nil {
		return fmt.Errorf("read references of %s.%s: %w", e.DB, e.Collection, err)
	}
	defer cur.Close(context.WithoutCancel(ctx))
	var done int64
	for cur.Next(ctx) {
		idv, _ := cur.Current.LookupErr("_id")
		i, ok := e.src.lookup(idv)
		if !ok {
			i = -1
		}
		for k, f := range fields {
			checkRef(rows.refs[idx[k]], e, f, v.states[e.DB+"."+f.To], cur.Current, i)
		}
		done++
		if done%8192 == 0 {
			v.progress(e.Collection, "references", done, e.Len())
		}
	}
	if err := cur.Err(); err != nil {
		return fmt.Errorf("read references of %s.%s: %w", e.DB, e.Collection, err)
	}
	return nil
}

// readIDs reads the _ids of a collection that is only referred to.
func (v *dbVerifier) readIDs(ctx context.Context, t *collState) error {
	if err := t.e.src.setup(ctx, nil); err != nil {
		return err
	}
	t.seen = make([]uint64, (t.e.Len()+63)/64)
	t.unexpected = map[idKey]struct{}{}
	coll := v.client.Database(t.e.DB).Collection(t.e.Collection)
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}).SetBatchSize(v.opts.Batch))
	if err != nil {
		return fmt.Errorf("read _ids of %s.%s: %w", t.e.DB, t.e.Collection, err)
	}
	defer cur.Close(context.WithoutCancel(ctx))
	for cur.Next(ctx) {
		idv, err := cur.Current.LookupErr("_id")
		if err != nil {
			continue
		}
		t.stored++
		if i, ok := t.e.src.lookup(idv); ok {
			t.mark(i)
		} else {
			t.unexpected[keyOf(idv)] = struct{}{}
		}
	}
	if err := cur.Err(); err != nil {
		return fmt.Errorf("read _ids of %s.%s: %w", t.e.DB, t.e.Collection, err)
	}
	t.done = true
	return nil
}
