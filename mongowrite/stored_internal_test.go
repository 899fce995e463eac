package mongowrite

import (
	"hash/maphash"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// twoPass is Sum as its doc states it: _id elements first, then the
// others, in their order.
func twoPass(seed maphash.Seed, doc bson.Raw) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	elems, _ := bsoncore.Document(doc).Elements()
	for _, e := range elems {
		if e.Key() == "_id" {
			_, _ = h.Write(e)
		}
	}
	for _, e := range elems {
		if e.Key() != "_id" {
			_, _ = h.Write(e)
		}
	}
	return h.Sum64()
}

// A document's digest does not depend on where its _id is: it is the
// digest of the document as a server stores it, _id first.
func TestSumIsIDFirst(t *testing.T) {
	d := NewDigests(maphash.MakeSeed())
	el := func(k string, v int32) []byte { return bsoncore.AppendInt32Element(nil, k, v) }
	docs := map[string]bson.Raw{
		"_id first":     bsoncore.BuildDocument(nil, el("_id", 1), el("a", 2), el("b", 3)),
		"_id last":      bsoncore.BuildDocument(nil, el("a", 2), el("b", 3), el("_id", 1)),
		"_id twice":     bsoncore.BuildDocument(nil, el("_id", 1), el("a", 2), el("_id", 4)),
		"no _id":        bsoncore.BuildDocument(nil, el("a", 2)),
		"only _id":      bsoncore.BuildDocument(nil, el("_id", 1)),
		"empty":         bsoncore.BuildDocument(nil),
		"key like _id":  bsoncore.BuildDocument(nil, el("_id", 1), el("_idx", 2)),
		"nested _id":    bsoncore.BuildDocument(nil, el("_id", 1), bsoncore.AppendDocumentElement(nil, "s", bsoncore.BuildDocument(nil, el("_id", 5)))),
		"moved _id":     bsoncore.BuildDocument(nil, el("a", 2), el("_id", 1), el("b", 3)),
		"first of many": bsoncore.BuildDocument(nil, el("_id", 1), el("a", 2), el("b", 3), el("c", 4)),
	}
	for name, doc := range docs {
		if got, want := d.Sum(doc), twoPass(d.seed, doc); got != want {
			t.Errorf("%s: Sum %x, want %x", name, got, want)
		}
	}
	if d.Sum(docs["_id last"]) != d.Sum(docs["_id first"]) {
		t.Error("the same document with its _id moved has another digest")
	}
}
