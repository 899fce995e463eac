package cli

import ucli "github.com/urfave/cli/v2"

func (a *App) rangeCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "range",
		Usage: "(being built)",
		Action: func(*ucli.Context) error {
			return failuref("range: not built yet")
		},
	}
}
