package audit

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"time"

	"github.com/oidkit/oidkit/fixtures"
	"github.com/oidkit/oidkit/oid"
)

// maxLine bounds one input line, so input without newlines cannot make the
// reader hold an unbounded amount.
const maxLine = 4096

// ErrLineTooLong is wrapped by the *fixtures.LineError of a line over 4096
// bytes.
var ErrLineTooLong = errors.New("line longer than 4096 bytes")

// ReadHex audits hex ObjectIDs, one per line (surrounding spaces and blank
// lines ignored), from r. It stops at the first line that is not one, with a
// *fixtures.LineError without a file (Err from oid.Parse, which names the
// text), or at a read error; progress, when not nil, is called with the
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
			return &fixtures.LineError{Line: line, Err: err}
		}
		a.AddID(id, time.Time{})
		if progress != nil && line%65536 == 0 {
			progress(a.objectID)
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return &fixtures.LineError{Line: line + 1, Err: ErrLineTooLong}
	}
	return sc.Err()
}
