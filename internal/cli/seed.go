package cli

import ucli "github.com/urfave/cli/v2"

func (a *App) seedCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "seed",
		Usage: "(being built)",
		Action: func(*ucli.Context) error {
			return failuref("seed: not built yet")
		},
	}
}
