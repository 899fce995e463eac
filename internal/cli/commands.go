package cli

import ucli "github.com/urfave/cli/v2"

// commands lists every command, each built by its own constructor in its own
// file.
func (a *App) commands() []*ucli.Command {
	return []*ucli.Command{
		a.genCommand(),
		a.inspectCommand(),
		a.rangeCommand(),
		a.seedCommand(),
		a.fixturesCommand(),
		a.exportCommand(),
		a.inferCommand(),
		a.compareCommand(),
		a.loadCommand(),
		a.verifyCommand(),
		a.serverCommand(),
		a.webCommand(),
		a.auditCommand(),
	}
}

// verifyCommand groups the verification subcommands.
func (a *App) verifyCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "verify",
		Usage: "prove IDs and stored documents are exactly right",
		Subcommands: []*ucli.Command{
			a.verifyIDsCommand(),
			a.verifyDBCommand(),
		},
	}
}
