// Command oidkit generates, decodes and verifies MongoDB ObjectIDs, and seeds
// databases and fixture files with realistic mock documents.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/oidkit/oidkit/internal/cli"
	"github.com/oidkit/oidkit/internal/runtimetune"
)

func main() {
	runtimetune.Apply() // the embedded server runs in this process
	os.Exit(run())
}

// run is main without os.Exit, so that stop runs. The first SIGINT or
// SIGTERM cancels the commands, which stop cleanly; the signals are then
// released, so that a second one ends the process the usual way.
func run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	return cli.NewApp(os.Stdin, os.Stdout, os.Stderr).RunContext(ctx, os.Args)
}
