package cli

import (
	"flag"

	ucli "github.com/urfave/cli/v2"
)

// helpFlag is the library's --help, declared without writing to itself.
// The library applies its one help flag, a package variable, to the flag
// set of every app and command it parses, and its Apply records a default
// in the flag as it goes: two apps parsing at once (tests side by side, or
// a Go program running two) wrote to it together.
type helpFlag struct{ *ucli.BoolFlag }

// Apply declares the flag's names in set.
func (h helpFlag) Apply(set *flag.FlagSet) error {
	for _, name := range h.Names() {
		set.Bool(name, false, h.Usage)
	}
	return nil
}

// GetDefaultText is empty: help shows no default for --help.
func (h helpFlag) GetDefaultText() string { return "" }

func init() {
	if bf, ok := ucli.HelpFlag.(*ucli.BoolFlag); ok {
		ucli.HelpFlag = helpFlag{bf}
	}
}
