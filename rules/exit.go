package rules

// exitInput is the exit status a command line gives the errors of this
// package (their ExitCode method): what they refuse is bad input.
const exitInput = 2

// ExitCode is 2: the document is bad input for the target.
func (v *Violation) ExitCode() int { return exitInput }

// ExitCode is 2: the name cannot be used.
func (e *NameError) ExitCode() int { return exitInput }
