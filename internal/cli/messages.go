package cli

import (
	"fmt"

	"github.com/oidkit/oidkit/internal/message"
)

// say writes a message on stderr in the command's one format
// (message.Format). Every error, warning and note goes through it; progress
// lines do not.
func (a *App) say(kind message.Kind, format string, args ...any) {
	_, _ = fmt.Fprint(a.stderr, message.Format(kind, fmt.Sprintf(format, args...)))
}
