package oidkittest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/oidkit/oidkit/oidkittest/tplcache"
	"github.com/oidkit/oidkit/rules"
)

// WithFixtures reads the files and their sidecars from their fs.FS, when
// the template is loaded and when Verify reads them: nothing is copied to
// the temporary directory, nor to the test binary's directory in it.
func TestFixturesReadFromTheirFSNotCopied(t *testing.T) {
	e := freshEmbedded(t)
	root, err := rootDir() // the binary's own, made before as by any New
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv(tplcache.ModeEnv, "off")
	fsys := fstest.MapFS{
		"testdata/fx/notes.ndjson":        {Data: []byte(`{"_id":1,"tag":"a"}` + "\n" + `{"_id":2,"tag":"b"}` + "\n")},
		"testdata/fx/notes.metadata.json": {Data: []byte(`{"indexes":[{"v":2,"key":{"_id":1},"name":"_id_"},{"v":2,"key":{"tag":1},"name":"tag_1","unique":true}]}`)},
		"testdata/fx/sub/later.json":      {Data: []byte(`[{"_id":"x"}]`)},
	}
	ct, err := newContent(&config{fixtures: []fixtureSet{{fsys: fsys, patterns: []string{"testdata/fx/*.ndjson", "testdata/fx/sub/*.json"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ct.collections(); len(got) != 2 || got[0] != "notes" || got[1] != "later" || len(ct.groups[0].Indexes) != 1 {
		t.Fatalf("collections %v, groups %+v; want notes (with tag_1) and later", got, ct.groups)
	}
	name, err := e.template(ct)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ct.verify(t.Context(), e.client.Database(name), rules.MongoDB)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		var b strings.Builder
		_ = rep.WriteTable(&b)
		t.Fatalf("the template of the fs.FS fails its verification:\n%s", b.String())
	}
	if ents, err := os.ReadDir(tmp); err != nil || len(ents) != 0 {
		t.Errorf("the temporary directory holds %v (%v); want nothing written", ents, err)
	}
	if m, _ := filepath.Glob(filepath.Join(root, "fixtures-*")); len(m) != 0 {
		t.Errorf("copies of fixture files: %v; want none", m)
	}
}

// A file missing from the fs.FS, or a sidecar it cannot use, is named as
// in the fs.FS.
func TestFixturesFSErrorsNameTheFile(t *testing.T) {
	fsys := fstest.MapFS{
		"d/a.ndjson":        {Data: []byte(`{"_id":1}` + "\n")},
		"d/a.metadata.json": {Data: []byte(`{"bogus":1}`)},
	}
	_, err := newContent(&config{fixtures: []fixtureSet{{fsys: fsys, patterns: []string{"d/a.ndjson"}}}})
	if err == nil || !strings.Contains(err.Error(), "WithFixtures: index sidecar d/a.metadata.json: ") {
		t.Errorf("bad sidecar: %v; want it named as in the fs.FS", err)
	}
}
