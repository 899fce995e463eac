package verify

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// orderCheck checks that the expected documents come in generation order in
// a read sorted by _id.
type orderCheck struct {
	prevI  int64 // the expected document read last, plus one (0: none yet)
	prevID bson.RawValue
}

// check records that expected document i, with _id id, is read next. id
// must stay valid until the next call.
func (o *orderCheck) check(row *Row, e *Expected, i int64, id bson.RawValue) {
	prev := o.prevI - 1
	if prev < 0 || i > prev {
		row.Pass()
	} else {
		row.Failf("_id %s (%s) read after _id %s (%s)", show(id), e.src.label(i), show(o.prevID), e.src.label(prev))
	}
	o.prevI, o.prevID = i+1, id
}

// order finishes the order row: skipped when the _ids do not follow
// generation order or nothing is expected, else (FerretDB) checked on a
// separate sorted read; a sorted read of the collection checked it already.
func (v *dbVerifier) order(ctx context.Context, st *collState, sorted bool) error {
	e, row := st.e, st.rows.order
	switch {
	case !e.ordered:
		row.Skip(e.orderReason)
	case e.Len() == 0:
		row.Skip("no expected documents")
	case !sorted:
		return v.sortedOrder(ctx, e, st.coll, row)
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
	cur, err := v.aggregate(ctx, coll, pipeline, row, "the sorted _id read", "sorted _id read of")
	if cur == nil || err != nil {
		return err
	}
	defer cur.Close(context.WithoutCancel(ctx))
	var order orderCheck
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
		order.check(row, e, i, bson.RawValue{Type: idv.Type, Value: append([]byte(nil), idv.Value...)})
	}
	if err := cur.Err(); err != nil {
		return fmt.Errorf("sorted _id read of %s.%s: %w", e.DB, e.Collection, err)
	}
	return nil
}
