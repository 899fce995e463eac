package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/seed"
)

// serverIndexes is what the server lists for coll, read with the driver's
// own listing (not package indexes): name → key and unique flag.
func serverIndexes(t *testing.T, ctx context.Context, coll *mongo.Collection) map[string]string {
	t.Helper()
	specs, err := coll.Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range specs {
		v := s.KeysDocument.String()
		if s.Unique != nil && *s.Unique {
			v += " unique"
		}
		out[s.Name] = v
	}
	return out
}

func writePlan(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A seeded run with unique indexes never collides (20,000 users with
// unique email and username, and the shop plan), the indexes are there as
// declared, verify db checks them and reports a dropped one by name, and
// --resume creates it again.
func TestSeedCreatesPlanIndexes(t *testing.T) {
	// Its own server. 20,000 users are the point: unique email and
	// username must not collide at a size where collisions would show.
	t.Parallel()
	uri, client, ctx := startServer(t)
	plan := writePlan(t, `{"db": "ix", "collections": [{"name": "users", "kind": "user", "count": 20000, "indexes": [
		{"key": {"email": 1}, "unique": true}, {"key": {"username": 1}, "unique": true},
		{"key": {"username": 1, "createdAt": -1}, "name": "recent"}]}]}`)
	out, errOut, code := runApp(t, ctx, "", "seed", "--uri", uri, "--plan", plan, "--seed", "3", "--quiet")
	if code != ExitOK || !strings.Contains(out, "ix.users: inserted 20000") || !strings.Contains(out, "ix.users: 3 indexes: email_1, username_1, recent") {
		t.Fatalf("seed: exit %d\n%s\n%s", code, out, errOut)
	}
	got := serverIndexes(t, ctx, client.Database("ix").Collection("users"))
	want := map[string]string{"_id_": `{"_id": {"$numberInt":"1"}}`, "email_1": `{"email": {"$numberInt":"1"}} unique`, "username_1": `{"username": {"$numberInt":"1"}} unique`,
		"recent": `{"username": {"$numberInt":"1"},"createdAt": {"$numberInt":"-1"}}`}
	if len(got) != len(want) {
		t.Errorf("indexes %v, want %v", got, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("index %s: %q, want %q", name, got[name], w)
		}
	}

	out, errOut, code = runApp(t, ctx, "", "seed", "--uri", uri, "--plan", "shop", "-n", "300", "--seed", "4", "--db", "shop", "--quiet")
	if code != ExitOK || !strings.Contains(out, "shop.orders: 3 indexes: number_1, userId_1, status_1") {
		t.Fatalf("seed shop: exit %d\n%s\n%s", code, out, errOut)
	}
	p, _ := seed.BuiltinPlan("shop", 300)
	for _, cs := range p.Collections {
		coll := client.Database("shop").Collection(cs.Name)
		if problems, err := indexes.Check(ctx, coll, cs.Indexes); err != nil || len(problems) != 0 {
			t.Errorf("%s: %v %v", cs.Name, problems, err)
		}
		if n := len(serverIndexes(t, ctx, coll)); n != len(cs.Indexes)+1 {
			t.Errorf("%s has %d indexes, want %d and _id_", cs.Name, n, len(cs.Indexes))
		}
	}

	out, errOut, code = runApp(t, ctx, "", "verify", "db", "--uri", uri, "--db", "shop", "--quiet")
	if code != ExitOK || !strings.Contains(out, "orders: indexes (key and options)") {
		t.Fatalf("verify db: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := client.Database("shop").Collection("orders").Indexes().DropOne(ctx, "userId_1"); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runApp(t, ctx, "", "verify", "db", "--uri", uri, "--db", "shop", "--quiet")
	if code != ExitFailure || !strings.Contains(out, `index "userId_1" {"key":{"userId":1},"name":"userId_1"}: missing`) || !strings.Contains(errOut, "1 of") {
		t.Fatalf("verify db after a drop: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = runApp(t, ctx, "", "seed", "--uri", uri, "--db", "shop", "--resume", "--quiet")
	if code != ExitOK || !strings.Contains(out, "inserted 0, skipped 900") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, ok := serverIndexes(t, ctx, client.Database("shop").Collection("orders"))["userId_1"]; !ok {
		t.Error("--resume did not create the missing index")
	}
}

// Bad index declarations are bad input: exit 2, and nothing is written.
func TestSeedIndexDeclarationErrors(t *testing.T) {
	uri, client, ctx := startServer(t)
	cases := []struct{ indexes, want string }{
		{`[{"key": {"age": 1}, "unique": true}]`, `index "age_1": unique on age, which is not unique by construction: a seeded unique field must never collide`},
		{`[{"key": {"email": "up"}}]`, `indexes[0]: invalid index "email_up": key.email "up": expected 1 (ascending)`},
		{`[{"key": {"emial": 1}}]`, `the documents have no field "emial"`},
		{`[{"key": {"name": 1}, "expireAfterSeconds": 60}]`, `a TTL index expires documents by a date, and "name" holds string`},
		{`[{"key": {"email": 1}}, {"key": {"email": 1}, "unique": true, "name": "u"}]`, `index "email_1" has the same key`},
		{`[{"key": {"email": 1, "age": 1}, "expireAfterSeconds": 5}]`, `a TTL index has one field`},
		{`[{"key": {}}]`, `key {}: expected at least one field`},
		{`{"key": {"email": 1}}`, `cannot unmarshal object`},
	}
	for _, c := range cases {
		plan := writePlan(t, `{"db": "bad", "collections": [{"name": "users", "kind": "user", "count": 10, "indexes": `+c.indexes+`}]}`)
		out, errOut, code := runApp(t, ctx, "", "seed", "--uri", uri, "--plan", plan, "--seed", "1", "--quiet")
		if code != ExitUsage || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "--plan") {
			t.Errorf("%s: exit %d\n%s\n%s\nwant %q", c.indexes, code, out, errOut, c.want)
		}
	}
	names, err := client.Database("bad").ListCollectionNames(ctx, bson.D{})
	if err != nil || len(names) != 0 {
		t.Errorf("collections written: %v %v", names, err)
	}
}

// An index of the collection with the plan's name and another definition
// stops seed before anything is written, naming both; nothing is dropped.
// With --drop the collection goes, and its indexes with it.
func TestSeedIndexConflict(t *testing.T) {
	uri, client, ctx := startServer(t)
	coll := client.Database("c").Collection("users")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	plan := writePlan(t, `{"db": "c", "collections": [{"name": "users", "kind": "user", "count": 10, "indexes": [{"key": {"email": 1}, "unique": true}]}]}`)
	out, errOut, code := runApp(t, ctx, "", "seed", "--uri", uri, "--plan", plan, "--seed", "1", "--quiet")
	if code != ExitFailure || !strings.Contains(errOut, `index "email_1" on c.users: the collection has {"key":{"email":1},"name":"email_1"}, wanted {"key":{"email":1},"name":"email_1","unique":true}`) || !strings.Contains(errOut, "nothing was written") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if n, _ := coll.CountDocuments(ctx, bson.D{}); n != 0 {
		t.Errorf("%d documents written", n)
	}
	if got := serverIndexes(t, ctx, coll)["email_1"]; strings.Contains(got, "unique") {
		t.Errorf("the index changed: %s", got)
	}
	out, errOut, code = runApp(t, ctx, "", "seed", "--uri", uri, "--plan", plan, "--seed", "1", "--quiet", "--drop")
	if code != ExitOK || !strings.Contains(serverIndexes(t, ctx, coll)["email_1"], "unique") {
		t.Fatalf("--drop: exit %d\n%s\n%s\n%v", code, out, errOut, serverIndexes(t, ctx, coll))
	}
}

// The embedded server refuses a text index: seed says so before writing anything,
// naming the index and the server's reason, and exits 1; the scratch
// collection it tried the index on is gone.
func TestSeedIndexRefusedByServer(t *testing.T) {
	uri, client, ctx := startServer(t)
	plan := writePlan(t, `{"db": "r", "collections": [{"name": "users", "kind": "user", "count": 10, "indexes": [{"key": {"email": "text"}}]}]}`)
	out, errOut, code := runApp(t, ctx, "", "seed", "--uri", uri, "--plan", plan, "--seed", "1", "--quiet")
	if code != ExitFailure || !strings.Contains(errOut, `index "email_text" on r.users: the server refused {"key":{"email":"text"},"name":"email_text"}: CannotCreateIndex: index type 'text' is not supported`) || !strings.Contains(errOut, "; nothing was written") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("%s", errOut)
	if names, _ := client.Database("r").ListCollectionNames(ctx, bson.D{}); len(names) != 0 {
		t.Errorf("collections left: %v", names)
	}
}

// fixtures writes the plan's indexes as sidecars; load reads them (the
// parts of a collection share one) and creates the indexes before the
// documents; verify db --fixture checks them.
func TestFixturesLoadIndexes(t *testing.T) {
	uri, client, ctx := startServer(t)
	dir := t.TempDir()
	out, errOut, code := runApp(t, ctx, "", "fixtures", "--plan", "shop", "-n", "50", "--seed", "2", "--out", dir, "--quiet")
	if code != ExitOK || !strings.Contains(out, filepath.Join(dir, "users.metadata.json")+": 2 indexes: email_1, username_1") {
		t.Fatalf("fixtures: exit %d\n%s\n%s", code, out, errOut)
	}
	p, _ := seed.BuiltinPlan("shop", 50)
	for _, cs := range p.Collections {
		list, err := indexes.ReadSidecar(filepath.Join(dir, cs.Name+".metadata.json"))
		if err != nil || len(list) != len(cs.Indexes) {
			t.Fatalf("%s sidecar: %v %v", cs.Name, list, err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	files = append(files, filepath.Join(dir, "users.ndjson"), filepath.Join(dir, "products.ndjson"), filepath.Join(dir, "orders.ndjson"))
	out, errOut, code = runApp(t, ctx, "", append([]string{"load", "--uri", uri, "--db", "fx", "--quiet"}, files...)...)
	if code != ExitOK || !strings.Contains(out, "fx.users: 2 indexes: email_1, username_1 (from ") {
		t.Fatalf("load: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, cs := range p.Collections {
		if problems, err := indexes.Check(ctx, client.Database("fx").Collection(cs.Name), cs.Indexes); err != nil || len(problems) != 0 {
			t.Errorf("%s after load: %v %v", cs.Name, problems, err)
		}
	}
	if names, _ := client.Database("fx").ListCollectionNames(ctx, bson.D{}); len(names) != 3 {
		t.Errorf("collections %v: a sidecar was loaded as documents?", names)
	}
	out, errOut, code = runApp(t, ctx, "", "verify", "db", "--uri", uri, "--db", "fx", "--fixture", filepath.Join(dir, "users.ndjson"), "--quiet")
	if code != ExitOK || !strings.Contains(out, "users: indexes (key and options)") {
		t.Fatalf("verify db --fixture: exit %d\n%s\n%s", code, out, errOut)
	}

	// Parts share their collection's sidecar.
	pdir := t.TempDir()
	for _, part := range []string{"0/2", "1/2"} {
		if _, errOut, code := runApp(t, ctx, "", "fixtures", "--plan", "shop", "-n", "20", "--seed", "2", "--out", pdir, "--part", part, "--quiet"); code != ExitOK {
			t.Fatalf("fixtures --part %s: %s", part, errOut)
		}
	}
	parts, _ := filepath.Glob(filepath.Join(pdir, "users.part-*"))
	out, errOut, code = runApp(t, ctx, "", append([]string{"load", "--uri", uri, "--db", "parts", "--quiet"}, parts...)...)
	if code != ExitOK || len(parts) != 2 || !strings.Contains(out, "parts.users: 2 indexes") {
		t.Fatalf("load parts %v: exit %d\n%s\n%s", parts, code, out, errOut)
	}
}

// A bad sidecar is bad input: exit 2 naming the file and the value, and
// nothing is written. A unique index the file's documents collide in stops
// the load naming the document and counting what was written.
func TestLoadSidecarErrors(t *testing.T) {
	uri, client, ctx := startServer(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "people.ndjson")
	if err := os.WriteFile(data, []byte("{\"_id\":1,\"k\":\"a\"}\n{\"_id\":2,\"k\":\"b\"}\n{\"_id\":3,\"k\":\"a\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	side := filepath.Join(dir, "people.metadata.json")
	for body, want := range map[string]string{
		`{"indexes":[{"v":2,"key":{"k":0},"name":"k_0"}]}`:              `people.metadata.json: indexes[0]: invalid index "k_0": key.k 0: expected 1`,
		`{"indexes":[{"v":2,"key":{"k":1},"name":"k_1","unique":"x"}]}`: `indexes[0]: invalid index "k_1": unique "x": expected true or false`,
		`{"options":{"capped":true},"indexes":[]}`:                      `options: {"capped":true}: collection options are not created by oidkit`,
		`{"indexes":[{"key":{"k":1}},{"key":{"j":1},"name":"k_1"}]}`:    `name "k_1": indexes 0 and 1 have this name`,
		`not json`: `people.metadata.json: invalid character`,
	} {
		if err := os.WriteFile(side, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runApp(t, ctx, "", "load", "--uri", uri, "--db", "sc", "--quiet", data)
		if code != ExitUsage || !strings.Contains(errOut, want) || !strings.Contains(errOut, side) || !strings.Contains(errOut, "nothing was loaded") {
			t.Errorf("%s: exit %d\n%s\n%s\nwant %q", body, code, out, errOut, want)
		}
	}
	if names, _ := client.Database("sc").ListCollectionNames(ctx, bson.D{}); len(names) != 0 {
		t.Errorf("written: %v", names)
	}

	if err := os.WriteFile(side, []byte(`{"indexes":[{"v":2,"key":{"k":1},"name":"k_1","unique":true}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runApp(t, ctx, "", "load", "--uri", uri, "--db", "sc", "--quiet", "--batch", "1", data)
	// A key twice under a unique index of the sidecar is bad input found
	// before writing (it used to be written up to the second one).
	if code != ExitUsage || !strings.Contains(errOut, data+":3: unique index k_1: key \"a\" already at "+data+":1") || !strings.Contains(errOut, "nothing was loaded") {
		t.Fatalf("duplicate under a unique index: exit %d\n%s\n%s", code, out, errOut)
	}
	if n, _ := client.Database("sc").Collection("people").CountDocuments(ctx, bson.D{}); n != 0 {
		t.Errorf("%d documents stored; want none", n)
	}
}

// load stops before writing when the collection has a sidecar's index
// name with another definition, naming both; --dry-run checks the sidecar
// and reports its indexes without creating them.
func TestLoadIndexConflictAndDryRun(t *testing.T) {
	uri, client, ctx := startServer(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "people.ndjson")
	side := filepath.Join(dir, "people.metadata.json")
	if err := os.WriteFile(data, []byte("{\"_id\":1,\"k\":\"a\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(side, []byte(`{"indexes":[{"v":2,"key":{"_id":1},"name":"_id_"},{"v":2,"key":{"k":1},"name":"k_1","unique":true}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runApp(t, ctx, "", "load", "--uri", uri, "--db", "d", "--dry-run", data)
	if code != ExitOK || !strings.Contains(out, "d.people: index k_1 valid (from "+side+")") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, errOut)
	}
	if names, _ := client.Database("d").ListCollectionNames(ctx, bson.D{}); len(names) != 0 {
		t.Errorf("dry run wrote %v", names)
	}
	coll := client.Database("d").Collection("people")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runApp(t, ctx, "", "load", "--uri", uri, "--db", "d", "--quiet", data)
	if code != ExitFailure || !strings.Contains(errOut, `index "k_1" on d.people: the collection has {"key":{"k":1},"name":"k_1"}, wanted {"key":{"k":1},"name":"k_1","unique":true}`) || !strings.Contains(errOut, "nothing was written") {
		t.Fatalf("conflict: exit %d\n%s\n%s", code, out, errOut)
	}
	if n, _ := coll.CountDocuments(ctx, bson.D{}); n != 0 {
		t.Errorf("%d documents written", n)
	}
	out, errOut, code = runApp(t, ctx, "", "load", "--uri", uri, "--db", "d", "--quiet", "--drop", data)
	if code != ExitOK || !strings.Contains(serverIndexes(t, ctx, coll)["k_1"], "unique") {
		t.Fatalf("--drop: exit %d\n%s\n%s", code, out, errOut)
	}
}

// A sidecar index the server refuses (the embedded one: text) stops load before the
// drop: the collection keeps its documents, exit 1 naming the index.
func TestLoadRefusedIndexBeforeDrop(t *testing.T) {
	uri, client, ctx := startServer(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "events.ndjson")
	if err := os.WriteFile(data, []byte("{\"_id\":1,\"at\":{\"$date\":\"2024-01-01T00:00:00Z\"}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "events.metadata.json"), []byte(`{"indexes":[{"v":2,"key":{"at":"text"},"name":"at_text"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	coll := client.Database("e").Collection("events")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "kept"}}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runApp(t, ctx, "", "load", "--uri", uri, "--db", "e", "--quiet", "--drop", data)
	if code != ExitFailure || !strings.Contains(errOut, `index "at_text" on e.events: the server refused`) || !strings.Contains(errOut, `index type 'text' is not supported`) ||
		!strings.Contains(errOut, "nothing was written") || strings.Contains(errOut, ".go:") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if n, _ := coll.CountDocuments(ctx, bson.D{{Key: "_id", Value: "kept"}}); n != 1 {
		t.Error("the collection was dropped")
	}
	if names, _ := client.Database("e").ListCollectionNames(ctx, bson.D{}); len(names) != 1 {
		t.Errorf("collections %v: the scratch collection is left", names)
	}
}
