package audit_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/audit"
	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/fixtures"
)

// Audit the _id values of a collection, as oidkit audit --collection
// events does: only the _id field is read.
func ExampleAuditor_ScanCollection() {
	dir, _ := os.MkdirTemp("", "audit")
	defer os.RemoveAll(dir)
	s, err := embedded.Start(embedded.Options{DataDir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	ctx := context.Background()
	client, _ := mongo.Connect(options.Client().ApplyURI(s.URI()))
	defer client.Disconnect(ctx)
	events := client.Database("app").Collection("events")
	at := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	var docs []any
	for i := range 5 {
		docs = append(docs, bson.D{{Key: "_id", Value: bson.NewObjectIDFromTimestamp(at.Add(time.Duration(i) * time.Minute))}})
	}
	if _, err := events.InsertMany(ctx, docs); err != nil {
		fmt.Println(err)
		return
	}

	au := audit.New(audit.Options{})
	n, err := au.ScanCollection(ctx, events, audit.Fields{ID: "_id"}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep := au.Report()
	fmt.Println(n, "values;", rep.Types[0].Kind, rep.Types[0].Count)
	fmt.Println(rep.Time.First.UTC(), "to", rep.Time.Last.UTC())
	// Output:
	// 5 values; objectId 5
	// 2024-03-01 12:00:00 +0000 UTC to 2024-03-01 12:04:00 +0000 UTC
}

// Audit the _id values of a fixture file, as oidkit audit users.ndjson
// does.
func ExampleAuditor_AddDoc() {
	dir, _ := os.MkdirTemp("", "audit")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "users.ndjson")
	_ = os.WriteFile(path, []byte(strings.Join([]string{
		`{"_id":{"$oid":"65e1c3c0a1b2c3d4e5000001"},"name":"Ada"}`,
		`{"_id":{"$oid":"65e1c3fca1b2c3d4e5000002"},"name":"Grace"}`,
	}, "\n")+"\n"), 0o644)

	f, _ := os.Open(path)
	defer f.Close()
	au := audit.New(audit.Options{})
	r := fixtures.NewReader(f, path)
	for {
		d, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		au.AddDoc(d.Raw, audit.Fields{ID: "_id"})
	}
	rep := au.Report()
	fmt.Println(rep.Total, "values;", rep.Types[0].Kind, rep.Types[0].Count)
	fmt.Println(rep.Writers.Tracked, "writer;", rep.Time.First, "to", rep.Time.Last)
	// Output:
	// 2 values; objectId 2
	// 1 writer; 2024-03-01 12:02:08 +0000 UTC to 2024-03-01 12:03:08 +0000 UTC
}
