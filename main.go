// Command oidkit generates, decodes and verifies MongoDB ObjectIDs, and seeds
// databases and fixture files with realistic mock documents.
package main

import (
	"os"

	"github.com/oidkit/oidkit/internal/cli"
)

func main() {
	os.Exit(cli.NewApp(os.Stdin, os.Stdout, os.Stderr).Run(os.Args))
}
