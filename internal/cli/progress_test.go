package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/oidkit/oidkit/internal/progress"
	"github.com/oidkit/oidkit/verify"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// verify db shows each phase of each collection as its own progress: a new
// phase ends the one before with its final line, and is timed from the
// report before it.
func TestVerifyProgressPhases(t *testing.T) {
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	var labels []string
	vp := &verifyProgress{now: clk.now, last: clk.now(), start: func(label string, total int64) *progress.Meter {
		labels = append(labels, label)
		return progress.NewPlain(&b, label, "docs", total, 0, clk.now)
	}}
	vp.update(verify.DBProgress{Collection: "users", Phase: "read", Done: 500, Total: 1000})
	clk.advance(time.Second)
	vp.update(verify.DBProgress{Collection: "users", Phase: "read", Done: 1000, Total: 1000})
	clk.advance(time.Second)
	vp.update(verify.DBProgress{Collection: "users", Phase: "references", Done: 8192})
	vp.finish()
	if got, want := strings.Join(labels, ","), "verify users: read,verify users: references"; got != want {
		t.Fatalf("labels %q, want %q", got, want)
	}
	want := "verify users: read: 500/1000 docs (50%), 0 docs/s, ETA ?\n" +
		"verify users: read: 1000/1000 docs (100%), 1,000 docs/s, ETA 0s\n" +
		"verify users: read: 1000/1000 docs (100%), 500 docs/s, 2s\n" +
		"verify users: references: 8192 docs, 8,192 docs/s\n" +
		"verify users: references: 8192 docs, 8,192 docs/s, 1s\n"
	if got := b.String(); got != want {
		t.Fatalf("lines:\n%s\nwant:\n%s", got, want)
	}
}
