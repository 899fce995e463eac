package embedded_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/rules"
)

// Start the embedded server over a data directory, connect to it as to
// any MongoDB server, and ask once what it can do: the profile that
// seeding, loading and verifying take.
func ExampleStart() {
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
	defer srv.Close() // after the client is disconnected: deferred first, runs last

	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	defer client.Disconnect(ctx)

	profile, err := rules.Detect(ctx, client)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("server:", profile.Name())
	fmt.Println("one write at a time:", profile.SerialWrites())
	fmt.Println("$toDate:", profile.HasToDate(), "$sample:", profile.HasSample(), "Decimal128:", profile.StoresDecimal128())

	// A second server over the same directory is refused while this one runs.
	_, err = embedded.Start(embedded.Options{DataDir: dir})
	var le *embedded.LockedError
	fmt.Println("second server locked out:", errors.As(err, &le))
	// Output:
	// server: MongoDB
	// one write at a time: false
	// $toDate: true $sample: true Decimal128: true
	// second server locked out: true
}
