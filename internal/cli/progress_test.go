package cli

import (
	"bytes"
	"strings"
	"testing"
)

// A status line is drawn at once, not again within the redraw interval
// unless the work is done, and cleared by finish.
func TestStatusLine(t *testing.T) {
	var b bytes.Buffer
	var s statusLine
	s.finish(&b)
	if b.Len() != 0 {
		t.Fatalf("finish before any drawing wrote %q", b.String())
	}
	calls := 0
	text := func(v string) func() string { return func() string { calls++; return v } }
	s.update(&b, false, text("first"))
	s.update(&b, false, text("second")) // within the interval: skipped, text not built
	s.update(&b, true, text("done"))
	s.finish(&b)
	if got, want := b.String(), "\rfirst\x1b[K\rdone\x1b[K\r\x1b[K"; got != want {
		t.Fatalf("drawn %q, want %q", got, want)
	}
	if calls != 2 {
		t.Errorf("text built %d times, want 2 (only for lines drawn)", calls)
	}
}

func TestBarText(t *testing.T) {
	got := barText("users", seedProgress(500, 1000, 2e9))
	if want := "users [===============               ]  50% 500/1000 250 docs/s ETA 2s"; got != want {
		t.Errorf("barText = %q, want %q", got, want)
	}
	if got := barText("x", seedProgress(0, 10, 0)); !strings.HasSuffix(got, "0 docs/s ETA ?") {
		t.Errorf("barText with nothing done = %q", got)
	}
}
