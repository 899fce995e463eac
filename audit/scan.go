package audit

import (
	"context"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/mongowrite"
)

// Fields names where a document keeps the audited value and its time: a
// name or a dotted path each. Time may be empty.
type Fields struct {
	ID   string // default _id
	Time string
}

// fieldPaths is Fields split once, not once per document.
type fieldPaths struct{ id, time []string }

func (f Fields) paths() fieldPaths {
	p := fieldPaths{id: []string{"_id"}}
	if f.ID != "" {
		p.id = strings.Split(f.ID, ".")
	}
	if f.Time != "" {
		p.time = strings.Split(f.Time, ".")
	}
	return p
}

// AddDoc audits the value doc holds at f.ID, with the date (or timestamp)
// at f.Time; a document without the value is skipped, and reported false.
func (a *Auditor) AddDoc(doc bson.Raw, f Fields) bool {
	return a.addDoc(doc, f.paths())
}

func (a *Auditor) addDoc(doc bson.Raw, p fieldPaths) bool {
	v, err := doc.LookupErr(p.id...)
	if err != nil {
		return false
	}
	var at time.Time
	if p.time != nil {
		if tv, err := doc.LookupErr(p.time...); err == nil {
			switch tv.Type {
			case bson.TypeDateTime:
				at = tv.Time()
			case bson.TypeTimestamp:
				s, _ := tv.Timestamp()
				at = time.Unix(int64(s), 0)
			}
		}
	}
	a.Add(v, at)
	return true
}

// ScanCollection audits every document of coll in natural order (the order
// of inserts, which the writer rules need), fetching only the fields of f.
// It only reads. progress, when not nil, is called with the documents read
// so far every 4,096 documents and at the end. It returns the documents read.
func (a *Auditor) ScanCollection(ctx context.Context, coll *mongo.Collection, f Fields, progress func(n int64)) (int64, error) {
	p := f.paths()
	idName, timeName := strings.Join(p.id, "."), strings.Join(p.time, ".")
	proj := bson.D{{Key: idName, Value: 1}}
	if timeName != "" && timeName != idName {
		proj = append(proj, bson.E{Key: timeName, Value: 1})
	}
	if idName != "_id" && timeName != "_id" {
		proj = append(proj, bson.E{Key: "_id", Value: 0})
	}
	db := coll.Database().Name()
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetProjection(proj).SetBatchSize(10_000))
	if err != nil {
		return 0, &mongowrite.CollectionError{DB: db, Collection: coll.Name(), Op: mongowrite.OpScan, Err: err}
	}
	defer cur.Close(context.WithoutCancel(ctx))
	var n int64
	for cur.Next(ctx) {
		a.addDoc(cur.Current, p)
		n++
		if progress != nil && n&0xFFF == 0 {
			progress(n)
		}
	}
	if err := cur.Err(); err != nil {
		return n, &mongowrite.CollectionError{DB: db, Collection: coll.Name(), Op: mongowrite.OpScan, Err: err}
	}
	if progress != nil {
		progress(n)
	}
	return n, nil
}
