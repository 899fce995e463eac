package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
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
