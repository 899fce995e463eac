package cli

import (
	ucli "github.com/urfave/cli/v2"
)

// commands lists every command, each built by its own constructor in its own
// file. The aliases are the names people guess first for a command (shown in
// help beside its name); they live here, with the list, so that a command's
// file never needs to know them.
func (a *App) commands() []*ucli.Command {
	return []*ucli.Command{
		withAliases(a.genCommand(), "generate"),
		withAliases(a.inspectCommand(), "decode"),
		a.rangeCommand(),
		a.seedCommand(),
		a.fixturesCommand(),
		a.exportCommand(),
		a.inferCommand(),
		a.compareCommand(),
		withAliases(a.loadCommand(), "import"),
		a.verifyCommand(),
		a.serverCommand(),
		a.webCommand(),
		a.auditCommand(),
		a.cacheCommand(),
	}
}

// withAliases gives c the other names it answers to.
func withAliases(c *ucli.Command, aliases ...string) *ucli.Command {
	c.Aliases = append(c.Aliases, aliases...)
	return c
}

// The subcommands of verify, and audit, which people look for under verify:
// 'oidkit verify' alone is told these, and its help says them.
const (
	verifyIDsDoes = "'oidkit verify ids' checks package oid against the official driver"
	verifyDBDoes  = "'oidkit verify db' checks a collection against the flags or fixture files that wrote it"
	auditDoes     = "to check the _ids a collection already holds (made by any program), run 'oidkit audit'"
)

// verifyCommand groups the verification subcommands.
func (a *App) verifyCommand() *ucli.Command {
	return &ucli.Command{
		Name:        "verify",
		Usage:       "prove IDs and stored documents are exactly right (existing _ids: see audit)",
		UsageText:   "oidkit verify ids [flags] | oidkit verify db [flags]",
		Description: verifyIDsDoes + ";\n" + verifyDBDoes + ";\n" + auditDoes + ".",
		Subcommands: []*ucli.Command{
			a.verifyIDsCommand(),
			a.verifyDBCommand(),
		},
		Action: func(c *ucli.Context) error {
			if c.Args().Present() {
				a.commandNotFound(c, c.Args().First())
				return nil
			}
			return usageErrorf("verify: expected a subcommand: %s; %s; %s", verifyIDsDoes, verifyDBDoes, auditDoes)
		},
	}
}
