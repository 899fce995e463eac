package seed

// Every error type of this package that a command line meets has an
// ExitCode: the exit status it gives it, 2 when what was asked for cannot be
// done as given (a setting, a plan, a template, a part, a stored reference
// with nothing to draw from, a run this oidkit cannot rebuild, a document
// the target's rules refuse), 1 for a failure at run time.
const (
	exitFailure = 1
	exitInput   = 2
)

// ExitCode is 2: the setting cannot be used.
func (e *OptionError) ExitCode() int { return exitInput }

// ExitCode is 2: the plan cannot be used.
func (e *PlanError) ExitCode() int { return exitInput }

// ExitCode is 2: the template cannot be used.
func (e *TemplateError) ExitCode() int { return exitInput }

// ExitCode is 2: every document of the collection would be refused.
func (e *ShapeError) ExitCode() int { return exitInput }

// ExitCode is 2: the reference has nothing to draw from.
func (e *StoredRefError) ExitCode() int { return exitInput }
