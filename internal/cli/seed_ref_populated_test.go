package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// Stored references onto an orders collection that already holds
// documents. Each case says what the run does, what the target holds
// afterwards and the share of references verify db reports.

// refRun is the command that draws orders' userId from the stored users.
func refRun(uri, db, seedText string, extra ...string) []string {
	return append([]string{"seed", "--uri", uri, "--db", db, "--kind", "order", "-n", "300", "--seed", seedText, "--ref", "userId=users", "--quiet"}, extra...)
}

// unchanged fails t when coll no longer holds the documents before, in
// the same order, byte for byte.
func unchanged(t *testing.T, coll *mongo.Collection, before [][]byte, what string) {
	t.Helper()
	after := collectionBytes(t, coll)
	if !slices.EqualFunc(before, after, bytes.Equal) {
		t.Fatalf("%s: %s.%s changed: %d documents before, %d after", what, coll.Database().Name(), coll.Name(), len(before), len(after))
	}
}

// verifyShare runs verify db (extra: its flags) and requires its report
// to say share, with exit code code.
func verifyShare(t *testing.T, code int, share string, args ...string) {
	t.Helper()
	out, errOut, got := runApp(t, t.Context(), "", append([]string{"verify", "db", "--quiet"}, args...)...)
	if got != code || !strings.Contains(out, share) {
		t.Fatalf("verify db %v: exit %d (expected %d), expected %q\n%s%s", args, got, code, share, out, errOut)
	}
}

// The orders of this run are there already: as generated, a second run is
// refused (exit 1) pointing at --resume, which with the run's own flags
// adds nothing; with other content (the stored users changed since), it is
// refused naming --drop, and --resume refuses too; orders under other _ids
// (another seed) are added beside them. Refused runs change nothing; every
// share of references that verify db reports is the one expected.
func TestSeedRefOntoOrdersAlreadyStored(t *testing.T) {
	uri, client := mongotest.Start(t)
	ctx := t.Context()
	orders := client.Database("a").Collection("orders")
	mustSeed(t, "--uri", uri, "--db", "a", "--kind", "user", "-n", "100", "--seed", "5")
	mustRun(t, refRun(uri, "a", "5")...)
	before := collectionBytes(t, orders)

	_, errOut, code := runApp(t, ctx, "", refRun(uri, "a", "5")...)
	if code != ExitFailure || !strings.Contains(errOut, "the 300 documents of this run are already there") || !strings.Contains(errOut, "--resume") {
		t.Fatalf("the same run again: exit %d\n%s", code, errOut)
	}
	unchanged(t, orders, before, "the same run again")
	out, errOut, code := runApp(t, ctx, "", refRun(uri, "a", "5", "--resume")...)
	if code != ExitOK || !strings.Contains(out, "inserted 0, skipped 300") {
		t.Fatalf("the same run with --resume: exit %d\n%s%s", code, out, errOut)
	}
	verifyShare(t, ExitOK, "orders.userId: 300 of 300 resolve to users", "--uri", uri, "--db", "a", "--collection", "orders")

	// A user written by hand: the same flags now draw other userIds
	// under the same _ids.
	if _, err := client.Database("a").Collection("users").InsertOne(ctx, bson.D{{Key: "_id", Value: "zed"}}); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runApp(t, ctx, "", refRun(uri, "a", "5")...)
	if code != ExitFailure || !strings.Contains(errOut, "documents of the plan have the _id of another document already stored") || !strings.Contains(errOut, "--drop replaces the collection") {
		t.Fatalf("the run over its orders after users changed: exit %d\n%s", code, errOut)
	}
	_, errOut, code = runApp(t, ctx, "", refRun(uri, "a", "5", "--resume")...)
	if code != ExitUsage || !strings.Contains(errOut, "(100 _ids then, 101 _ids now)") || !strings.Contains(errOut, "cannot be continued") {
		t.Fatalf("--resume after users changed: exit %d\n%s", code, errOut)
	}
	unchanged(t, orders, before, "refused after users changed")
	verifyShare(t, ExitFailure, "orders.userId: 300 of 300 resolve to users", "--uri", uri, "--db", "a", "--collection", "orders")

	// Another seed: other _ids, added beside the 300 stored.
	out = mustRun(t, refRun(uri, "a", "6")...)
	if !strings.Contains(out, "inserted 300, skipped 0") {
		t.Fatalf("another seed:\n%s", out)
	}
	if n, _ := orders.CountDocuments(ctx, bson.D{}); n != 600 {
		t.Fatalf("%d orders, expected 600", n)
	}
	verifyShare(t, ExitFailure, "orders.userId: 600 of 600 resolve to users", "--uri", uri, "--db", "a", "--collection", "orders")
}

