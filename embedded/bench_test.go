//go:build linux

package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	_ "modernc.org/sqlite"

	"github.com/oidkit/oidkit/internal/runtimetune"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

// benchDocs is the number of users each variant of BenchmarkVsSQLite
// writes; OIDKIT_BENCH_DOCS overrides it.
func benchDocs(b *testing.B) int {
	if v := os.Getenv("OIDKIT_BENCH_DOCS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1000 {
			b.Fatalf("OIDKIT_BENCH_DOCS=%q: expected a number of at least 1000", v)
		}
		return n
	}
	return 100_000
}

// benchUsers is the collection of users the benchmarks write, and its size.
func benchUsers(b *testing.B) (int, *seed.Collection) {
	n := benchDocs(b)
	ds, err := (&seed.Plan{Seed: 1, Seeded: true, Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: int64(n)}}}).Build()
	if err != nil {
		b.Fatal(err)
	}
	return n, ds.Collection("users")
}

// benchVariant is one way of running the embedded server.
type benchVariant struct {
	name   string
	socket bool   // a Unix socket instead of loopback TCP
	pragma string // SQLite pragmas beyond FerretDB's defaults, for both sides
	gc     int    // GOGC during the variant, for both sides
	batch  int    // documents per InsertMany; 0 means seed.DefaultBatch
	// command sends the pre-marshalled documents as one insert command
	// (RunCommand) instead of InsertMany, which copies each document and
	// decodes its _id through a fresh 4 KB reader (the driver's ensureID).
	command bool
}

func (v benchVariant) opts(dir string) Options {
	return Options{DataDir: dir, socket: v.socket, sqliteQuery: strings.TrimPrefix(v.pragma, "&")}
}

// BenchmarkVsSQLite writes the same users three ways in turn, in one run so
// that the machine's load hits them alike: modernc SQLite itself (FerretDB's
// own rows, copied from a first embedded run, into a table with the same
// unique index on _id, a prepared INSERT, transactions of 1,000), the
// driver's InsertMany of the documents marshalled beforehand, and
// seed.Insert (generation included). Metrics are docs/s of each and the
// ratio of each embedded path to SQLite under the same pragmas.
func BenchmarkVsSQLite(b *testing.B) {
	n, col := benchUsers(b)
	pre := make([]any, n)
	var size int
	for i := range pre {
		raw, err := bson.Marshal(col.Doc(int64(i)))
		if err != nil {
			b.Fatal(err)
		}
		size += len(raw)
		pre[i] = bson.Raw(raw)
	}
	b.Logf("%d users, %.0f B of BSON each; /proc/loadavg %s", n, float64(size)/float64(n), loadavg())

	// FerretDB's rows and index, from a first embedded run.
	rows, ddl := ferretRows(b, pre)
	b.Logf("SQLite rows: %.0f B of JSON each", avgLen(rows))

	variants := benchVariants()
	type result struct{ base, drv, sd cost }
	results := make([][]result, len(variants))
	for b.Loop() {
		for k, v := range variants {
			var r result
			gc := debug.SetGCPercent(v.gc)
			r.base = sqliteInsert(b, rows, ddl, v.pragma)
			r.drv = embeddedInsert(b, v.opts, func(coll *mongo.Collection) error {
				if v.command {
					return insertCommand(coll, pre, v.batch)
				}
				return insertMany(coll, pre, v.batch)
			})
			r.sd = embeddedInsert(b, v.opts, func(coll *mongo.Collection) error {
				// As the command seeds the embedded server.
				_, err := seed.Insert(context.Background(), coll, col, seed.InsertOptions{Batch: v.batch, Workers: seed.WorkersFor(rules.FerretDB)})
				return err
			})
			debug.SetGCPercent(gc)
			results[k] = append(results[k], r)
			b.Logf("%s: docs/s sqlite %.0f, InsertMany %.0f (%.2f), seed %.0f (%.2f); CPU µs/doc sqlite %.1f, InsertMany %.1f (%.2f), seed %.1f (%.2f); /proc/loadavg %s",
				v.name, r.base.rate(n), r.drv.rate(n), r.drv.rate(n)/r.base.rate(n), r.sd.rate(n), r.sd.rate(n)/r.base.rate(n),
				r.base.cpuPer(n), r.drv.cpuPer(n), r.base.cpuPer(n)/r.drv.cpuPer(n), r.sd.cpuPer(n), r.base.cpuPer(n)/r.sd.cpuPer(n), loadavg())
		}
	}
	for k, v := range variants {
		med := func(f func(result) float64) float64 {
			xs := make([]float64, len(results[k]))
			for i, r := range results[k] {
				xs[i] = f(r)
			}
			slices.Sort(xs)
			return xs[len(xs)/2]
		}
		b.ReportMetric(med(func(r result) float64 { return r.drv.rate(n) / r.base.rate(n) }), v.name+"-insertmany/sqlite")
		b.ReportMetric(med(func(r result) float64 { return r.sd.rate(n) / r.base.rate(n) }), v.name+"-seed/sqlite")
		b.ReportMetric(med(func(r result) float64 { return r.base.cpuPer(n) / r.drv.cpuPer(n) }), v.name+"-insertmany/sqlite-cpu")
		b.ReportMetric(med(func(r result) float64 { return r.base.cpuPer(n) / r.sd.cpuPer(n) }), v.name+"-seed/sqlite-cpu")
	}
}

