package cli

import ucli "github.com/urfave/cli/v2"

func (a *App) inspectCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "inspect",
		Usage: "(being built)",
		Action: func(*ucli.Context) error {
			return failuref("inspect: not built yet")
		},
	}
}
