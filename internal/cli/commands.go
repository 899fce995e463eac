package cli

import ucli "github.com/urfave/cli/v2"

// commands lists every command, each built by its own constructor.
func (a *App) commands() []*ucli.Command {
	return []*ucli.Command{}
}