// The orders stored hold unique keys the run would write: refused before
// writing (exit 1), the clashes listed, naming --drop; with the plan's
// unique index over stored orders that repeat a key among themselves,
// refused the same, the target unchanged down to its indexes and no
// collection written before the orders. --drop then writes them.
func TestSeedRefOntoOrdersWithUniqueClashes(t *testing.T) {
	uri, client := mongotest.Start(t)
	ctx := t.Context()
	db := client.Database("u")
	orders := db.Collection("orders")
	mustSeed(t, "--uri", uri, "--db", "u", "--plan", "shop", "-n", "100", "--seed", "5")
	before := collectionBytes(t, orders)
	// Seed 6 makes other _ids with the same numbers (ORD-00000000, ...).
	_, errOut, code := runApp(t, ctx, "", refRun(uri, "u", "6")...)
	if code != ExitFailure || !strings.Contains(errOut, `unique index number_1: key "ORD-00000000" is held by the stored document`) ||
		!strings.Contains(errOut, "300 documents clash in a unique index with documents already stored") || !strings.Contains(errOut, "--drop replaces the collection") {
		t.Fatalf("orders whose numbers are stored: exit %d\n%s", code, errOut)
	}
	unchanged(t, orders, before, "unique clashes")
	verifyShare(t, ExitOK, "orders.userId: 300 of 300 resolve to users", "--uri", uri, "--db", "u", "--collection", "orders")

	// A plan file: products, then orders with a unique number, over two
	// orders written by hand without one (null twice to the index).
	plan := filepath.Join(t.TempDir(), "orders.json")
	if err := os.WriteFile(plan, []byte(`{"db": "h", "collections": [
		{"name": "products", "kind": "product", "count": 10},
		{"name": "orders", "kind": "order", "count": 300, "refs": [
			{"field": "userId", "to": "users", "stored": true}, {"field": "productIds", "to": "products", "min": 1, "max": 3}],
		 "indexes": [{"key": {"userId": 1}}, {"key": {"number": 1}, "unique": true}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h := client.Database("h")
	mustSeed(t, "--uri", uri, "--db", "h", "--kind", "user", "-n", "50", "--seed", "2", "--id", "int")
	if _, err := h.Collection("orders").InsertMany(ctx, []any{bson.D{{Key: "_id", Value: "by-hand-1"}, {Key: "userId", Value: int32(1)}}, bson.D{{Key: "_id", Value: "by-hand-2"}, {Key: "userId", Value: "ghost"}}}); err != nil {
		t.Fatal(err)
	}
	before = collectionBytes(t, h.Collection("orders"))
	_, errOut, code = runApp(t, ctx, "", "seed", "--uri", uri, "--plan", plan, "--seed", "5", "--quiet")
	if code != ExitFailure || !strings.Contains(errOut, `index "number_1" on h.orders`) || !strings.Contains(errOut, "the documents stored in h.orders repeat a key of this unique index; nothing was written: --drop") {
		t.Fatalf("a unique index the stored orders repeat: exit %d\n%s", code, errOut)
	}
	unchanged(t, h.Collection("orders"), before, "stored orders repeat a unique key")
	names, err := h.ListCollectionNames(ctx, bson.D{})
	slices.Sort(names)
	if err != nil || !slices.Equal(names, []string{"oidkit_runs", "orders", "users"}) {
		t.Fatalf("collections after the refused run: %v, %v; expected no products", names, err)
	}
	if list, err := indexes.List(ctx, h.Collection("orders")); err != nil || len(list) != 0 {
		t.Fatalf("orders' indexes after the refused run: %v, %v; expected _id_ alone", list, err)
	}
	verifyShare(t, ExitFailure, "orders.userId: 1 of 2 resolve to users", "--uri", uri, "--db", "h", "--collection", "orders", "--kind", "order", "-n", "300", "--seed", "5", "--ref", "userId=users")

	mustRun(t, "seed", "--uri", uri, "--plan", plan, "--seed", "5", "--drop", "--quiet")
	verifyShare(t, ExitOK, "orders.userId: 300 of 300 resolve to users", "--uri", uri, "--db", "h")
}

// Users stored by another run (int _ids) and by hand with _ids of every
// kind but the ObjectID the order kind would make (string, int64, double,
// document, date, bool, UUID, null): each userId is one of them with its
// type, and all resolve. Into orders that hold hand-written ones (string
// _ids, one userId that is no user) the run is added, and verify db counts
// the share over both.
func TestSeedRefToUsersOfEveryIDType(t *testing.T) {
	uri, client := mongotest.Start(t)
	ctx := t.Context()
	db := client.Database("m")
	mustSeed(t, "--uri", uri, "--db", "m", "--kind", "user", "-n", "20", "--seed", "2", "--id", "int", "--id-start", "100")
	byHand := []any{"alice", int64(4), 5.5, bson.D{{Key: "org", Value: 1}}, bson.NewDateTimeFromTime(bson.DateTime(0).Time()), true, bson.Binary{Subtype: 4, Data: make([]byte, 16)}, nil}
	for _, id := range byHand {
		if _, err := db.Collection("users").InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "name", Value: "by hand"}}); err != nil {
			t.Fatal(err)
		}
	}
	stored := map[string]bool{}
	for _, raw := range collectionBytes(t, db.Collection("users")) {
		v := bson.Raw(raw).Lookup("_id")
		stored[string(rune(v.Type))+string(v.Value)] = true
	}
	if _, err := db.Collection("orders").InsertMany(ctx, []any{bson.D{{Key: "_id", Value: "o-1"}, {Key: "userId", Value: "ghost"}}, bson.D{{Key: "_id", Value: "o-2"}, {Key: "userId", Value: "alice"}}}); err != nil {
		t.Fatal(err)
	}

	mustRun(t, refRun(uri, "m", "5")...)
	types := map[bson.Type]bool{}
	for _, raw := range collectionBytes(t, db.Collection("orders")) {
		d := bson.Raw(raw)
		if d.Lookup("_id").Type == bson.TypeString {
			continue // written by hand
		}
		v := d.Lookup("userId")
		if !stored[string(rune(v.Type))+string(v.Value)] {
			t.Fatalf("order %v: userId %v is no stored user's _id (with its type)", d.Lookup("_id"), v)
		}
		types[v.Type] = true
	}
	if len(types) < 5 {
		t.Errorf("300 orders refer to users of %d _id types only: %v", len(types), types)
	}
	verifyShare(t, ExitFailure, "orders.userId: 301 of 302 resolve to users", "--uri", uri, "--db", "m", "--collection", "orders")
	if _, err := db.Collection("orders").DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$type", Value: "string"}}}}); err != nil {
		t.Fatal(err)
	}
	verifyShare(t, ExitOK, "orders.userId: 300 of 300 resolve to users", "--uri", uri, "--db", "m", "--collection", "orders")
}
