package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// infer on a templated collection → seed the plan → compare: close, and
// the source untouched; bad input exits 2 and writes nothing.
func TestInferSeedCompareThroughCommands(t *testing.T) {
	uri, client, ctx := startServer(t)
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "members.json")
	if err := os.WriteFile(tmpl, []byte(`{"plan": "{weighted:[free,pro],[3,1]}", "age": "{normalint:40,10,18,90}", "email": "{firstname}.{index}@x.test"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "seed", "--uri", uri, "--db", "src", "--template", tmpl, "-n", "1500", "--seed", "3", "--span", "30d", "--collection", "members", "--quiet")
	plan := filepath.Join(dir, "plan.json")
	out := mustRun(t, "infer", "--uri", uri, "--db", "src", "--collection", "members", "--out", plan)
	for _, want := range []string{"members: inferred from 1500 of 1500 documents", "members.plan: kept 2 literal string values (free, pro)", "email, length"} {
		if !strings.Contains(out, want) {
			t.Errorf("infer output lacks %q:\n%s", want, out)
		}
	}
	mustRun(t, "seed", "--uri", uri, "--plan", plan, "--seed", "1", "--quiet")
	out = mustRun(t, "compare", "--uri", uri, "--db", "src", "--collection", "members", "--to-db", "src_copy")
	var sim float64
	if i := strings.LastIndex(out, "similarity "); i < 0 {
		t.Fatalf("compare output:\n%s", out)
	} else if _, err := fmt.Sscan(out[i+len("similarity "):], &sim); err != nil || sim < 0.95 {
		t.Errorf("similarity %v (%v), want >= 0.95:\n%s", sim, err, out)
	}
	if !strings.Contains(out, "arrays  repeats  distance") {
		t.Errorf("compare table lacks the repeats column before distance:\n%s", out)
	}
	// --json carries repeats per path: -1 for the unique email and the
	// categorical plan.
	var cmp struct {
		Fields []struct {
			Path    string   `json:"path"`
			Repeats *float64 `json:"repeats"`
		} `json:"fields"`
	}
	js := mustRun(t, "compare", "--uri", uri, "--db", "src", "--collection", "members", "--to-db", "src_copy", "--json")
	if err := json.Unmarshal([]byte(js), &cmp); err != nil || len(cmp.Fields) == 0 {
		t.Fatalf("compare --json: %v\n%s", err, js)
	}
	for _, f := range cmp.Fields {
		if f.Repeats == nil || ((f.Path == "email" || f.Path == "plan") && *f.Repeats != -1) {
			t.Errorf("compare --json: %s repeats %v, want present, -1 for email and plan", f.Path, f.Repeats)
		}
	}
	names, _ := client.Database("src").ListCollectionNames(ctx, bson.D{})
	if strings.Join(names, ",") != "members" && strings.Join(names, ",") != "members,oidkit_runs" && strings.Join(names, ",") != "oidkit_runs,members" {
		t.Errorf("source collections after infer and compare: %v", names)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"infer", "--uri", uri, "--db", "src", "--collection", "nosuch"}, `collection "nosuch": no such collection in database src`},
		{[]string{"infer", "--uri", uri, "--db", "src", "--collection", "members", "--sample", "0"}, "--sample 0: expected a sample of at least 1 document"},
		{[]string{"infer", "--uri", uri, "--db", "src"}, "expected at least one --collection C"},
		{[]string{"compare", "--uri", uri, "--db", "src", "--collection", "members"}, "against itself"},
	} {
		o, e, code := runApp(t, ctx, "", tc.args...)
		if code != ExitUsage || !strings.Contains(e, tc.want) || o != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 saying %q", tc.args[:5], code, o, e, tc.want)
		}
	}
	if err := client.Database("src").CreateCollection(ctx, "empty"); err != nil {
		t.Fatal(err)
	}
	if _, e, code := runApp(t, ctx, "", "infer", "--uri", uri, "--db", "src", "--collection", "empty"); code != ExitUsage || !strings.Contains(e, "no documents") {
		t.Errorf("empty collection: exit %d, %q", code, e)
	}
	n, _ := client.Database("src").Collection("members").CountDocuments(ctx, bson.D{})
	if n != 1500 {
		t.Errorf("the source holds %d documents after infer, want 1500", n)
	}
}

// A plan inferred from three collections runs with -n: every count scaled
// in the source's proportions, references resolving and skewed as there;
// seeded, its documents are the same bytes on every run.
func TestInferredPlanScalesAndRepeats(t *testing.T) {
	uri, client, ctx := startServer(t)
	mustRun(t, "seed", "--uri", uri, "--db", "shop", "--plan", "shop", "-n", "400", "--seed", "5", "--quiet")
	plan := filepath.Join(t.TempDir(), "plan.json")
	mustRun(t, "infer", "--uri", uri, "--db", "shop", "--collection", "users", "--collection", "products", "--collection", "orders", "--out", plan)
	data, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"perTarget"`, `"times"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the inferred plan lacks %s:\n%s", want, data)
		}
	}
	digest := func(db string) string {
		var b strings.Builder
		for _, name := range []string{"users", "products", "orders"} {
			cur, err := client.Database(db).Collection(name).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
			if err != nil {
				t.Fatal(err)
			}
			for cur.Next(ctx) {
				fmt.Fprintf(&b, "%x\n", []byte(cur.Current))
			}
			_ = cur.Close(ctx)
		}
		return b.String()
	}
	for _, db := range []string{"a", "b"} {
		mustRun(t, "seed", "--uri", uri, "--plan", plan, "--db", db, "-n", "100", "--seed", "1", "--quiet")
	}
	if a, b := digest("a"), digest("b"); a != b || a == "" {
		t.Errorf("the same plan and seed wrote different documents (%d and %d bytes of hex)", len(a), len(b))
	}
	for name, want := range map[string]int64{"users": 100, "products": 10, "orders": 300} {
		if n, err := client.Database("a").Collection(name).CountDocuments(ctx, bson.D{}); err != nil || n != want {
			t.Errorf("%s: %d documents (%v) with -n 100, want %d (the source's 400:40:1200)", name, n, err, want)
		}
	}
	// The orders' userIds resolve and keep the source's skew: the busiest
	// tenth of the users place the same share of the orders.
	top := func(db string, users int) float64 {
		cur, err := client.Database(db).Collection("orders").Aggregate(ctx, bson.A{
			bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$userId"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
			bson.D{{Key: "$sort", Value: bson.D{{Key: "n", Value: -1}}}}})
		if err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			ID any   `bson:"_id"`
			N  int64 `bson:"n"`
		}
		if err := cur.All(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		var all, part int64
		for k, r := range rows {
			all += r.N
			if k < users/10 {
				part += r.N
			}
		}
		return float64(part) / float64(all)
	}
	src, cp := top("shop", 400), top("a", 100)
	t.Logf("busiest tenth of the users: %.3f of the source's orders, %.3f of the copy's", src, cp)
	if d := src - cp; d > 0.05 || d < -0.05 || src < 0.4 {
		t.Errorf("the busiest tenth of the users place %.3f of the copy's orders, %.3f of the source's", cp, src)
	}
	ids := map[any]bool{}
	cur, _ := client.Database("a").Collection("users").Find(ctx, bson.D{})
	for cur.Next(ctx) {
		ids[fmt.Sprint(cur.Current.Lookup("_id"))] = true
	}
	cur, _ = client.Database("a").Collection("orders").Find(ctx, bson.D{})
	for cur.Next(ctx) {
		if !ids[fmt.Sprint(cur.Current.Lookup("userId"))] {
			t.Fatalf("order %v: userId %v is no user of the copy", cur.Current.Lookup("_id"), cur.Current.Lookup("userId"))
		}
	}
}
