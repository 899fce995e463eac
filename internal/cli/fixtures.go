package cli

import ucli "github.com/urfave/cli/v2"

func (a *App) fixturesCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "fixtures",
		Usage: "(being built)",
		Action: func(*ucli.Context) error {
			return failuref("fixtures: not built yet")
		},
	}
}
