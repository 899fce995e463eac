package cli

import (
	"errors"
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/embedded"
	"github.com/oidkit/oidkit/internal/message"
)

func (a *App) serverCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "server",
		Usage:     "run the embedded MongoDB-compatible server on a port",
		UsageText: "oidkit server [--listen 127.0.0.1:27017] [--data-dir DIR]",
		Description: "Exposes the embedded server (oidkit's own, MongoDB 8.0's protocol) over --data-dir so that\n" +
			"any MongoDB client can look at seeded data. Prints the connection string, then\n" +
			"runs until SIGINT or SIGTERM. It presents a one-node replica set (transactions\n" +
			"work); in a container, listen on 0.0.0.0:27017 and connect from outside with\n" +
			"directConnection=true, since the node names its own address.",
		Flags: []ucli.Flag{
			listenFlag(envListen, "127.0.0.1:27017", "TCP address `host:port` to listen on"),
			dataDirFlag("data directory"),
		},
		Action: a.runServer,
	}
}

func (a *App) runServer(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("server: unexpected argument %q; see oidkit server --help", c.Args().First())
	}
	ctx := c.Context
	dir, listen := c.String(flagDataDir), c.String(flagListen)
	if err := checkListenAddr("", listen, "host:port such as 127.0.0.1:27017 or 0.0.0.0:27017"); err != nil {
		return err
	}
	srv, err := embedded.Start(embedded.Options{DataDir: dir, Listen: listen})
	switch le := lockedBy(err); {
	case errors.Is(err, embedded.ErrListen):
		return failuref("%s %q: %v", arg(flagListen), listen, err)
	case le != nil:
		return failure(lockedMessage(le))
	case err != nil:
		return failuref("server: %v", err)
	}
	fmt.Fprintf(a.stdout, "%s\n", srv.URI())
	a.say(message.Note, "server listening on %s, data in %s; it runs until Ctrl-C or SIGTERM", srv.Addr(), dir)
	select {
	case <-ctx.Done():
		_ = srv.Close()
		a.say(message.Note, "server stopped")
		return nil
	case <-srv.Done():
		return failuref("server on %s stopped unexpectedly", srv.Addr())
	}
}
