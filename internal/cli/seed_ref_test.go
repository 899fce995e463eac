package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/run"
)

// storedIDSet is the _ids of coll, as map keys.
func storedIDSet(t *testing.T, coll *mongo.Collection) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, raw := range collectionBytes(t, coll) {
		out[bson.Raw(raw).Lookup("_id").String()] = true
	}
	return out
}

// fieldValues is field of every document of coll, in _id order.
func fieldValues(t *testing.T, coll *mongo.Collection, field string) []string {
	t.Helper()
	var out []string
	for _, raw := range collectionBytes(t, coll) {
		out = append(out, bson.Raw(raw).Lookup(field).String())
	}
	return out
}

// Users in one run, orders in another: with --ref every order's userId is
// a stored user's _id, the same flags make the same orders, verify db
// says all of them resolve, a resume keeps drawing from the same users
// and refuses once they changed, and verify db reports the share left
// after users are deleted.
func TestSeedRefToStoredUsers(t *testing.T) {
	uri, client := mongotest.Start(t)
	ctx := t.Context()
	for _, db := range []string{"a", "b"} {
		mustSeed(t, "--uri", uri, "--db", db, "--kind", "user", "-n", "100", "--seed", "5")
		mustSeed(t, "--uri", uri, "--db", db, "--kind", "order", "-n", "300", "--seed", "5", "--ref", "userId=users")
	}
	users := storedIDSet(t, client.Database("a").Collection("users"))
	refs := fieldValues(t, client.Database("a").Collection("orders"), "userId")
	if len(refs) != 300 {
		t.Fatalf("%d orders", len(refs))
	}
	distinct := map[string]bool{}
	for i, v := range refs {
		if !users[v] {
			t.Fatalf("order %d: userId %s is no stored user", i, v)
		}
		distinct[v] = true
	}
	if len(distinct) < 20 {
		t.Errorf("300 orders refer to %d users only", len(distinct))
	}
	a, b := collectionBytes(t, client.Database("a").Collection("orders")), collectionBytes(t, client.Database("b").Collection("orders"))
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("order %d differs between two runs of the same flags:\n%v\n%v", i, bson.Raw(a[i]), bson.Raw(b[i]))
		}
	}

	// The manifest records the reference and what it drew from.
	man, err := mongowrite.ReadManifest(ctx, client.Database("a"), "orders")
	if err != nil {
		t.Fatal(err)
	}
	m, err := run.Record(man)
	if err != nil {
		t.Fatal(err)
	}
	var stored bool
	for _, s := range m.Specs {
		for _, r := range s.Refs {
			if r.Field == "userId" && r.To == "users" && r.Stored {
				stored = true
			}
		}
		if s.Name == "users" {
			t.Errorf("manifest plan keeps the generated users the stored reference replaced: %+v", m.Specs)
		}
	}
	if !stored || len(m.Stored) != 1 || m.Stored[0].Collection != "users" || m.Stored[0].Count != 100 {
		t.Fatalf("manifest: refs %+v, stored %+v", m.Specs, m.Stored)
	}

	out, errOut, code := runApp(t, ctx, "", "verify", "db", "--uri", uri, "--db", "a", "--collection", "orders", "--quiet")
	if code != ExitOK || !strings.Contains(out, "orders.userId: 300 of 300 resolve to users") {
		t.Fatalf("verify db: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runApp(t, ctx, "", "seed", "--uri", uri, "--db", "a", "--resume", "--collection", "orders", "--quiet")
	if code != ExitOK || !strings.Contains(out, "inserted 0, skipped 300") {
		t.Fatalf("resume: exit %d\n%s%s", code, out, errOut)
	}

	// Some users go: the orders no longer all resolve.
	res, err := client.Database("a").Collection("users").DeleteMany(ctx, bson.D{{Key: "username", Value: bson.D{{Key: "$lt", Value: "m"}}}})
	if err != nil || res.DeletedCount == 0 {
		t.Fatalf("delete users: %v, %+v", err, res)
	}
	out, errOut, code = runApp(t, ctx, "", "verify", "db", "--uri", uri, "--db", "a", "--collection", "orders", "--quiet")
	share := regexp.MustCompile(`orders\.userId: (\d+) of 300 resolve to users`).FindStringSubmatch(out)
	if code != ExitFailure || share == nil {
		t.Fatalf("verify db after deleting users: exit %d\n%s%s", code, out, errOut)
	}
	if n, _ := strconv.Atoi(share[1]); n >= 300 || n == 0 {
		t.Errorf("after deleting %d users: %s of 300 resolve", res.DeletedCount, share[1])
	}
	if !strings.Contains(out, "users (100 _ids then, "+strconv.FormatInt(100-res.DeletedCount, 10)+" _ids now)") {
		t.Errorf("verify db does not say the stored users changed:\n%s", out)
	}
	_, errOut, code = runApp(t, ctx, "", "seed", "--uri", uri, "--db", "a", "--resume", "--collection", "orders", "--quiet")
	if code != ExitUsage || !strings.Contains(errOut, "--resume") || !strings.Contains(errOut, "cannot be continued") {
		t.Fatalf("resume after the users changed: exit %d\n%s", code, errOut)
	}
}

// A reference that resolves to nothing is bad usage, before anything is
// written: a missing or empty collection, a field the kind does not
// refer with.
func TestSeedRefRefused(t *testing.T) {
	uri, client := mongotest.Start(t)
	ctx := t.Context()
	if err := client.Database("r").CreateCollection(ctx, "empty"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--kind", "order", "--ref", "userId=users"}, []string{`--ref "userId=users"`, "r.users holds no documents", "nothing was written"}},
		{[]string{"--kind", "order", "--ref", "userId=empty"}, []string{`--ref "userId=empty"`, "r.empty holds no documents"}},
		{[]string{"--kind", "order", "--ref", "buyer=users"}, []string{`--ref "buyer=users"`, `no written collection has a reference "buyer"`, "userId, productIds"}},
		{[]string{"--kind", "user", "--ref", "userId=users"}, []string{`--ref "userId=users"`, "users (kind user) has no reference fields"}},
		{[]string{"--kind", "order", "--ref", "userId"}, []string{`--ref "userId"`, "expected FIELD=COLLECTION"}},
	}
	for _, c := range cases {
		_, errOut, code := runApp(t, ctx, "", append([]string{"seed", "--uri", uri, "--db", "r", "-n", "10", "--seed", "1", "--quiet"}, c.args...)...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, expected %d\n%s", c.args, code, ExitUsage, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: message %q does not say %q", c.args, errOut, w)
			}
		}
	}
	names, err := client.Database("r").ListCollectionNames(ctx, bson.D{})
	if err != nil || len(names) != 1 || names[0] != "empty" {
		t.Fatalf("collections after the refused runs: %v, %v", names, err)
	}
}

