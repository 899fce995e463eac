package cli

import (
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/indexes"
	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/run"
)

// indexError is the CLI's error for a collection's indexes: a conflict or
// a refusal by the server is a failure (exit 1) that says what happened to
// the documents.
func indexError(e *run.IndexError) error {
	written := "nothing was written"
	switch e.Stage {
	case run.IndexBefore:
		// Created before any document of the run, and dropped again.
		if mongo.IsDuplicateKeyError(e.Err) {
			written = fmt.Sprintf("the documents stored in %s.%s repeat a key of this unique index; nothing was written: %s replaces the collection, or seed another one", e.DB, e.Collection, arg(flagDrop))
		}
	case run.IndexAfter:
		written = fmt.Sprintf("the %d documents are written (re-run with %s to retry the indexes)", e.Written, arg(flagResume))
	}
	switch err := e.Err; {
	case indexes.ServerRefused(err):
		// The server's message without its source locations.
		return failuref("%s; %s", mongowrite.ServerMessage(err.Error()), written)
	case errors.Is(err, indexes.ErrInvalid):
		return usageErrorf("%s.%s: %v; %s", e.DB, e.Collection, err, written)
	}
	return failure(fmt.Errorf("%s.%s: creating indexes: %w; %s", e.DB, e.Collection, e.Err, written))
}

// indexNote lists the indexes a collection has once written.
func indexNote(list []indexes.Index) string {
	names := make([]string, len(list))
	for k, ix := range list {
		names[k] = ix.NameOrDefault()
	}
	if len(list) == 1 {
		return "index " + names[0]
	}
	return fmt.Sprintf("%d indexes: %s", len(list), strings.Join(names, ", "))
}
