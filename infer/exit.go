package infer

// ExitCode is 2, the exit status a command line gives a collection that
// cannot be profiled: bad input.
func (e *InputError) ExitCode() int { return 2 }
