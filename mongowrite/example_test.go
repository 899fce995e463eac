package mongowrite_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/mongowrite"
)

// Write a batch twice: with dupOK the second write reports the documents
// already stored by position; without it, the first duplicate stops the
// batch with a *WriteError naming the document and the server's code.
func ExampleInsertBatch() {
	dir, err := os.MkdirTemp("", "oidkit-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	srv, err := embedded.Start(embedded.Options{DataDir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	defer client.Disconnect(ctx)
	coll := client.Database("example").Collection("people")

	doc := func(id int, name string) bson.Raw {
		b, _ := bson.Marshal(bson.D{{Key: "_id", Value: id}, {Key: "name", Value: name}})
		return b
	}
	n, dups, err := mongowrite.InsertBatch(ctx, coll, []bson.Raw{doc(1, "Ada"), doc(2, "Grace")}, false)
	fmt.Println("first:", n, dups, err)

	n, dups, err = mongowrite.InsertBatch(ctx, coll, []bson.Raw{doc(2, "Grace"), doc(3, "Edsger")}, true)
	fmt.Println("again, duplicates allowed:", n, dups, err)

	_, _, err = mongowrite.InsertBatch(ctx, coll, []bson.Raw{doc(4, "Barbara"), doc(1, "Ada")}, false)
	var we *mongowrite.WriteError
	var server mongo.WriteError
	if errors.As(err, &we) && errors.As(err, &server) {
		fmt.Printf("stopped: wrote %d of %d, at %s, code %d\n", we.Written, we.Total, we.Doc, server.Code)
	}
	// Output:
	// first: 2 [] <nil>
	// again, duplicates allowed: 1 [0] <nil>
	// stopped: wrote 1 of 2, at document 1 (_id {"$numberInt":"1"}), code 11000
}
