package cli

import ucli "github.com/urfave/cli/v2"

func (a *App) loadCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "load",
		Usage: "(being built)",
		Action: func(*ucli.Context) error {
			return failuref("load: not built yet")
		},
	}
}
