package target

// ExitCode is 2, the exit status a command line gives an option Open
// cannot use: bad input.
func (e *OptionError) ExitCode() int { return 2 }

// ExitCode is 1, the exit status a command line gives a server it could
// not use: a failure at run time.
func (e *ConnectError) ExitCode() int { return 1 }
