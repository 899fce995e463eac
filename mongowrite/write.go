package mongowrite

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// codeDuplicateKey is MongoDB's duplicate key error code.
const codeDuplicateKey = 11000

// InsertBatch inserts docs into coll with unordered InsertMany, so that
// one refused document does not hold back the others; docs go in batches
// of at most BatchBytes (Cut) (on oidkit's own
// server, with unordered insert commands of the documents as they are,
// which store and fail the same; see write_raw.go). It returns how many
// went in and, when dupOK is set, the positions in docs of those refused
// because their _id was already there (code 11000), in order.
//
// A document refused for any other reason (or for a duplicate _id without
// dupOK) gives a *WriteError about docs alone: Doc.Index is the position in
// docs of the first such document, Written the documents of docs that went
// in, Total len(docs). Callers writing many batches rebase those fields. Any
// other failure (network, timeout, write concern) is returned as is: the
// outcome of the batch is then unknown and nothing of it is counted, so a
// resumed run finds what did get in.
func InsertBatch(ctx context.Context, coll *mongo.Collection, docs []bson.Raw, dupOK bool) (inserted int64, dups []int, err error) {
	if len(docs) == 0 {
		return 0, nil, nil // the driver refuses an empty InsertMany
	}
	if isEmbedded(ctx, coll.Database().Client()) {
		err = insertCommand(ctx, coll, docs)
	} else {
		err = insertMany(ctx, coll, docs)
	}
	if err == nil {
		return int64(len(docs)), nil, nil
	}
	wes, ok := writeErrors(err)
	if !ok {
		return 0, nil, err
	}
	// Unordered: every document without a write error went in.
	inserted = int64(len(docs) - len(wes))
	if i, reason, refused := Refused(err, dupOK); refused {
		if i < 0 || i >= len(docs) {
			return inserted, nil, err
		}
		return inserted, nil, &WriteError{Collection: coll.Name(), Written: inserted, Total: int64(len(docs)),
			Doc: &WriteDoc{Index: int64(i), ID: docs[i].Lookup("_id")}, Err: reason}
	}
	for _, we := range wes {
		if we.Index < 0 || we.Index >= len(docs) {
			return inserted, nil, err
		}
		dups = append(dups, we.Index)
	}
	return inserted, dups, nil
}

// insertMany inserts docs unordered with an InsertMany per batch (Cut),
// and returns what one InsertMany of them all returns: nil, a
// mongo.BulkWriteException of the refused documents (indexes in docs), or
// the error that stopped it.
func insertMany(ctx context.Context, coll *mongo.Collection, docs []bson.Raw) error {
	var bwe mongo.BulkWriteException
	for from := 0; from < len(docs); {
		to := from + Cut(docs[from:], len(docs)-from)
		batch := make([]any, to-from)
		for i, d := range docs[from:to] {
			batch[i] = d // the driver passes bson.Raw through as is
		}
		_, err := coll.InsertMany(ctx, batch, options.InsertMany().SetOrdered(false))
		var e mongo.BulkWriteException
		if err != nil && !errors.As(err, &e) {
			return err
		}
		for _, we := range e.WriteErrors {
			we.Index += from
			bwe.WriteErrors = append(bwe.WriteErrors, we)
		}
		if bwe.WriteConcernError == nil {
			bwe.WriteConcernError = e.WriteConcernError
		}
		bwe.Labels = append(bwe.Labels, e.Labels...)
		from = to
	}
	if len(bwe.WriteErrors) > 0 || bwe.WriteConcernError != nil {
		return bwe
	}
	return nil
}

// Refused finds, in the error of an unordered bulk write, the first document
// the server refused other than for a duplicate _id (with dupOK), or for any
// reason (without): its position in the batch, and the server's reason,
// which unwraps to the driver's mongo.WriteError. ok is false when err is not
// made only of refusals of documents, or when every refusal was a duplicate
// _id and dupOK is set.
func Refused(err error, dupOK bool) (index int, reason error, ok bool) {
	wes, isWrite := writeErrors(err)
	if !isWrite {
		return 0, nil, false
	}
	for _, we := range wes {
		if !dupOK || we.Code != codeDuplicateKey {
			return we.Index, refusal{we}, true
		}
	}
	return 0, nil, false
}

// writeErrors are the per-document refusals of a bulk write error; ok is
// false when err is something else or also has a write concern error.
func writeErrors(err error) (mongo.WriteErrors, bool) {
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || bwe.WriteConcernError != nil || len(bwe.WriteErrors) == 0 {
		return nil, false
	}
	wes := make(mongo.WriteErrors, len(bwe.WriteErrors))
	for i, e := range bwe.WriteErrors {
		wes[i] = e.WriteError
	}
	return wes, true
}
