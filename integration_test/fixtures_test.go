package integration

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Scenario 2: fixtures → load → verify db --fixture passes; the documents
// read back are the generator's, byte for byte; load --mode upsert twice
// leaves the same data (and repairs a changed and a deleted document).
func TestFixturesLoadVerify(t *testing.T) {
	t.Parallel()
	if suite.stubs["fixtures"] || suite.stubs["load"] {
		t.Skip(`skipped: "fixtures" or "load" is not built yet`)
	}
	// Every case has more than 100 documents: a bulk of more than 100
	// replaces once made the upsert step hang on FerretDB.
	cases := []struct {
		name string
		g    gen
		opts []string // fixture format flags
		ext  string
	}{
		{"canonical_ndjson", gen{kind: "user", id: "objectid", n: 300, seed: 21, span: 48 * time.Hour}, []string{"--mode", "canonical"}, ".ndjson"},
		{"relaxed_array", gen{kind: "employee", id: "int", n: 200, seed: 22}, []string{"--mode", "relaxed", "--array"}, ".json"},
		{"relaxed_ndjson_uuid", gen{kind: "product", id: "uuid", n: 150, seed: 23}, nil, ".ndjson"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A server per case: a write the server is still busy with
			// after a failed case must not time out the next one. With
			// nothing else shared, the cases run side by side.
			t.Parallel()
			s := newServer(t)
			c := s.Client()
			g := tc.g
			g.db, g.coll = s.DB, tc.name
			dir := t.TempDir()
			file := filepath.Join(dir, tc.name+tc.ext)
			args := append(append([]string{"fixtures", "--quiet", "--out", file}, g.flags()...), tc.opts...)
			ok(t, args...)
			first, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("fixture file: %v", err)
			}
			// Same flags, same bytes.
			again := filepath.Join(dir, "again"+tc.ext)
			ok(t, append(append([]string{"fixtures", "--quiet", "--out", again}, g.flags()...), tc.opts...)...)
			if second, _ := os.ReadFile(again); !bytes.Equal(first, second) {
				t.Fatalf("two fixtures runs with the same flags differ")
			}
			want := expectCollection(t, g.dataset(t).Collection(g.coll))
			// The file itself holds the generator's documents.
			compareExact(t, want, parseFixture(t, file, first))

			load := []string{"load", "--uri", s.URI(), "--db", s.DB, "--quiet", "--timeout", "30s"}
			r := ok(t, append(load, file)...)
			coll := s.Coll(c, tc.name) // the collection is the file's base name
			compareExact(t, want, readAll(t, coll))
			verifyFixture(t, s, file, tc.name)

			// Break two documents, then upsert twice: both runs leave
			// exactly the fixture's documents.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			firstID, lastID := want.docs[want.order[0]].Lookup("_id"), want.docs[want.order[len(want.order)-1]].Lookup("_id")
			if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: firstID}}, bson.D{{Key: "$set", Value: bson.D{{Key: "tampered", Value: true}}}}); err != nil {
				t.Fatalf("update: %v", err)
			}
			if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: lastID}}); err != nil {
				t.Fatalf("delete: %v", err)
			}
			for i := 1; i <= 2; i++ {
				r = ok(t, append(load, "--mode", "upsert", file)...)
				got := readAll(t, coll)
				compareExact(t, want, got)
				if t.Failed() {
					t.Fatalf("after upsert run %d the collection differs from the fixture:\n%s", i, r)
				}
			}
			verifyFixture(t, s, file, tc.name)

			// A plain insert of the same file again finds every document
			// already there, byte for byte: nothing is written, and the
			// command says so (this is how an interrupted load is finished).
			r = run(t, 2*time.Minute, nil, append(load, file)...)
			if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("inserted 0, %d already there", len(want.docs))) {
				t.Fatalf("loading the same documents again with --mode insert should find them all there:\n%s", r)
			}
			compareExact(t, want, readAll(t, coll))
		})
	}
}

// The shop plan as one fixture file per collection, loaded together.
func TestFixturesShopPlan(t *testing.T) {
	t.Parallel()
	if suite.stubs["fixtures"] || suite.stubs["load"] {
		t.Skip(`skipped: "fixtures" or "load" is not built yet`)
	}
	s := newServer(t)
	c := s.Client()
	g := gen{db: s.DB, plan: "shop", n: 100, seed: 31}
	dir := t.TempDir()
	ok(t, append([]string{"fixtures", "--quiet", "--mode", "canonical", "--out", dir}, g.flags()...)...)
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if sidecars, _ := filepath.Glob(filepath.Join(dir, "*.metadata.json")); len(files) != 6 || len(sidecars) != 3 {
		t.Fatalf("fixtures --plan shop wrote %d files, want 6 (users, products, orders and their index sidecars): %v", len(files), files)
	}
	ok(t, append([]string{"load", "--uri", s.URI(), "--db", s.DB, "--quiet", "--timeout", "30s"}, files...)...)
	for _, col := range g.dataset(t).Written() {
		compareExact(t, expectCollection(t, col), readAll(t, s.Coll(c, col.Name())))
	}
	// And verify db, from the plan flags, agrees.
	verifyDB(t, s, g)
}

// parseFixture reads an NDJSON or array Extended JSON file with the driver.
func parseFixture(t *testing.T, name string, data []byte) []bson.Raw {
	t.Helper()
	var out []bson.Raw
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var arr []bson.Raw
		// Unmarshal the array as the value of a document field.
		var holder bson.Raw
		doc := append(append([]byte(`{"a":`), trimmed...), '}')
		if err := bson.UnmarshalExtJSON(doc, false, &holder); err != nil {
			t.Fatalf("%s: not an Extended JSON array: %v", name, err)
		}
		vals, err := holder.Lookup("a").Array().Values()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, v := range vals {
			arr = append(arr, v.Document())
		}
		return arr
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var d bson.Raw
		if err := bson.UnmarshalExtJSON(sc.Bytes(), false, &d); err != nil {
			t.Fatalf("%s:%d: not Extended JSON: %v", name, line, err)
		}
		out = append(out, d)
	}
	return out
}

func verifyFixture(t *testing.T, s *server, file, coll string) {
	t.Helper()
	if suite.stubs["verify db"] {
		return
	}
	r := run(t, 5*time.Minute, nil, "verify", "db", "--uri", s.URI(), "--timeout", "60s", "--db", s.DB, "--collection", coll, "--fixture", file)
	if r.code != 0 {
		t.Fatalf("verify db --fixture should pass:\n%s", r)
	}
}
