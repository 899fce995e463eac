package crosscheck

import (
	"time"

	bson1 "go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/oid"
)

// driver is one Go driver's ObjectID API, seen through oid.ID, so that every
// differential check is written once and runs against each driver.
type driver struct {
	name      string // the row prefix
	fromHex   func(s string) (oid.ID, error)
	hex       func(id oid.ID) string
	text      func(id oid.ID) []byte
	timestamp func(id oid.ID) time.Time
	json      func(id oid.ID) []byte
	// unmarshalJSON decodes b into a driver ObjectID holding was.
	unmarshalJSON func(was oid.ID, b []byte) (oid.ID, error)
	// isValid is the driver's own validity test, when it has one.
	isValid func(s string) bool
	// bson is the document {a: id}; extJSON the canonical Extended JSON of
	// {_id: id}.
	bson    func(id oid.ID) ([]byte, error)
	extJSON func(id oid.ID) ([]byte, error)
	newID   func() oid.ID
}

// drivers are the drivers checked, in report order.
var drivers = [...]driver{
	{
		name:      v2,
		fromHex:   func(s string) (oid.ID, error) { d, err := bson.ObjectIDFromHex(s); return oid.ID(d), err },
		hex:       func(id oid.ID) string { return bson.ObjectID(id).Hex() },
		text:      func(id oid.ID) []byte { b, _ := bson.ObjectID(id).MarshalText(); return b },
		timestamp: func(id oid.ID) time.Time { return bson.ObjectID(id).Timestamp() },
		json:      func(id oid.ID) []byte { b, _ := bson.ObjectID(id).MarshalJSON(); return b },
		unmarshalJSON: func(was oid.ID, b []byte) (oid.ID, error) {
			d := bson.ObjectID(was)
			err := d.UnmarshalJSON(b)
			return oid.ID(d), err
		},
		bson: func(id oid.ID) ([]byte, error) { return bson.Marshal(bson.D{{Key: "a", Value: bson.ObjectID(id)}}) },
		extJSON: func(id oid.ID) ([]byte, error) {
			return bson.MarshalExtJSON(bson.D{{Key: "_id", Value: bson.ObjectID(id)}}, true, false)
		},
		newID: func() oid.ID { return oid.ID(bson.NewObjectID()) },
	},
	{
		name:      v1,
		fromHex:   func(s string) (oid.ID, error) { d, err := primitive.ObjectIDFromHex(s); return oid.ID(d), err },
		hex:       func(id oid.ID) string { return primitive.ObjectID(id).Hex() },
		text:      func(id oid.ID) []byte { b, _ := primitive.ObjectID(id).MarshalText(); return b },
		timestamp: func(id oid.ID) time.Time { return primitive.ObjectID(id).Timestamp() },
		json:      func(id oid.ID) []byte { b, _ := primitive.ObjectID(id).MarshalJSON(); return b },
		unmarshalJSON: func(was oid.ID, b []byte) (oid.ID, error) {
			d := primitive.ObjectID(was)
			err := d.UnmarshalJSON(b)
			return oid.ID(d), err
		},
		isValid: primitive.IsValidObjectID,
		bson: func(id oid.ID) ([]byte, error) {
			return bson1.Marshal(bson1.D{{Key: "a", Value: primitive.ObjectID(id)}})
		},
		extJSON: func(id oid.ID) ([]byte, error) {
			return bson1.MarshalExtJSON(bson1.D{{Key: "_id", Value: primitive.ObjectID(id)}}, true, false)
		},
		newID: func() oid.ID { return oid.ID(primitive.NewObjectID()) },
	},
}
