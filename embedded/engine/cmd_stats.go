package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// dataSize is the BSON bytes of a collection's documents.
func dataSize(col *collection) int64 { return col.bytes }

func cmdDBStats(c *call) (bsoncore.Document, error) {
	st := c.view()
	var objs, size int64
	var idx int32
	for _, col := range st.dbs[c.db] {
		objs += int64(col.docs.Len())
		size += dataSize(col)
		idx += int32(len(col.indexes) + 1)
	}
	return newReply().b.AppendString("db", c.db).AppendInt64("collections", int64(len(st.dbs[c.db]))).AppendInt64("views", 0).
		AppendInt64("objects", objs).AppendInt64("dataSize", size).AppendInt64("storageSize", size).
		AppendInt64("indexes", int64(idx)).AppendInt64("totalSize", size).AppendDouble("scaleFactor", 1).AppendDouble("ok", 1).Build(), nil
}

func collStatsDoc(db, name string, col *collection) bsoncore.Document {
	var count, size int64
	nidx := int32(1)
	if col != nil {
		count, size, nidx = int64(col.docs.Len()), dataSize(col), int32(len(col.indexes)+1)
	}
	avg := int64(0)
	if count > 0 {
		avg = size / count
	}
	b := bsoncore.NewDocumentBuilder().AppendString("ns", db+"."+name).AppendInt64("count", count).AppendInt64("size", size).
		AppendInt64("avgObjSize", avg).AppendInt64("storageSize", size).AppendInt32("nindexes", nidx).AppendInt64("totalIndexSize", 0).
		AppendInt64("totalSize", size)
	if col != nil {
		if size, max, ok := cappedLimits(col.opts); ok {
			b.AppendBoolean("capped", true).AppendInt64("max", max).AppendInt64("maxSize", size)
			return b.Build()
		}
	}
	return b.AppendBoolean("capped", false).Build()
}

func cmdCollStats(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	col := c.view().coll(c.db, name)
	if col == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "Collection [%s.%s] not found.", c.db, name)
	}
	b := bsoncore.NewDocumentBuilder()
	for _, e := range bsonval.Elements(collStatsDoc(c.db, name, col)) {
		b.AppendValue(e.Key(), e.Value())
	}
	return newReplyFrom(b).ok(), nil
}

func cmdValidate(c *call) (bsoncore.Document, error) {
	name, err := c.collName()
	if err != nil {
		return nil, err
	}
	col := c.view().coll(c.db, name)
	if col == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "Collection '%s.%s' does not exist to validate.", c.db, name)
	}
	return newReply().b.AppendString("ns", c.db+"."+name).AppendInt64("nrecords", int64(col.docs.Len())).AppendBoolean("valid", true).
		AppendArray("errors", bsoncore.BuildArray(nil)).AppendDouble("ok", 1).Build(), nil
}
