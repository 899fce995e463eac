package cli

import (
	"fmt"
	"net"
	"strconv"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/internal/web"
)

const defaultWebListen = "127.0.0.1:8080"

func (a *App) webCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "web",
		Usage: "serve the browser ObjectID generator and decoder",
		Description: "Serves a page that generates 1-100 ObjectIDs in the browser, decodes an ID, and builds\n" +
			"\"created between\" filters. The page is embedded in the binary: no network access, no database.\n" +
			"Stop with Ctrl+C (SIGINT) or SIGTERM.",
		Flags: []ucli.Flag{
			listenFlag(envWebListen, defaultWebListen, "`HOST:PORT` to listen on (port 0 picks a free port)"),
		},
		Action: a.runWeb,
	}
}

func (a *App) runWeb(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("web: unexpected argument %q; the only option is %s HOST:PORT", c.Args().First(), arg(flagListen))
	}
	addr := c.String(flagListen)
	if err := checkListenAddr("web: ", addr, "HOST:PORT such as "+defaultWebListen+" or :8080"); err != nil {
		return err
	}

	ctx := c.Context
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return failuref("web: %s %q: %v", arg(flagListen), addr, err)
	}
	fmt.Fprintf(a.stdout, "oidkit web: serving on %s (Ctrl+C to stop)\n", web.PageURL(ln.Addr()))
	if err := web.Serve(ctx, ln); err != nil {
		return failuref("web: %v", err)
	}
	fmt.Fprintln(a.stdout, "oidkit web: stopped")
	return nil
}

// checkListenAddr refuses an address that cannot be a TCP listen address
// before trying it, so a typo is a usage error (exit 2) and a busy port a
// run-time failure (exit 1). prefix starts each message; example is what a
// good one looks like.
func checkListenAddr(prefix, addr, example string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErrorf("%s%s %q: expected %s", prefix, arg(flagListen), addr, example)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		if _, lerr := net.LookupPort("tcp", port); lerr != nil {
			return usageErrorf("%s%s %q: port %q: expected a number from 0 to 65535", prefix, arg(flagListen), addr, port)
		}
	}
	return nil
}
