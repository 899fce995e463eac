package mongowrite

import "errors"

// ExitCode is the exit status a command line gives the stopped write: its
// cause's, when the cause says it (a document the target's rules refuse
// is bad input, 2), else 1, a failure at run time.
func (e *WriteError) ExitCode() int {
	var c interface{ ExitCode() int }
	if errors.As(e.Err, &c) {
		return c.ExitCode()
	}
	return 1
}

// ExitCode is 1: the server failed the operation.
func (e *CollectionError) ExitCode() int { return 1 }

// ExitCode is 2: the input repeats a key.
func (e *UniqueInputError) ExitCode() int { return 2 }

// ExitCode is 1: stored documents hold the keys.
func (e *UniqueClashError) ExitCode() int { return 1 }
