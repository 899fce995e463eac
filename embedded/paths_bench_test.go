//go:build linux

package embedded

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/internal/runtimetune"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/run"
	"github.com/oidkit/oidkit/seed"
	"github.com/oidkit/oidkit/verify"
)

// benchDB is the database every path of BenchmarkPathsVsSQLite writes.
const benchDB = "bench"

// sqlitePragmas are the baseline's: a WAL journal synced at checkpoints,
// as durable against a killed process as the server's journal.
const sqlitePragmas = "_pragma=busy_timeout(10000)&_pragma=journal_mode(wal)&_pragma=synchronous(normal)"

// sqliteTable is one collection as the baseline stores it: a table keyed
// by the _id's BSON value with the document's BSON beside it.
type sqliteTable struct {
	name string
	rows [][2][]byte // _id value, document
}

// pathCost is one round of one path: the embedded command and SQLite's
// own work on the same rows, and how many documents both handled.
type pathCost struct {
	emb, base cost
	docs      int
}

// BenchmarkPathsVsSQLite runs, in one process and one round after the
// other, each command path on the embedded server beside modernc SQLite's
// own work on the same documents:
//
//   - seed-users, seed-employees, seed-shop: run.Seed (what `oidkit seed`
//     runs: generation, the checks of the server's profile, the inserters,
//     the run manifest, the plan's indexes after the documents) against a
//     prepared INSERT of the same documents (the run manifest's few among
//     them) as BSON, keyed by _id, in transactions of 1,000 (SQLite gets no
//     secondary index: the plan's indexes cost the server alone);
//   - load-users: fixtures.Load of an Extended JSON file of the users
//     against the same SQLite insert of the rows it stored;
//   - verify-users and export-users: verify.VerifyDB of the seeded users and
//     fixtures.ExportFile of them to a file, against SQLite's own read of
//     the rows (SELECT of the BSON column, every row scanned).
//
// Metrics are, per path, the median over rounds of the embedded rate over
// SQLite's, by wall clock and by CPU time (getrusage of the whole process);
// 1.0 would be SQLite's own speed. OIDKIT_BENCH_DOCS sets the documents
// per path (the shop plan gets a quarter as many users, about as many
// documents in all), OIDKIT_BENCH_PATH keeps the paths whose name holds it,
// and OIDKIT_BENCH_CPUPROFILE names a directory that gets a CPU profile of
// each path's embedded work alone (NAME.pprof, the last round's).
func BenchmarkPathsVsSQLite(b *testing.B) {
	n := benchDocs(b)
	defer debug.SetGCPercent(debug.SetGCPercent(runtimetune.GCPercent))
	users := func(kind string) func() *seed.Plan {
		return func() *seed.Plan {
			return &seed.Plan{DB: benchDB, Seed: 1, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: kind, Count: int64(n)}}}
		}
	}
	shop := func() *seed.Plan {
		p, err := seed.BuiltinPlan("shop", int64(n/4))
		if err != nil {
			b.Fatal(err)
		}
		p.DB, p.Seed, p.Seeded = benchDB, 1, true
		return p
	}
	fixture := writeFixture(b, users(seed.KindUser)(), n)
	type path struct {
		names []string // of the costs run returns, in order
		run   func(b *testing.B, base *[]sqliteTable) []pathCost
	}
	paths := []path{
		{[]string{"seed-users"}, seedPath("seed-users", users(seed.KindUser))},
		{[]string{"seed-employees"}, seedPath("seed-employees", users(seed.KindEmployee))},
		{[]string{"seed-shop"}, seedPath("seed-shop", shop)},
		{[]string{"load-users"}, loadPath(fixture, n)},
		{[]string{"verify-users", "export-users"}, readPaths(users(seed.KindUser))},
	}
	if only := os.Getenv("OIDKIT_BENCH_PATH"); only != "" {
		paths = slices.DeleteFunc(paths, func(p path) bool { return !strings.Contains(strings.Join(p.names, " "), only) })
		if len(paths) == 0 {
			b.Fatalf("OIDKIT_BENCH_PATH=%q: expected part of seed-users, seed-employees, seed-shop, load-users, verify-users or export-users", only)
		}
	}
	tables := make([][]sqliteTable, len(paths))
	results := map[string][]pathCost{}
	var order []string
	b.Logf("%d documents per path; /proc/loadavg %s", n, loadavg())
	for b.Loop() {
		for k, p := range paths {
			cs := p.run(b, &tables[k])
			labels := p.names
			for i, c := range cs {
				if len(results[labels[i]]) == 0 {
					order = append(order, labels[i])
				}
				results[labels[i]] = append(results[labels[i]], c)
				b.Logf("%s: %d docs; docs/s embedded %.0f, sqlite %.0f (%.2f); CPU µs/doc embedded %.1f, sqlite %.1f (%.2f); /proc/loadavg %s",
					labels[i], c.docs, c.emb.rate(c.docs), c.base.rate(c.docs), c.emb.rate(c.docs)/c.base.rate(c.docs),
					c.emb.cpuPer(c.docs), c.base.cpuPer(c.docs), c.base.cpuPer(c.docs)/c.emb.cpuPer(c.docs), loadavg())
			}
		}
	}
	for _, name := range order {
		rs := results[name]
		med := func(f func(pathCost) float64) float64 {
			xs := make([]float64, len(rs))
			for i, r := range rs {
				xs[i] = f(r)
			}
			slices.Sort(xs)
			return xs[len(xs)/2]
		}
		b.ReportMetric(med(func(c pathCost) float64 { return c.emb.rate(c.docs) / c.base.rate(c.docs) }), name+"/sqlite")
		b.ReportMetric(med(func(c pathCost) float64 { return c.base.cpuPer(c.docs) / c.emb.cpuPer(c.docs) }), name+"/sqlite-cpu")
		b.ReportMetric(med(func(c pathCost) float64 { return c.emb.cpuPer(c.docs) }), name+"-cpu-µs/doc")
		b.ReportMetric(med(func(c pathCost) float64 { return c.base.cpuPer(c.docs) }), name+"-sqlite-cpu-µs/doc")
	}
}

