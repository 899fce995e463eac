package progress

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// Plain lines: one per period at most, the rate over the time since the
// start, the time left at that rate, and a final line with the time taken.
// The expected lines are worked out by hand.
func TestProgressPlainLines(t *testing.T) {
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	p := NewPlain(&b, "users", "docs", 100000, 5*time.Second, clk.now)
	clk.advance(time.Second)
	p.Set(12500) // 1s: within the first period
	clk.advance(3 * time.Second)
	p.Set(50000) // 4s: still within it
	if b.Len() != 0 {
		t.Fatalf("a line within the first period: %q", b.String())
	}
	clk.advance(time.Second)
	p.Set(62500) // 5s: 12,500 docs/s, 37,500 left: 3s
	clk.advance(time.Second)
	p.Add(12500) // 6s: 1s after the last line
	clk.advance(4 * time.Second)
	p.Add(25000) // 10s: all done, 10,000 docs/s
	clk.advance(400 * time.Millisecond)
	p.Finish()
	p.Finish() // once only
	p.Set(5)   // after Finish: nothing
	want := "users: 62500/100000 docs (62%), 12,500 docs/s, ETA 3s\n" +
		"users: 100000/100000 docs (100%), 10,000 docs/s, ETA 0s\n" +
		"users: 100000/100000 docs (100%), 9,615 docs/s, 10s\n"
	if got := b.String(); got != want {
		t.Fatalf("lines:\n%s\nwant:\n%s", got, want)
	}
}

// A run that ends within the first period prints nothing at all: the
// command's summary on stdout says the same.
func TestProgressPlainShortRunPrintsNothing(t *testing.T) {
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	p := NewPlain(&b, "users", "docs", 10, 5*time.Second, clk.now)
	clk.advance(4 * time.Second)
	p.Set(10)
	p.Finish()
	if b.Len() != 0 {
		t.Fatalf("printed %q", b.String())
	}
}

// Unknown totals show a count and a rate; an estimate that was too low
// grows with the count; a stopped run's final line says how far it got;
// no work done yet leaves the time left unknown.
func TestProgressPlainUnknownAndStopped(t *testing.T) {
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	p := NewPlain(&b, "audit", "values", UnknownTotal, time.Second, clk.now)
	clk.advance(4 * time.Second)
	p.Set(5000)
	p.Finish()
	clk2 := &fakeClock{t: time.Unix(0, 0)}
	q := NewPlain(&b, "about", "docs", 100, time.Second, clk2.now)
	clk2.advance(2 * time.Second)
	q.Set(0)
	clk2.advance(2 * time.Second)
	q.Set(150) // more than the estimate
	q.SetTotal(0)
	r := NewPlain(&b, "users", "docs", 1000, time.Second, clk2.now)
	clk2.advance(2500 * time.Millisecond)
	r.Set(400)
	clk2.advance(1260 * time.Millisecond)
	r.Finish() // stopped at 400 of 1000
	want := "audit: 5000 values, 1,250 values/s\n" +
		"audit: 5000 values, 1,250 values/s, 4s\n" +
		"about: 0/100 docs (0%), 0 docs/s, ETA ?\n" +
		"about: 150/150 docs (100%), 38 docs/s, ETA 0s\n" +
		"users: 400/1000 docs (40%), 160 docs/s, ETA 3.8s\n" +
		"users: 400/1000 docs (40%), 106 docs/s, 3.8s\n"
	if got := b.String(); got != want {
		t.Fatalf("lines:\n%s\nwant:\n%s", got, want)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 12345: "12,345", 123456: "123,456", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	for _, c := range []struct{ done, total, want int64 }{{0, 10, 0}, {1, 3, 33}, {999, 1000, 99}, {99999, 100000, 99}, {1000, 1000, 100}, {5, 0, 0}} {
		if got := percent(c.done, c.total); got != c.want {
			t.Errorf("percent(%d, %d) = %d, want %d", c.done, c.total, got, c.want)
		}
	}
}

// Every method of a nil progress (--quiet, or nothing to do) does nothing.
func TestProgressNil(t *testing.T) {
	var p *Meter
	p.Set(1)
	p.Add(1)
	p.SetTotal(5)
	p.Since(time.Now())
	p.Finish()
}

// A label with control characters (a collection name may hold them) is
// quoted: it cannot redraw the terminal or split a plain line.
func TestProgressLabelPrintable(t *testing.T) {
	for in, want := range map[string]string{"users": "users", "a.b$c": "a.b$c", "é": "é", "a\rb": `"a\rb"`, "x\x1b[2Jy": `"x\x1b[2Jy"`, "l\nm": `"l\nm"`} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkProgressSet is the cost of one report: seed makes one per
// batch (1,000 documents by default), verify ids one per chunk.
func BenchmarkProgressSet(b *testing.B) {
	b.Run("plain", func(b *testing.B) {
		p := NewPlain(io.Discard, "users", "docs", 1<<62, Every, time.Now)
		var n int64
		for b.Loop() {
			n++
			p.Set(n)
		}
	})
	b.Run("bar", func(b *testing.B) {
		p := &Meter{label: "users", unit: "docs", total: 1 << 62, bar: newBar(io.Discard, "users", "docs", 1<<62, RedrawEvery)}
		var n int64
		for b.Loop() {
			n++
			p.Set(n)
		}
	})
}
