package verify

// The exit status a command line gives a fixture file, or an index sidecar
// beside it, that cannot serve as expected content: 2, bad input.
const exitInput = 2

// ExitCode is 2: the file cannot serve as expected content.
func (e *FileError) ExitCode() int { return exitInput }

// ExitCode is 2: the sidecar cannot be read.
func (e *SidecarError) ExitCode() int { return exitInput }
