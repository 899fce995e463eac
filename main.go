// Command oidkit generates, decodes and verifies MongoDB ObjectIDs, and seeds
// databases and fixture files with realistic mock documents.
package main

import (
	"os"

	"github.com/oidkit/oidkit/internal/cli"
	"github.com/oidkit/oidkit/internal/runtimetune"
)

func main() {
	runtimetune.Apply() // the embedded server runs in this process
	os.Exit(cli.NewApp(os.Stdin, os.Stdout, os.Stderr).Run(os.Args))
}
