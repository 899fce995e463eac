package indexes

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

func startDB(t *testing.T) (*mongo.Database, context.Context) {
	_, c := mongotest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c.Database("indexes_test"), ctx
}

// DefaultName agrees with the name the driver generates for an index
// created without one (the oracle), as the server lists it.
func TestDefaultNameMatchesDriver(t *testing.T) {
	db, ctx := startDB(t)
	coll := db.Collection("names")
	keys := []bson.D{
		{{Key: "email", Value: int32(1)}},
		{{Key: "userId", Value: int32(1)}, {Key: "createdAt", Value: int32(-1)}},
		{{Key: "address.city", Value: int32(-1)}},
	}
	for _, k := range keys {
		name, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: k})
		if err != nil {
			t.Fatal(err)
		}
		if got := DefaultName(k); got != name {
			t.Errorf("DefaultName(%v) = %q, the driver made %q", k, got, name)
		}
	}
	list, err := List(ctx, coll)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(keys) {
		t.Fatalf("List: %v, want %d indexes without _id_", list, len(keys))
	}
	// FerretDB lists them by name, MongoDB in creation order.
	byName := map[string]Index{}
	for _, ix := range list {
		byName[ix.Name] = ix
	}
	for _, k := range keys {
		if ix, ok := byName[DefaultName(k)]; !ok || extJSON(ix.Key) != extJSON(k) {
			t.Errorf("List: %v, want an index on %v", list, k)
		}
	}
}

// Create makes what is missing, accepts what is there identically,
// refuses a same-named different index naming both, never drops it, and
// Check sees exactly the indexes that are not as wanted.
func TestCreateListCheck(t *testing.T) {
	db, ctx := startDB(t)
	coll := db.Collection("users")
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "email", Value: "a"}, {Key: "n", Value: 1}}, bson.D{{Key: "email", Value: "b"}, {Key: "n", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	want := []Index{
		{Key: bson.D{{Key: "email", Value: int32(1)}}, Unique: true},
		{Key: bson.D{{Key: "n", Value: int32(1)}, {Key: "email", Value: int32(-1)}}, Name: "by_n"},
	}
	if got, err := List(ctx, db.Collection("nothing_here")); err != nil || len(got) != 0 {
		t.Fatalf("List of a missing collection: %v, %v", got, err)
	}
	if p, err := Check(ctx, coll, want); err != nil || len(p) != 2 || p[0].Have != nil || !strings.Contains(p[0].String(), `index "email_1" {"key":{"email":1},"name":"email_1","unique":true}: missing`) {
		t.Fatalf("Check before Create: %v, %v", p, err)
	}
	if err := Create(ctx, coll, want); err != nil {
		t.Fatal(err)
	}
	// Independent read: the driver's own listing.
	specs, err := coll.Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*mongo.IndexSpecification{}
	for _, s := range specs {
		names[s.Name] = &s
	}
	if s := names["email_1"]; s == nil || s.Unique == nil || !*s.Unique || string(s.KeysDocument) != string(mustRaw(bson.D{{Key: "email", Value: int32(1)}})) {
		t.Errorf("email_1 on the server: %+v", s)
	}
	if s := names["by_n"]; s == nil || s.Unique != nil && *s.Unique {
		t.Errorf("by_n on the server: %+v", s)
	}
	if err := Create(ctx, coll, want); err != nil {
		t.Fatalf("Create again: %v", err)
	}
	if p, err := Check(ctx, coll, want); err != nil || len(p) != 0 {
		t.Fatalf("Check after Create: %v, %v", p, err)
	}

	other := []Index{{Key: bson.D{{Key: "email", Value: int32(1)}}}} // email_1, not unique
	err = Create(ctx, coll, other)
	var ce *RefusedError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `"unique":true`) || !strings.Contains(err.Error(), `wanted {"key":{"email":1},"name":"email_1"}`) {
		t.Fatalf("conflict: %v", err)
	}
	if p, _ := Check(ctx, coll, other); len(p) != 1 || p[0].Reason != "unique true, not false" {
		t.Errorf("Check of the other definition: %v", p)
	}
	if p, _ := Check(ctx, coll, want); len(p) != 0 {
		t.Errorf("the conflicting Create changed the indexes: %v", p)
	}
	renamed := []Index{{Key: bson.D{{Key: "email", Value: int32(1)}}, Unique: true, Name: "mail"}}
	if err := Create(ctx, coll, renamed); !errors.As(err, &ce) || !strings.Contains(err.Error(), `already has index "email_1" on the same key`) {
		t.Errorf("same key, other name: %v", err)
	}

	if err := coll.Indexes().DropOne(ctx, "by_n"); err != nil {
		t.Fatal(err)
	}
	p, err := Check(ctx, coll, want)
	if err != nil || len(p) != 1 || p[0].Want.NameOrDefault() != "by_n" || p[0].Reason != "missing" {
		t.Fatalf("Check after a drop: %v, %v", p, err)
	}

	// A unique index over documents that collide is refused by the server.
	err = Create(ctx, coll, []Index{{Key: bson.D{{Key: "n", Value: int32(1)}}, Unique: true}})
	var re *RefusedError
	if !errors.As(err, &re) || re.Index.NameOrDefault() != "n_1" {
		t.Fatalf("unique over duplicates: %v", err)
	}
	t.Logf("unique over duplicates: %v", err)
}

