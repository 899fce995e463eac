package cli

import ucli "github.com/urfave/cli/v2"

func (a *App) verifyDBCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "db",
		Usage: "(being built)",
		Action: func(*ucli.Context) error {
			return failuref("db: not built yet")
		},
	}
}
