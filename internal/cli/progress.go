package cli

// What a command shows while it works: progress meters on stderr, and the
// hooks that show a seed run.

import (
	"fmt"

	"github.com/oidkit/oidkit/internal/message"
	"github.com/oidkit/oidkit/internal/progress"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/run"
)

// newProgress is the progress of work on total documents on stderr,
// starting now (package progress); nil with --quiet.
func (a *App) newProgress(quiet bool, label string, total int64) *progress.Meter {
	return a.newProgressOf(quiet, label, total, "docs")
}

// newProgressOf is newProgress counting unit instead of documents.
func (a *App) newProgressOf(quiet bool, label string, total int64, unit string) *progress.Meter {
	return progress.New(a.stderr, label, total, progress.Options{Quiet: quiet, Unit: unit, Every: a.progressEvery, RedrawEvery: a.redrawEvery})
}

// seedRendering sets the hooks of opts that show a seed run: a progress
// per collection on stderr, a summary line per collection on stdout.
func (a *App) seedRendering(newBar func(label string, total int64) *progress.Meter, opts *run.Options) {
	var bar *progress.Meter
	opts.Progress = func(p run.Progress) {
		switch {
		case p.Done:
			bar.Finish()
		case p.Start:
			// The clock starts here, after the checks: the rate is the writing's.
			bar = newBar(p.Collection, p.Total)
		default:
			bar.SetTotal(p.Total)
			bar.Set(p.Inserted + p.Skipped)
		}
	}
	opts.Written = func(r run.CollectionResult) {
		fmt.Fprintf(a.stdout, "%s: %s\n", r.Where(), run.Summary(r.Inserted, r.Skipped, r.Earlier, r.Elapsed))
		if r.Err == nil && len(r.Indexes) > 0 {
			fmt.Fprintf(a.stdout, "%s.%s: %s\n", r.DB, r.Collection, indexNote(r.Indexes))
		}
	}
	opts.Unchecked = func(db string, u mongowrite.Unchecked) {
		fmt.Fprintf(a.stderr, "%s%s%s.%s: unique index %s not checked before writing (%s); the server refuses such documents while writing\n", message.Prefix, message.Warning, db, u.Collection, u.Index, u.Reason)
	}
}
