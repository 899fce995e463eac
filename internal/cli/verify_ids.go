package cli

import ucli "github.com/urfave/cli/v2"

func (a *App) verifyIDsCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "ids",
		Usage: "(being built)",
		Action: func(*ucli.Context) error {
			return failuref("ids: not built yet")
		},
	}
}
