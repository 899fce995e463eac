package cli

import (
	"github.com/oidkit/oidkit/internal/progress"
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
