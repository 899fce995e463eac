package audit

import (
	"context"
	"errors"
	"io"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/internal/input"
)

// What a *FileError failed to do.
const (
	OpOpen = "open" // the file could not be opened
	OpDir  = "dir"  // the name is a directory
	OpRead = "read" // a document could not be read (Err is a *fixtures.LineError for a bad one)
)

// FileError is a fixture file ScanFiles could not audit.
type FileError struct {
	File string
	Op   string // OpOpen, OpDir or OpRead
	Err  error
}

func (e *FileError) Error() string { return e.File + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// ScanFiles adds every document of the fixture files to the audit (the
// fields f of each), in order. done, if not nil, is told how many
// documents were read now and then and at the end. Reading stops when ctx
// is done.
func (a *Auditor) ScanFiles(ctx context.Context, files []string, f Fields, done func(int64)) error {
	if done == nil {
		done = func(int64) {}
	}
	var n int64
	for _, name := range files {
		r, err := input.Open(ctx, name)
		if err != nil {
			return &FileError{File: name, Op: OpOpen, Err: err}
		}
		if fi, err := r.Stat(); err == nil && fi.IsDir() {
			r.Close()
			return &FileError{File: name, Op: OpDir, Err: errors.New("is a directory")}
		}
		err = a.scanFile(fixtures.NewReader(r, name), f, func() {
			n++
			if n&0xFFF == 0 {
				done(n)
			}
		})
		r.Close()
		if err != nil {
			return &FileError{File: name, Op: OpRead, Err: err}
		}
	}
	done(n)
	return nil
}

func (a *Auditor) scanFile(r *fixtures.Reader, f Fields, each func()) error {
	for {
		d, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		a.AddDoc(d.Raw, f)
		each()
	}
}
