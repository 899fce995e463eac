package verify

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/rules"
)

// A fixture set in an fs.FS (as an embed.FS of testdata holds one) is
// expected as the same files on disk: grouped by collection, with the
// indexes of the sidecar next to them in the fs.FS, and a database loaded
// from it passes; its errors name the files as in the fs.FS.
func TestExpectFixtureSetFromFS(t *testing.T) {
	fsys := fstest.MapFS{
		"dir/users.ndjson":        {Data: []byte(`{"_id":1,"email":"a@x"}` + "\n" + `{"_id":2,"email":"b@x"}` + "\n")},
		"dir/users.metadata.json": {Data: []byte(`{"indexes":[{"v":2,"key":{"_id":1},"name":"_id_"},{"v":2,"key":{"email":1},"name":"email_1","unique":true}]}`)},
		"dir/sub/orders.json":     {Data: []byte(`[{"_id":"o1"},{"_id":"o2"}]`)},
		"dir/bad/users.ndjson":    {Data: []byte(`{"_id":1}` + "\n\n" + `{"_id":2,"a":{"$numberInt":"x"}}` + "\n")},
	}
	files := []string{"dir/users.ndjson", "dir/sub/orders.json"}
	set, err := ExpectFixtureSet(t.Context(), "shop", files, FixtureSetOptions{FixtureOptions: FixtureOptions{FS: fsys}})
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != 2 || set[0].Collection != "users" || len(set[0].Indexes) != 1 || set[0].Indexes[0].Name != "email_1" || set[1].Collection != "orders" {
		t.Fatalf("set %+v, want users (with email_1 from the sidecar) then orders", set)
	}
	cl := startServer(t)
	loaded, err := fixtures.OpenSet(t.Context(), files, fixtures.OpenOptions{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fixtures.LoadAll(t.Context(), loaded.Targets(cl.Database("shop")), fixtures.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyDB(t.Context(), cl, ExpectedSet{Verify: set}, DBOptions{Profile: rules.MongoDB})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		var b strings.Builder
		_ = rep.WriteTable(&b)
		t.Fatalf("a load from the fs.FS fails its verification:\n%s", b.String())
	}

	_, err = ExpectFixtureSet(t.Context(), "shop", []string{"dir/bad/users.ndjson"}, FixtureSetOptions{FixtureOptions: FixtureOptions{FS: fsys}})
	var le *fixtures.LineError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "dir/bad/users.ndjson:3") {
		t.Errorf("bad document: %v; want a *fixtures.LineError at dir/bad/users.ndjson:3", err)
	}
	_, err = ExpectFixtureSet(t.Context(), "shop", []string{"dir/users.ndjson", "dir/missing.ndjson"}, FixtureSetOptions{FixtureOptions: FixtureOptions{FS: fsys}})
	var se *fixtures.SetError
	if !errors.As(err, &se) || se.Op != fixtures.OpStat || se.Path != "dir/missing.ndjson" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v; want a *fixtures.SetError naming dir/missing.ndjson", err)
	}
	if _, err := ExpectFixturesWith(t.Context(), "shop", "users", []string{"dir/gone.ndjson"}, FixtureOptions{FS: fsys}); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "dir/gone.ndjson") {
		t.Errorf("ExpectFixturesWith of a missing file: %v; want it named as in the fs.FS", err)
	}
}
