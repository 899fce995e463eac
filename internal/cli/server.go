package cli

import ucli "github.com/urfave/cli/v2"

func (a *App) serverCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "server",
		Usage: "(being built)",
		Action: func(*ucli.Context) error {
			return failuref("server: not built yet")
		},
	}
}
