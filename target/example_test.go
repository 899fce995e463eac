package target_test

import (
	"context"
	"fmt"
	"os"

	"github.com/oidkit/oidkit/target"
)

// Open the embedded server over a data directory (or a MongoDB server, with
// URI set), and ask once what it stores and can do.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "oidkit-target-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	t, err := target.Open(ctx, target.Options{DataDir: dir, Timeout: target.DefaultTimeout})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Close()
	profile, err := t.Profile(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.Embedded, profile.Name(), profile.IsFerretDB())
	// Output: true MongoDB false
}
