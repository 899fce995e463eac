package verify

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

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
			if t.has(x) {
				row.Pass()
			} else {
				row.Failf("%s: %s.%d %s is not an _id of %s.%s", where(), ref.Field, k, show(x), t.e.DB, t.e.Collection)
			}
		}
		return
	}
	// Per document: the message is built only on a mismatch.
	if t.has(val) {
		row.Pass()
	} else {
		row.Failf("%s: %s %s is not an _id of %s.%s", where(), ref.Field, show(val), t.e.DB, t.e.Collection)
	}
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
				rows.refs[k].Skip(fmt.Sprintf("%s.%s is empty: it is not written by this plan (seed it with the same seed to check references)", t.e.DB, t.e.Collection))
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