// A plan file's reference to stored documents, with its skew: PerTarget
// [0, 0, 0, 1] sends every reference to a quarter of the stored users.
func TestSeedRefPlanFileStored(t *testing.T) {
	uri, client := mongotest.Start(t)
	dir := t.TempDir()
	plan := filepath.Join(dir, "reviews.json")
	if err := os.WriteFile(plan, []byte(`{"db": "p", "collections": [{"name": "reviews", "count": 400,
		"template": {"userId": "", "stars": "{number:1,5}"},
		"refs": [{"field": "userId", "to": "users", "stored": true, "perTarget": [0, 0, 0, 1]}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mustSeed(t, "--uri", uri, "--db", "p", "--kind", "user", "-n", "100", "--seed", "2", "--id", "uuid")
	mustSeed(t, "--uri", uri, "--plan", plan, "--seed", "2")
	users := storedIDSet(t, client.Database("p").Collection("users"))
	got := map[string]int{}
	for i, v := range fieldValues(t, client.Database("p").Collection("reviews"), "userId") {
		if !users[v] {
			t.Fatalf("review %d: userId %s is no stored user", i, v)
		}
		got[v]++
	}
	if len(got) > 25 || len(got) < 15 {
		t.Errorf("perTarget [0 0 0 1]: 400 reviews refer to %d of 100 users, expected about 25", len(got))
	}
	out, errOut, code := runApp(t, t.Context(), "", "verify", "db", "--uri", uri, "--db", "p", "--collection", "reviews", "--quiet")
	if code != ExitOK || !strings.Contains(out, "reviews.userId: 400 of 400 resolve to users") {
		t.Fatalf("verify db: exit %d\n%s%s", code, out, errOut)
	}
	// A plan that writes the collection it says is stored is refused.
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{"collections": [{"name": "users", "kind": "user", "count": 3},
		{"name": "orders", "kind": "order", "count": 3, "refs": [{"field": "userId", "to": "users", "stored": true}]}]}`), 0o644)
	_, errOut, code = runApp(t, t.Context(), "", "seed", "--uri", uri, "--db", "q", "--plan", bad, "--seed", "1", "--quiet")
	if code != ExitUsage || !strings.Contains(errOut, "which this plan writes") {
		t.Fatalf("stored reference to a written collection: exit %d\n%s", code, errOut)
	}
}