// benchServer starts a server over a fresh directory and connects to it;
// stop (which may be called again) disconnects and closes it.
func benchServer(b *testing.B) (dir string, cl *mongo.Client, stop func()) {
	b.Helper()
	dir = b.TempDir()
	s, err := Start(Options{DataDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	cl, err = mongo.Connect(options.Client().ApplyURI(s.URI()))
	if err != nil {
		_ = s.Close()
		b.Fatal(err)
	}
	var once sync.Once
	return dir, cl, func() {
		once.Do(func() {
			_ = cl.Disconnect(context.Background())
			_ = s.Close()
		})
	}
}

// seedPath is run.Seed of plan into a fresh server, then the same
// documents into SQLite itself; they are read back from the first round's
// server.
func seedPath(name string, plan func() *seed.Plan) func(*testing.B, *[]sqliteTable) []pathCost {
	return func(b *testing.B, base *[]sqliteTable) []pathCost {
		_, cl, stop := benchServer(b)
		defer stop()
		var res *run.Result
		var err error
		emb := profiled(b, name, func() {
			res, err = run.Seed(context.Background(), cl.Database(benchDB), plan(), run.Options{Profile: rules.MongoDB})
		})
		if err != nil {
			b.Fatal(err)
		}
		var want int64
		for _, c := range res.Dataset.Written() {
			want += c.Len()
		}
		if res.Inserted != want || want == 0 {
			b.Fatalf("seed inserted %d documents, the plan has %d", res.Inserted, want)
		}
		return []pathCost{{emb: emb, base: sqliteBaseline(b, base, cl), docs: int(res.Inserted)}}
	}
}

// loadPath is fixtures.Load of the file into a fresh server, then the same
// rows into SQLite itself.
func loadPath(file string, n int) func(*testing.B, *[]sqliteTable) []pathCost {
	return func(b *testing.B, base *[]sqliteTable) []pathCost {
		_, cl, stop := benchServer(b)
		defer stop()
		var res *fixtures.Result
		var err error
		emb := profiled(b, "load-users", func() {
			res, err = fixtures.Load(context.Background(), cl.Database(benchDB).Collection("users"),
				[]fixtures.Source{fixtures.FileSource(file)}, fixtures.LoadOptions{Profile: rules.MongoDB})
		})
		if err != nil {
			b.Fatal(err)
		}
		if t := res.Total(); t.Inserted != int64(n) {
			b.Fatalf("load inserted %d documents of %d", t.Inserted, n)
		}
		return []pathCost{{emb: emb, base: sqliteBaseline(b, base, cl), docs: n}}
	}
}

// readPaths seeds plan (not measured), then verifies it with
// verify.VerifyDB and exports it with fixtures.ExportFile, then reads the
// same documents back from a SQLite file holding them; both are against
// that one read.
func readPaths(plan func() *seed.Plan) func(*testing.B, *[]sqliteTable) []pathCost {
	return func(b *testing.B, _ *[]sqliteTable) []pathCost {
		ctx := context.Background()
		_, cl, stop := benchServer(b)
		defer stop()
		res, err := run.Seed(ctx, cl.Database(benchDB), plan(), run.Options{Profile: rules.MongoDB})
		if err != nil {
			b.Fatal(err)
		}
		set, err := run.ExpectDataset(ctx, res.Dataset, parts.Part{})
		if err != nil {
			b.Fatal(err)
		}
		var rep *verify.Report
		vc := profiled(b, "verify-users", func() { rep, err = verify.VerifyDB(ctx, cl, set, verify.DBOptions{Profile: rules.MongoDB}) })
		if err != nil {
			b.Fatal(err)
		}
		if !rep.OK() {
			b.Fatalf("verify db of what was just seeded failed: %+v", rep)
		}
		var exp *fixtures.ExportFileResult
		out := filepath.Join(b.TempDir(), "users.ndjson")
		ec := profiled(b, "export-users", func() {
			exp, err = fixtures.ExportFile(ctx, cl.Database(benchDB).Collection("users"), out, fixtures.ExportFileOptions{Export: fixtures.ExportOptions{Uncounted: true}})
		})
		if err != nil {
			b.Fatal(err)
		}
		if exp.Documents != res.Inserted {
			b.Fatalf("exported %d documents, seeded %d", exp.Documents, res.Inserted)
		}
		var tables []sqliteTable
		path := filepath.Join(b.TempDir(), "bench.sqlite")
		sqliteWrite(b, path, serverTables(b, cl, &tables))
		var rows int
		rc := measure(func() { rows = sqliteRead(b, path, "users") })
		if int64(rows) != res.Inserted {
			b.Fatalf("SQLite read %d rows of users, seeded %d", rows, res.Inserted)
		}
		return []pathCost{{emb: vc, base: rc, docs: rows}, {emb: ec, base: rc, docs: rows}}
	}
}

// sqliteBaseline writes the documents of *base (read from cl's server in
// the first round) into a fresh SQLite file and returns how long that took.
func sqliteBaseline(b *testing.B, base *[]sqliteTable, cl *mongo.Client) cost {
	b.Helper()
	tables := serverTables(b, cl, base)
	return sqliteWrite(b, filepath.Join(b.TempDir(), "bench.sqlite"), tables)
}

// serverTables reads every collection of benchDB from cl's server into
// *base, unless the first round did.
func serverTables(b *testing.B, cl *mongo.Client, base *[]sqliteTable) []sqliteTable {
	b.Helper()
	if *base != nil {
		return *base
	}
	ctx := context.Background()
	names, err := cl.Database(benchDB).ListCollectionNames(ctx, bson.D{})
	if err != nil {
		b.Fatal(err)
	}
	slices.Sort(names)
	for _, name := range names {
		cur, err := cl.Database(benchDB).Collection(name).Find(ctx, bson.D{})
		if err != nil {
			b.Fatal(err)
		}
		t := sqliteTable{name: name}
		for cur.Next(ctx) {
			doc := slices.Clone([]byte(cur.Current))
			t.rows = append(t.rows, [2][]byte{bson.Raw(doc).Lookup("_id").Value, doc})
		}
		if err := cur.Err(); err != nil {
			b.Fatal(err)
		}
		_ = cur.Close(ctx)
		*base = append(*base, t)
	}
	return *base
}

// sqliteWrite creates a table per collection at path and inserts its rows
// by a prepared INSERT in transactions of 1,000; the cost is the inserts'.
func sqliteWrite(b *testing.B, path string, tables []sqliteTable) cost {
	b.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?"+sqlitePragmas)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, t := range tables {
		if _, err := db.Exec(`CREATE TABLE "` + t.name + `" (id BLOB NOT NULL PRIMARY KEY, doc BLOB NOT NULL)`); err != nil {
			b.Fatal(err)
		}
	}
	return measure(func() {
		for _, t := range tables {
			for k := 0; k < len(t.rows); k += 1000 {
				tx, err := db.Begin()
				if err != nil {
					b.Fatal(err)
				}
				ins, err := tx.Prepare(`INSERT INTO "` + t.name + `" (id, doc) VALUES (?, ?)`)
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range t.rows[k:min(k+1000, len(t.rows))] {
					if _, err := ins.Exec(r[0], r[1]); err != nil {
						b.Fatal(err)
					}
				}
				_ = ins.Close()
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// sqliteRead reads every row of table in the SQLite file at path (its
// BSON column, in the table's order) and returns how many it read.
func sqliteRead(b *testing.B, path, table string) int {
	b.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	r, err := db.Query(`SELECT doc FROM "` + table + `"`)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var n int
	var row []byte
	for r.Next() {
		if err := r.Scan(&row); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}

// writeFixture writes the one collection of plan as an Extended JSON file
// (what `oidkit fixtures` writes) and returns its path.
func writeFixture(b *testing.B, plan *seed.Plan, n int) string {
	b.Helper()
	ds, err := plan.Build()
	if err != nil {
		b.Fatal(err)
	}
	col := ds.Collections()[0]
	path := filepath.Join(b.TempDir(), col.Name()+".ndjson")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := fixtures.NewWriter(f, fixtures.Options{})
	k, err := fixtures.WriteStream(w, col.Name(), col.Stream(context.Background(), seed.StreamOptions{}), nil)
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil || k != int64(n) {
		b.Fatalf("fixture of %d documents: wrote %d: %v", n, k, err)
	}
	return path
}

// profiled is measure, with a CPU profile of f written to
// $OIDKIT_BENCH_CPUPROFILE/name.pprof when that variable is set.
func profiled(b *testing.B, name string, f func()) cost {
	b.Helper()
	dir := os.Getenv("OIDKIT_BENCH_CPUPROFILE")
	if dir == "" {
		return measure(f)
	}
	out, err := os.Create(filepath.Join(dir, name+".pprof"))
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	if err := pprof.StartCPUProfile(out); err != nil {
		b.Fatal(err)
	}
	defer pprof.StopCPUProfile()
	return measure(f)
}