// benchVariants are the ways of running the embedded server the benchmarks
// compare; OIDKIT_BENCH_VARIANT keeps only those it names (a comma-separated
// list).
func benchVariants() []benchVariant {
	const (
		full   = "&_pragma=synchronous(full)"
		normal = "&" + SQLitePragmas
	)
	gc := runtimetune.GCPercent // what oidkit runs at
	variants := []benchVariant{
		{name: "tcp-full", pragma: full, gc: gc}, // before SQLitePragmas
		{name: "tcp-full-gc100", pragma: full, gc: 100},
		{name: "unix-full", socket: true, pragma: full, gc: gc},
		{name: "tcp", pragma: normal, gc: gc}, // the default
		{name: "unix", socket: true, pragma: normal, gc: gc},
		{name: "tcp-cache64m", pragma: normal + "&_pragma=cache_size(-65536)", gc: gc},
		{name: "tcp-batch5000", pragma: normal, gc: gc, batch: 5000},
		{name: "tcp-command", pragma: normal, gc: gc, command: true},
		{name: "tcp-ckpt10000", pragma: normal + "&_pragma=wal_autocheckpoint(10000)", gc: gc},
		{name: "tcp-gc800", pragma: normal, gc: 800},
	}
	if only := os.Getenv("OIDKIT_BENCH_VARIANT"); only != "" {
		names := strings.Split(only, ",")
		variants = slices.DeleteFunc(variants, func(v benchVariant) bool { return !slices.Contains(names, v.name) })
	}
	return variants
}

// BenchmarkSeed is seed.Insert of users into the embedded server alone, for
// a profile of that path (-cpuprofile, -memprofile): one variant per
// sub-benchmark, each iteration into a fresh data directory.
func BenchmarkSeed(b *testing.B) {
	n, col := benchUsers(b)
	for _, v := range benchVariants() {
		b.Run(v.name, func(b *testing.B) {
			var total cost
			defer debug.SetGCPercent(debug.SetGCPercent(v.gc))
			for b.Loop() {
				c := embeddedInsert(b, v.opts, func(coll *mongo.Collection) error {
					// As the command seeds the embedded server.
					_, err := seed.Insert(context.Background(), coll, col, seed.InsertOptions{Batch: v.batch, Workers: seed.WorkersFor(rules.FerretDB)})
					return err
				})
				total.wall += c.wall
				total.cpu += c.cpu
			}
			b.ReportMetric(float64(n*b.N)/total.wall.Seconds(), "docs/s")
			b.ReportMetric(float64(total.cpu.Microseconds())/float64(n*b.N), "cpu-µs/doc")
		})
	}
}

// cost is the wall-clock and CPU time (of the whole process: client,
// server and collector) of one write.
type cost struct{ wall, cpu time.Duration }

func (c cost) rate(n int) float64   { return float64(n) / c.wall.Seconds() }
func (c cost) cpuPer(n int) float64 { return float64(c.cpu.Microseconds()) / float64(n) }
func measure(f func()) cost {
	cpu0, t0 := cpuTime(), time.Now()
	f()
	return cost{time.Since(t0), cpuTime() - cpu0}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func loadavg() string {
	data, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(data))
}

func avgLen(rows []string) float64 {
	var t int
	for _, r := range rows {
		t += len(r)
	}
	return float64(t) / float64(len(rows))
}

