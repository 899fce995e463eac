package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/seed"
)

// Command lines of mongoimport's and mongoexport's documentation, typed as
// they are there with only the host and port made the test server's --uri,
// do what those tools do.
func TestMongoToolsInvocations(t *testing.T) {
	uri, client, ctx := startServer(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	contacts := write("contacts.json", `{"_id":1,"name":"Ann","age":34,"city":"Oslo"}
{"_id":2,"name":"Bob","age":28}
{"_id":3,"name":"Cid","age":41}
`)
	array := write("array.json", `[{"_id":"a","n":1},{"_id":"b","n":2}]`)
	changed := write("changed.json", `{"_id":1,"name":"Ann","age":35}
{"_id":4,"name":"Dee","age":30}
`)
	run := func(stdin string, args ...string) (string, string) {
		t.Helper()
		out, errOut, code := runApp(t, ctx, stdin, append(args, "--uri="+uri)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
		return out, errOut
	}
	count := func(db, coll string) int64 {
		t.Helper()
		n, err := client.Database(db).Collection(coll).CountDocuments(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	get := func(db, coll string, id any) bson.M {
		t.Helper()
		var m bson.M
		if err := client.Database(db).Collection(coll).FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&m); err != nil {
			t.Fatalf("%s.%s _id %v: %v", db, coll, id, err)
		}
		return m
	}

	// mongoimport --db=users --collection=contacts --file=contacts.json
	run("", "import", "--db=users", "--collection=contacts", "--file="+contacts)
	if n := count("users", "contacts"); n != 3 {
		t.Fatalf("--file: %d documents, want 3", n)
	}
	// mongoimport --db=users --collection=contacts --jsonArray --file=array.json
	run("", "import", "--db=users", "--collection=letters", "--jsonArray", "--file="+array)
	if n := count("users", "letters"); n != 2 {
		t.Fatalf("--jsonArray: %d documents, want 2", n)
	}
	// mongoimport -c=contacts -d=users --mode=upsert --file=changed.json:
	// the document with the same _id is replaced whole, a new one inserted.
	run("", "import", "-c=contacts", "-d=users", "--mode=upsert", "--file="+changed)
	if n := count("users", "contacts"); n != 4 {
		t.Fatalf("--mode upsert: %d documents, want 4", n)
	}
	if m := get("users", "contacts", 1); m["age"] != int32(35) || m["city"] != nil {
		t.Fatalf("--mode upsert: _id 1 is %v, want age 35 and no city (replaced)", m)
	}
	// mongoimport --db=users --collection=contacts --type=json --file=contacts.json --drop
	run("", "import", "--db=users", "--collection=contacts", "--type=json", "--file="+contacts, "--drop")
	if n, m := count("users", "contacts"), get("users", "contacts", 1); n != 3 || m["city"] != "Oslo" {
		t.Fatalf("--drop: %d documents, _id 1 %v; want 3 and the file's", n, m)
	}
	// mongoimport --collection=people --upsertFields=_id --file=changed.json
	// (upsert fields imply --mode upsert): twice, and nothing changes.
	for range 2 {
		run("", "import", "--collection=people", "--upsertFields=_id", "--file="+changed, "--numInsertionWorkers=4")
	}
	if n := count(seed.DefaultDB, "people"); n != 2 {
		t.Fatalf("--upsertFields _id: %d documents in %s.people, want 2", n, seed.DefaultDB)
	}
	// No file: standard input, without an explicit -.
	run(`{"_id":9,"from":"stdin"}`, "load", "-d", "users", "-c", "piped")
	if m := get("users", "piped", 9); m["from"] != "stdin" {
		t.Fatalf("stdin: %v", m)
	}

	// mongoexport --db=users --collection=contacts --out=contacts.out.json
	outFile := filepath.Join(dir, "contacts.out.json")
	run("", "export", "--db=users", "--collection=contacts", "--out="+outFile)
	if b, err := os.ReadFile(outFile); err != nil || strings.Count(string(b), "\n") != 3 || !strings.HasPrefix(string(b), `{"_id":1,`) {
		t.Fatalf("--out: %q %v; want 3 lines", b, err)
	}
	// mongoexport -d=users -c=contacts -q='{"age":{"$gte":30}}'
	out, _ := run("", "export", "-d=users", "-c=contacts", `-q={"age":{"$gte":30}}`)
	if strings.Count(out, "\n") != 2 || strings.Contains(out, "Bob") {
		t.Fatalf("-q: %q; want Ann and Cid", out)
	}
	out, _ = run("", "export", "--db=users", "--collection=contacts", `--query={"name":"Bob"}`)
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "Bob") {
		t.Fatalf("--query: %q; want Bob", out)
	}
	// mongoexport --db=users --collection=contacts --jsonArray --out=array.out.json
	arrOut := filepath.Join(dir, "array.out.json")
	run("", "export", "--db=users", "--collection=contacts", "--jsonArray", "--out="+arrOut)
	var docs []map[string]any
	if b, err := os.ReadFile(arrOut); err != nil || json.Unmarshal(b, &docs) != nil || len(docs) != 3 {
		t.Fatalf("--jsonArray: %q %v; want a JSON array of 3", b, err)
	}
	// --jsonFormat canonical writes {"$numberInt":...}; relaxed, plain numbers.
	canonical, _ := run("", "export", "--db=users", "--collection=contacts", "--jsonFormat=canonical")
	relaxed, _ := run("", "export", "--db=users", "--collection=contacts", "--jsonFormat=relaxed", "--type=json")
	if !strings.Contains(canonical, `"age":{"$numberInt":"34"}`) || !strings.Contains(relaxed, `"age":34`) || strings.Contains(relaxed, "$numberInt") {
		t.Fatalf("--jsonFormat:\ncanonical %q\nrelaxed %q", canonical, relaxed)
	}
	// mongoexport -d users -c contacts --sort '{"age":-1}' --limit 2
	out, _ = run("", "export", "-d", "users", "-c", "contacts", "--sort", `{"age":-1}`, "--limit", "2")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.Contains(lines[0], "Cid") || !strings.Contains(lines[1], "Ann") {
		t.Fatalf("--sort --limit: %q; want Cid then Ann", out)
	}
}

// The flags of mongoimport and mongoexport with no meaning here are
// refused by name with what to use instead (exit 2), nothing written; the
// names other tools use get a "did you mean".
func TestMongoToolsRefusals(t *testing.T) {
	uri, client, ctx := startServer(t)
	f := filepath.Join(t.TempDir(), "refused.json")
	if err := os.WriteFile(f, []byte(`{"_id":1,"email":"a@b.c"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"import", "--type=csv", "--headerline", "--file=" + f}, "--headerline has no meaning here"},
		{[]string{"import", "--type=csv", "--file=" + f}, `--type "csv": only Extended JSON is read and written; expected --type json`},
		{[]string{"import", "--mode=merge", "--file=" + f}, "--mode merge: a stored document is replaced whole"},
		{[]string{"import", "--mode=delete", "--file=" + f}, "--mode delete: load only writes"},
		{[]string{"import", "--upsertFields=email", "--file=" + f}, `--upsertFields "email": documents are matched by _id only`},
		{[]string{"import", "--upsertFields=_id", "--mode=insert", "--file=" + f}, "--upsertFields with --mode insert"},
		{[]string{"import", "--numInsertionWorkers=0", "--file=" + f}, "--numInsertionWorkers 0: expected 1 to 1024"},
		{[]string{"import", "--ssl", "--file=" + f}, "--ssl has no meaning here (it is mongoimport's): expected ?tls=true in --uri"},
		{[]string{"import", "--authenticationDatabase", "admin", "--file=" + f}, "expected ?authSource=DB in --uri"},
		{[]string{"import", "--database", "x", "--file=" + f}, "unknown flag --database; did you mean --db?"},
		{[]string{"import", "-c", "refused", "--drop"}, "--drop with standard input: expected files"},
		{[]string{"export", "-c", "refused", "--fields", "email"}, "--fields has no meaning here (it is mongoexport's)"},
		{[]string{"export", "-c", "refused", "--skip", "1"}, "--skip has no meaning here"},
		{[]string{"export", "-c", "refused", "--type=csv"}, `--type "csv"`},
		{[]string{"export", "-c", "refused", "--jsonFormat=shell"}, "shell"},
	}
	for _, c := range cases {
		out, errOut, code := runApp(t, ctx, "", append(c.args, "--uri="+uri)...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errOut, c.want)
		}
	}
	if n, err := client.Database(seed.DefaultDB).Collection("refused").CountDocuments(ctx, bson.D{}); err != nil || n != 0 {
		t.Errorf("refused imports wrote %d documents (%v)", n, err)
	}
	out, errOut, code := runApp(t, ctx, "", "server", "--port", "27018")
	if code != ExitUsage || !strings.Contains(errOut, "unknown flag --port; did you mean --listen?") {
		t.Errorf("server --port: exit %d, %q %q", code, out, errOut)
	}
}

// load with no file reads standard input, but not a terminal, where it
// would wait for typed documents.
func TestLoadNoFileOnTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	var out, errb strings.Builder
	code := NewApp(tty, &out, &errb).RunContext(t.Context(), []string{"oidkit", "load", "-c", "users", "--data-dir", t.TempDir()})
	if code != ExitUsage || !strings.Contains(errb.String(), "expected FILE arguments, --file FILE, or documents on standard input") {
		t.Errorf("load on a terminal: exit %d, stdout %q, stderr %q; want exit 2 saying what it expected", code, out.String(), errb.String())
	}
}