// The shop plan takes an _id strategy per collection; one strategy for
// all of them is refused, saying the form expected.
func TestSeedShopIDPerCollection(t *testing.T) {
	uri, client := mongotest.Start(t)
	ctx := t.Context()
	mustSeed(t, "--uri", uri, "--db", "s", "--plan", "shop", "-n", "30", "--seed", "4", "--id", "users=field:email", "--id", "products=int")
	db := client.Database("s")
	emails := map[string]bool{}
	for _, raw := range collectionBytes(t, db.Collection("users")) {
		d := bson.Raw(raw)
		if d.Lookup("_id").StringValue() != d.Lookup("email").StringValue() {
			t.Fatalf("user %v: _id is not its email", d)
		}
		emails[d.Lookup("_id").StringValue()] = true
	}
	for _, raw := range collectionBytes(t, db.Collection("products")) {
		if id := bson.Raw(raw).Lookup("_id"); id.Type != bson.TypeInt32 {
			t.Fatalf("product _id %v: expected an int", id)
		}
	}
	for i, raw := range collectionBytes(t, db.Collection("orders")) {
		if u := bson.Raw(raw).Lookup("userId"); !emails[u.StringValue()] {
			t.Fatalf("order %d: userId %v is no user's email", i, u)
		}
	}
	out, errOut, code := runApp(t, ctx, "", "verify", "db", "--uri", uri, "--db", "s", "--quiet")
	if code != ExitOK {
		t.Fatalf("verify db: exit %d\n%s%s", code, out, errOut)
	}
	for _, c := range []struct{ id, want string }{
		{"field:email", `--id "field:email": a plan has several collections; expected COLLECTION=STRATEGY`},
		{"people=int", `plan "shop" has no collection "people"; expected one of users, products, orders`},
		{"users=serial", `--id "users=serial"`},
	} {
		_, errOut, code := runApp(t, ctx, "", "seed", "--uri", uri, "--db", "s2", "--plan", "shop", "-n", "3", "--id", c.id, "--quiet")
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("--id %s: exit %d\n%s", c.id, code, errOut)
		}
	}
	// For one kind, --id STRATEGY means what it did, and NAME=STRATEGY names that collection.
	mustSeed(t, "--uri", uri, "--db", "s3", "--kind", "user", "-n", "3", "--id", "users=int")
	if id := bson.Raw(collectionBytes(t, client.Database("s3").Collection("users"))[0]).Lookup("_id"); id.Type != bson.TypeInt32 {
		t.Errorf("--id users=int: _id %v", id)
	}
}