// insertMany is the driver's InsertMany in batches of batch documents
// (0: seed.DefaultBatch).
func insertMany(coll *mongo.Collection, docs []any, batch int) error {
	if batch <= 0 {
		batch = seed.DefaultBatch
	}
	for k := 0; k < len(docs); k += batch {
		if _, err := coll.InsertMany(context.Background(), docs[k:min(k+batch, len(docs))]); err != nil {
			return err
		}
	}
	return nil
}

// insertCommand sends docs (each a bson.Raw) in insert commands of batch
// documents (0: seed.DefaultBatch), unordered, through RunCommand: the
// driver copies the command once and neither re-encodes nor inspects the
// documents. It fails unless the server reports every document inserted.
func insertCommand(coll *mongo.Collection, docs []any, batch int) error {
	if batch <= 0 {
		batch = seed.DefaultBatch
	}
	for k := 0; k < len(docs); k += batch {
		part := docs[k:min(k+batch, len(docs))]
		var reply struct {
			N           int64      `bson:"n"`
			WriteErrors []bson.Raw `bson:"writeErrors"`
		}
		err := coll.Database().RunCommand(context.Background(), bson.D{{Key: "insert", Value: coll.Name()}, {Key: "documents", Value: part}, {Key: "ordered", Value: false}}).Decode(&reply)
		if err != nil {
			return err
		}
		if reply.N != int64(len(part)) || len(reply.WriteErrors) > 0 {
			return fmt.Errorf("insert command: %d of %d inserted, write errors %v", reply.N, len(part), reply.WriteErrors)
		}
	}
	return nil
}

// embeddedInsert starts a server over a fresh directory, runs write against
// a collection and returns how long write took.
func embeddedInsert(b *testing.B, opts func(string) Options, write func(*mongo.Collection) error) cost {
	b.Helper()
	s, err := Start(opts(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	coll := c.Database("bench").Collection("users")
	if err := c.Database("bench").CreateCollection(context.Background(), "users"); err != nil {
		b.Fatal(err)
	}
	var err2 error
	c2 := measure(func() { err2 = write(coll) })
	if err2 != nil {
		b.Fatal(err2)
	}
	return c2
}

// ferretRows inserts docs into an embedded server and reads back the rows
// FerretDB stored and the statements that made its table and indexes.
func ferretRows(b *testing.B, docs []any) (rows, ddl []string) {
	b.Helper()
	dir := b.TempDir()
	s, err := Start(Options{DataDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	c, err := mongo.Connect(options.Client().ApplyURI(s.URI()))
	if err != nil {
		b.Fatal(err)
	}
	if err := insertMany(c.Database("bench").Collection("users"), docs, 0); err != nil {
		b.Fatal(err)
	}
	_ = c.Disconnect(context.Background())
	_ = s.Close()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "bench.sqlite")+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var table string
	if err := db.QueryRow(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\_ferretdb%' ESCAPE '\' AND name NOT LIKE 'sqlite%'`).Scan(&table); err != nil {
		b.Fatal(err)
	}
	q, err := db.Query(`SELECT sql FROM sqlite_master WHERE tbl_name = ? AND sql IS NOT NULL ORDER BY type DESC`, table)
	if err != nil {
		b.Fatal(err)
	}
	for q.Next() {
		var s string
		if err := q.Scan(&s); err != nil {
			b.Fatal(err)
		}
		ddl = append(ddl, strings.ReplaceAll(s, table, "users"))
	}
	if err := q.Err(); err != nil {
		b.Fatal(err)
	}
	r, err := db.Query(`SELECT _ferretdb_sjson FROM "` + table + `"`)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		var s string
		if err := r.Scan(&s); err != nil {
			b.Fatal(err)
		}
		rows = append(rows, s)
	}
	if len(rows) != len(docs) {
		b.Fatalf("read %d rows, want %d", len(rows), len(docs))
	}
	return rows, ddl
}

// sqliteInsert writes rows into a fresh SQLite file with FerretDB's default
// pragmas plus pragma (a query such as "&_pragma=synchronous(normal)"), by
// a prepared INSERT in transactions of 1,000, and returns how long it took.
func sqliteInsert(b *testing.B, rows, ddl []string, pragma string) cost {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.sqlite")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(wal)&_pragma=auto_vacuum(none)"+pragma)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range ddl {
		if _, err := db.Exec(s); err != nil {
			b.Fatalf("%s: %v", s, err)
		}
	}
	return measure(func() { sqliteWrite(b, db, rows) })
}

// sqliteWrite inserts rows into the users table (sqliteWriteTable).
func sqliteWrite(b *testing.B, db *sql.DB, rows []string) { sqliteWriteTable(b, db, "users", rows) }
