package gotest

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/oidkittest"
	"github.com/oidkit/oidkit/seed"
)

//go:embed testdata
var testdata embed.FS

// shop is the built-in plan of users, products and orders with their
// references and indexes, seeded.
func shop(t *testing.T) *seed.Plan {
	plan, err := seed.BuiltinPlan("shop", 200)
	if err != nil {
		t.Fatal(err)
	}
	plan.Seed, plan.Seeded = 7, true
	return plan
}

// Parallel tests each get their own copy of one plan: a write in one is
// seen by none of the others.
func TestParallelSeeded(t *testing.T) {
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			db := oidkittest.New(t, oidkittest.WithPlan(shop(t)))
			users := db.Collection("users")
			if _, err := users.InsertOne(t.Context(), bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "writer", Value: i}}); err != nil {
				t.Fatal(err)
			}
			n, err := users.CountDocuments(t.Context(), bson.D{})
			if err != nil || n != 201 {
				t.Fatalf("users: %d documents, %v; want the plan's 200 and this test's one", n, err)
			}
			others, err := users.CountDocuments(t.Context(), bson.D{{Key: "writer", Value: bson.D{{Key: "$ne", Value: i}, {Key: "$exists", Value: true}}}})
			if err != nil || others != 0 {
				t.Fatalf("users written by other tests: %d, %v; want 0", others, err)
			}
		})
	}
}

// Fixtures from an embed.FS, with the index sidecar next to them.
func TestFixturesFromEmbed(t *testing.T) {
	t.Parallel()
	db := oidkittest.New(t, oidkittest.WithFixtures(testdata, "testdata/*.ndjson", "testdata/*.json"))
	var ada bson.M
	if err := db.Collection("people").FindOne(t.Context(), bson.D{{Key: "name", Value: "Ada"}}).Decode(&ada); err != nil {
		t.Fatal(err)
	}
	_, err := db.Collection("people").InsertOne(t.Context(), bson.D{{Key: "name", Value: "Eve"}, {Key: "email", Value: "ada@example.com"}})
	if !mongo.IsDuplicateKeyError(err) {
		t.Fatalf("insert of a taken email: %v; want a duplicate key error from the sidecar's unique index", err)
	}
	if n, err := db.Collection("stock").CountDocuments(t.Context(), bson.D{}); err != nil || n != 2 {
		t.Fatalf("stock: %d documents, %v; want 2", n, err)
	}
	oidkittest.Verify(t, db)
}

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	failed bool
	msgs   []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) Failed() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.failed }

// Verify catches one changed field of one document, and says which.
func TestVerifyCatchesChange(t *testing.T) {
	t.Parallel()
	db := oidkittest.New(t, oidkittest.WithPlan(shop(t)))
	oidkittest.Verify(t, db) // as New left it: passes
	_, err := db.Collection("orders").UpdateOne(t.Context(), bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: "tampered"}}}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{TB: t}
	oidkittest.Verify(rec, db)
	if !rec.Failed() {
		t.Fatal("Verify passed a database with a changed document")
	}
	if msg := strings.Join(rec.msgs, "\n"); !strings.Contains(msg, "orders") || !strings.Contains(msg, "status") {
		t.Fatalf("Verify's report does not name the collection and field:\n%s", msg)
	}
}

// Code that connects by itself gets the URI and the database name.
func TestConnectByURI(t *testing.T) {
	t.Parallel()
	db := oidkittest.New(t, oidkittest.WithFixtures(testdata, "testdata/people.ndjson"))
	client, err := mongo.Connect(options.Client().ApplyURI(oidkittest.URI(db)))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(t.Context())
	n, err := client.Database(oidkittest.DBName(db)).Collection("people").CountDocuments(t.Context(), bson.D{})
	if err != nil || n != 2 {
		t.Fatalf("people through its own client: %d, %v; want 2", n, err)
	}
}

// The README's example is this package's readme_test.go, byte for byte.
func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	block := "```go\n" + string(src) + "```\n"
	if !bytes.Contains(readme, []byte(block)) {
		t.Fatalf("README.md has no ```go block equal to examples/gotest/readme_test.go:\n%s", src)
	}
}
