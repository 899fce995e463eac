package cli

import ucli "github.com/urfave/cli/v2"

func (a *App) webCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "web",
		Usage: "(being built)",
		Action: func(*ucli.Context) error {
			return failuref("web: not built yet")
		},
	}
}
