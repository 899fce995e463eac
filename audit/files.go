package audit

import (
	"context"
	"io"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/internal/input"
)

// ScanFiles adds every document of the fixture files to the audit (the
// fields f of each), in order. done, if not nil, is told how many
// documents were read now and then and at the end. Reading stops when ctx
// is done. A file that cannot be audited is a *fixtures.SetError of
// fixtures.OpOpen, OpDir (a directory) or OpRead (a document that cannot be
// read: a *fixtures.LineError for a bad one).
func (a *Auditor) ScanFiles(ctx context.Context, files []string, f Fields, done func(int64)) error {
	if done == nil {
		done = func(int64) {}
	}
	var n int64
	for _, name := range files {
		r, err := input.Open(ctx, name)
		if err != nil {
			return &fixtures.SetError{Op: fixtures.OpOpen, Path: name, Err: err}
		}
		if fi, err := r.Stat(); err == nil && fi.IsDir() {
			r.Close()
			return &fixtures.SetError{Op: fixtures.OpDir, Path: name, Err: fixtures.ErrIsDirectory}
		}
		err = a.scanFile(fixtures.NewReader(r, name), f, func() {
			n++
			if n&0xFFF == 0 {
				done(n)
			}
		})
		r.Close()
		if err != nil {
			return &fixtures.SetError{Op: fixtures.OpRead, Path: name, Err: err}
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
