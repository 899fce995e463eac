package audit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/oidkit/oidkit/oid"
)

// LineError is a line of hex input that is not an ObjectID.
type LineError struct {
	Line int    // from 1
	Text string // the line, shortened
	Err  error  // from oid.Parse
}

// Error names the line; the wrapped error names the text.
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// maxLine bounds one input line, so input without newlines cannot make the
// reader hold an unbounded amount.
const maxLine = 4096

// ErrLineTooLong is wrapped by the LineError of a line over 4096 bytes.
var ErrLineTooLong = errors.New("line longer than 4096 bytes")

// ReadHex audits hex ObjectIDs, one per line (surrounding spaces and blank
// lines ignored), from r. It stops at the first line that is not one, with a
// *LineError, or at a read error; progress, when not nil, is called with the
// IDs read so far every 65,536 lines.
func (a *Auditor) ReadHex(r io.Reader, progress func(n int64)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		id, err := oid.Parse(string(b))
		if err != nil {
			return &LineError{Line: line, Text: shorten(b), Err: err}
		}
		a.AddID(id, time.Time{})
		if progress != nil && line%65536 == 0 {
			progress(a.objectID)
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return &LineError{Line: line + 1, Text: "", Err: ErrLineTooLong}
	}
	return sc.Err()
}

func shorten(b []byte) string {
	const max = 40
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
