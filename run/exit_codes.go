package run

// Every error type of this package has an ExitCode: the exit status a
// command line gives it, 2 when what was asked for cannot be done as given
// (a plan that cannot be rebuilt, documents the target refuses, keys the
// plan repeats, flags that describe another run), 1 for a failure at run
// time (the server, a run already written or stopped, one not finished).
const (
	exitFailure = 1
	exitInput   = 2
)

// ExitCode is 1 for a failure reading the run manifests, 2 otherwise.
func (e *StepError) ExitCode() int {
	if e.Step == StepRead {
		return exitFailure
	}
	return exitInput
}

// ExitCode is 2: the plan describes another run (or its stored references
// changed since).
func (e *OtherRunError) ExitCode() int { return exitInput }

// ExitCode is 2: each part is resumed by its own writer.
func (e *PartMismatchError) ExitCode() int { return exitInput }

// ExitCode is 1: the run is not finished.
func (e *PartsError) ExitCode() int { return exitFailure }
