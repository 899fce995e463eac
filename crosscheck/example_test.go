package crosscheck_test

import (
	"fmt"

	"github.com/oidkit/oidkit/crosscheck"
)

// A program checks oid against both drivers and reads the outcome from the
// report; WriteTable or WriteJSON prints it as oidkit verify ids does.
func ExampleIDs() {
	rep := crosscheck.IDs(crosscheck.IDsOptions{N: 1000, Seed: 7, Workers: 1})
	fmt.Println(rep.OK(), len(rep.Rows) > len(crosscheck.Differences()))
	// Output: true true
}
