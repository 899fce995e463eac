package cli

import ucli "github.com/urfave/cli/v2"

func (a *App) genCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "gen",
		Usage: "(being built)",
		Action: func(*ucli.Context) error {
			return failuref("gen: not built yet")
		},
	}
}