func mustRaw(d bson.D) bson.Raw {
	b, err := bson.Marshal(d)
	if err != nil {
		panic(err)
	}
	return b
}

// What the embedded server does with each index option: TTL, partial and
// sparse indexes are made and kept as asked; text, hashed and 2dsphere
// indexes are refused, and Create turns each refusal into a *RefusedError
// naming the index, leaving no index behind.
func TestServerIndexSupport(t *testing.T) {
	db, ctx := startDB(t)
	coll := db.Collection("options")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	refused := []Index{
		{Key: bson.D{{Key: "t", Value: "text"}}},
		{Key: bson.D{{Key: "h", Value: "hashed"}}},
		{Key: bson.D{{Key: "g", Value: "2dsphere"}}},
	}
	for _, ix := range refused {
		err := Create(ctx, coll, []Index{ix})
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "CannotCreateIndex") || !strings.Contains(err.Error(), `index "`+ix.NameOrDefault()+`" on indexes_test.options: the server refused`) {
			t.Errorf("%s: %v; want a refusal naming the index", ix, err)
		}
	}
	if list, err := List(ctx, coll); err != nil || len(list) != 0 {
		t.Errorf("indexes left behind: %v, %v", list, err)
	}
	kept := []Index{
		{Key: bson.D{{Key: "at", Value: int32(1)}}, ExpireAfterSeconds: i32(60)},
		{Key: bson.D{{Key: "s", Value: int32(1)}}, PartialFilterExpression: bson.D{{Key: "s", Value: "paid"}}},
		{Key: bson.D{{Key: "sp", Value: int32(1)}}, Sparse: true},
		{Key: bson.D{{Key: "a", Value: int32(1)}}, Unique: true},
	}
	if err := Create(ctx, coll, kept); err != nil {
		t.Fatal(err)
	}
	if p, err := Check(ctx, coll, kept); err != nil || len(p) != 0 {
		t.Errorf("Check after Create: %v, %v; want every option kept", p, err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); !mongo.IsDuplicateKeyError(err) {
		t.Errorf("unique index not enforced: %v", err)
	}
	_ = options.Index
}

// Processes writing the parts of one collection each create its indexes:
// Create from several clients at once ends with the indexes, no error.
func TestCreateAtOnce(t *testing.T) {
	db, ctx := startDB(t)
	coll := db.Collection("parts")
	want := []Index{{Key: bson.D{{Key: "a", Value: int32(1)}}, Unique: true}, {Key: bson.D{{Key: "b", Value: int32(-1)}}}}
	errs := make(chan error, 4)
	for range 4 {
		go func() { errs <- Create(ctx, coll, want) }()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if p, err := Check(ctx, coll, want); err != nil || len(p) != 0 {
		t.Errorf("%v %v", p, err)
	}
}

// Probe asks without touching the collection and leaves nothing behind.
func TestProbe(t *testing.T) {
	db, ctx := startDB(t)
	ok := []Index{{Key: bson.D{{Key: "a", Value: int32(1)}}, Unique: true}}
	if err := Probe(ctx, db, "target", ok); err != nil {
		t.Fatal(err)
	}
	text := []Index{{Key: bson.D{{Key: "at", Value: "text"}}}}
	err := Probe(ctx, db, "target", text)
	var re *RefusedError
	if !errors.As(err, &re) || re.Collection != "target" || !strings.Contains(err.Error(), `index "at_text" on indexes_test.target: the server refused`) {
		t.Fatalf("%v", err)
	}
	if names, err := db.ListCollectionNames(ctx, bson.D{}); err != nil || len(names) != 0 {
		t.Errorf("collections left: %v %v", names, err)
	}
}
