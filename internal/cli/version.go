package cli

import (
	"fmt"
	"runtime/debug"

	ucli "github.com/urfave/cli/v2"

	"github.com/oidkit/oidkit/internal/buildinfo"
)

// flagVersion is the root flag --version; the command version prints the
// same.
const flagVersion = "version"

func (a *App) versionCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "version",
		Usage:     "print the version, commit, Go version and the driver versions (as --version)",
		UsageText: "oidkit version   (or oidkit --version)",
		Action:    a.runVersion,
	}
}

func (a *App) runVersion(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("version: unexpected argument %q; expected no arguments", c.Args().First())
	}
	bi, _ := debug.ReadBuildInfo()
	if _, err := fmt.Fprint(a.stdout, buildinfo.Format(bi)); err != nil {
		return failuref("version: writing output: %w", err)
	}
	return nil
}
