package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// verify db shows each phase of each collection as its own meter: a new
// phase ends the one before with its final line, and is timed from the
// report before it.
func TestPhases(t *testing.T) {
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	var labels []string
	vp := NewPhases(func(label string, total int64) *Meter {
		labels = append(labels, label)
		return NewPlain(&b, label, "docs", total, 0, clk.now)
	}, clk.now)
	vp.Update("verify users: read", 500, 1000)
	clk.advance(time.Second)
	vp.Update("verify users: read", 1000, 1000)
	clk.advance(time.Second)
	vp.Update("verify users: references", 8192, 0)
	vp.Finish()
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

// A lazy meter starts at its first report, with that report's total, and
// nothing is made for work never reported.
func TestLazy(t *testing.T) {
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	starts := 0
	l := NewLazy(func(total int64) *Meter {
		starts++
		return NewPlain(&b, "load", "docs", total, 0, clk.now)
	})
	l.Finish() // never reported: nothing
	if starts != 0 || b.Len() != 0 {
		t.Fatalf("unreported: %d starts, %q", starts, b.String())
	}
	clk.advance(time.Second)
	l.Report(10, 100)
	clk.advance(time.Second)
	l.Report(100, 100)
	l.Finish()
	if starts != 1 {
		t.Fatalf("%d starts, want 1", starts)
	}
	want := "load: 10/100 docs (10%), 0 docs/s, ETA ?\nload: 100/100 docs (100%), 100 docs/s, ETA 0s\nload: 100/100 docs (100%), 100 docs/s, 1s\n"
	if got := b.String(); got != want {
		t.Fatalf("lines:\n%s\nwant:\n%s", got, want)
	}
}
