package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/internal/progress"
	"github.com/oidkit/oidkit/mongowrite"
)

// runOnFile runs the app with stderr the file w (a pipe's or a
// terminal's end), reading r, the other end, as it goes. It returns stdout,
// what came out of r and the exit code. setup adjusts the app first.
func runOnFile(t *testing.T, setup func(*App), stdin io.Reader, w, r *os.File, args ...string) (string, string, int) {
	t.Helper()
	var got bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(&got, r) // a terminal's end reports EIO once the other is closed
	}()
	var out bytes.Buffer
	a := NewApp(stdin, &out, w)
	if setup != nil {
		setup(a)
	}
	code := a.RunContext(t.Context(), append([]string{"oidkit"}, args...))
	_ = w.Close()
	<-done
	_ = r.Close()
	return out.String(), got.String(), code
}

// runOnPipe runs the app with stderr a pipe, as in a CI log.
func runOnPipe(t *testing.T, setup func(*App), stdin io.Reader, args ...string) (string, string, int) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if progress.IsTerminal(w) {
		t.Fatal("a pipe is taken for a terminal")
	}
	return runOnFile(t, setup, stdin, w, r, args...)
}

// everyReport makes a plain line of every report: the tests see the lines
// a long run prints without running long.
func everyReport(a *App) { a.progressEvery = time.Nanosecond }

// plainLine is one plain progress line; its groups are the label, the
// count, the total (empty when unknown), the unit, the percent, the rate,
// and then either the ETA or, on the final line, the time taken.
var plainLine = regexp.MustCompile(`^(.+): (\d+)(?:/(\d+))? (docs|values|IDs)(?: \((\d+)%\))?, ([\d,]+) (?:docs|values|IDs)/s(?:, ETA (\S+)|, (\d\S*))?$`)

// beyondProgress is stderr without its plain progress lines: what a
// command printed there besides progress. A run under the progress period
// prints none, but one under -race on a busy machine may outlast it.
func beyondProgress(stderr string) string {
	var rest []string
	for l := range strings.SplitSeq(stderr, "\n") {
		if !plainLine.MatchString(l) {
			rest = append(rest, l)
		}
	}
	return strings.TrimSuffix(strings.Join(rest, "\n"), "\n")
}

// checkPlain checks stderr of a run on a pipe: only plain lines of label,
// no carriage return or escape code, counts that never go back, at least
// minLines of them before one final line with the count total (when it is
// known, with its percent).
func checkPlain(t *testing.T, stderr, label string, total int64, minLines int) {
	t.Helper()
	if strings.ContainsAny(stderr, "\r\x1b") {
		t.Fatalf("a carriage return or an escape code on a pipe: %q", stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	var last int64
	for i, l := range lines {
		m := plainLine.FindStringSubmatch(l)
		if m == nil || m[1] != label {
			t.Fatalf("line %d %q is not a progress line of %q; stderr:\n%s", i+1, l, label, stderr)
		}
		n, _ := strconv.ParseInt(m[2], 10, 64)
		if n < last {
			t.Fatalf("line %d: the count went back from %d to %d:\n%s", i+1, last, n, stderr)
		}
		last = n
		if m[3] != "" {
			tot, _ := strconv.ParseInt(m[3], 10, 64)
			pct, _ := strconv.ParseInt(m[5], 10, 64)
			if want := n * 100 / tot; pct != want {
				t.Errorf("line %d %q: %d%%, want %d%%", i+1, l, pct, want)
			}
		}
		final := i == len(lines)-1
		if final != (m[8] != "") || (!final && m[3] != "" && m[7] == "") {
			t.Errorf("line %d %q: want an ETA on every line but the last, the time taken on the last", i+1, l)
		}
	}
	if len(lines)-1 < minLines {
		t.Errorf("%d periodic lines, want at least %d:\n%s", len(lines)-1, minLines, stderr)
	}
	final := plainLine.FindStringSubmatch(lines[len(lines)-1])
	if final[2] != strconv.FormatInt(total, 10) || (final[3] != "" && (final[3] != final[2] || final[5] != "100")) {
		t.Errorf("final line %q: want the count %d, all of it", lines[len(lines)-1], total)
	}
}

// Every long command prints plain progress lines on a pipe, ending with
// the final count, against the real embedded server.
func TestProgressPlainLinesOfEveryCommand(t *testing.T) {
	uri, _ := mongotest.Start(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "people.ndjson")
	ids, _, code := runApp(t, t.Context(), "", "gen", "-n", "3000", "--seed", "4")
	if code != ExitOK {
		t.Fatal("gen failed")
	}
	cases := []struct {
		name     string
		stdin    string
		args     []string
		label    string
		total    int64
		minLines int
	}{
		{"seed", "", []string{"seed", "--uri", uri, "--seed", "1", "-n", "3000", "--batch", "250", "--collection", "people"}, "people", 3000, 10},
		{"fixtures", "", []string{"fixtures", "--seed", "1", "-n", "3000", "--out", file}, "users", 3000, 2},
		{"load", "", []string{"load", "--uri", uri, "--collection", "loaded", "--batch", "250", file}, "load", 3000, 10},
		{"verify db", "", []string{"verify", "db", "--uri", uri, "--seed", "1", "-n", "3000", "--collection", "people"}, "verify people: read", 3000, 1},
		{"audit", "", []string{"audit", "--uri", uri, "--collection", "people"}, "audit", 3000, 1},
		{"verify ids", "", []string{"verify", "ids", "-n", "300", "--seed", "2"}, "verify ids", 300, 1}, // each ID is checked deep: 300 make the same lines
		{"audit files", "", []string{"audit", file}, "audit", 3000, 1},
		{"export", "", []string{"export", "--uri", uri, "--collection", "people", "--batch", "250", "--out", filepath.Join(dir, "out")}, "people", 3000, 2},
		{"audit stdin", ids, []string{"audit", "-"}, "audit", 3000, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := runOnPipe(t, everyReport, strings.NewReader(c.stdin), c.args...)
			if code != ExitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
			}
			if c.name == "verify db" {
				// One progress per phase: check the read phase's lines.
				var read []string
				for l := range strings.SplitSeq(strings.TrimSuffix(stderr, "\n"), "\n") {
					if strings.HasPrefix(l, c.label+": ") {
						read = append(read, l)
					}
				}
				stderr = strings.Join(read, "\n") + "\n"
			}
			checkPlain(t, stderr, c.label, c.total, c.minLines)
		})
	}
}

// With the default period a short run prints nothing on a pipe, and
// --quiet prints nothing whatever the period.
func TestProgressShortRunAndQuietPrintNothing(t *testing.T) {
	uri, _ := mongotest.Start(t)
	if out, stderr, code := runOnPipe(t, nil, nil, "seed", "--uri", uri, "--seed", "1", "-n", "500", "--batch", "50"); code != ExitOK || stderr != "" {
		t.Errorf("seed within the first period: exit %d, stderr %q, stdout %q; want nothing on stderr", code, stderr, out)
	}
	for _, args := range [][]string{
		{"seed", "--uri", uri, "--seed", "2", "-n", "500", "--batch", "50", "--collection", "quiet", "--quiet"},
		{"verify", "db", "--uri", uri, "--seed", "2", "-n", "500", "--collection", "quiet", "--quiet"},
		{"audit", "--uri", uri, "--collection", "users", "-q"},
		{"verify", "ids", "-n", "500", "-q"},
	} {
		if out, stderr, code := runOnPipe(t, everyReport, nil, args...); code != ExitOK || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want nothing on stderr", args, code, stderr, out)
		}
	}
}

// The bar on a terminal: redrawn in place (a carriage return, the bar, and
// "erase to the end of the line") with a count that never goes back and
// reaches the last batch (the inserters may report together in one redraw period), then erased, so that the command's output starts on a clean line.
func TestProgressBarOnTerminal(t *testing.T) {
	uri, _ := mongotest.Start(t)
	const n, batch = 3000, 250
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 120}); err != nil {
		t.Fatal(err)
	}
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil { // the bytes as written
		t.Fatal(err)
	}
	redrawAll := func(a *App) { a.redrawEvery = time.Nanosecond }
	out, screen, code := runOnFile(t, redrawAll, nil, tty, ptmx, "seed", "--uri", uri, "--seed", "3", "-n", strconv.Itoa(n), "--batch", strconv.Itoa(batch), "--collection", "tty")
	if code != ExitOK || !strings.Contains(out, "oidkit.tty: inserted 3000, skipped 0") {
		t.Fatalf("exit %d\nstdout:\n%s\nterminal:\n%q", code, out, screen)
	}
	bar := regexp.MustCompile(`\rtty\s+(\d+)% \|[^|]*\| \((\d+)/3000, \d+ docs/(?:s|min|hr)\) \[\d+s:\d+s\]\x1b\[0K`)
	draws := bar.FindAllStringSubmatch(screen, -1)
	if len(draws) < 3 {
		t.Fatalf("%d bars drawn, want one per batch:\n%q", len(draws), screen)
	}
	last := int64(-1)
	for _, d := range draws {
		pct, _ := strconv.ParseInt(d[1], 10, 64)
		done, _ := strconv.ParseInt(d[2], 10, 64)
		if done < last || pct != done*100/n {
			t.Fatalf("bar %q after a count of %d: the count must never go back and the percent match it", d[0], last)
		}
		last = done
	}
	// The last batches of the inserters can be acknowledged together: the
	// count then jumps to the total, where the bar erases itself.
	if last < n-int64(mongowrite.ConcurrentWriteWorkers)*batch {
		t.Errorf("the last bar drawn shows %d of %d: it must follow the work to its last batches\n%q", last, n, screen)
	}
	if rest := bar.ReplaceAllString(screen, ""); rest != "\x1b[2K\r" {
		t.Errorf("besides the bars, the terminal got %q; want only the final erase", rest)
	}
	if got := emulate(screen); got != "" {
		t.Errorf("the terminal shows %q at the end; want the bar erased", got)
	}
}

// An unknown total on a terminal: a spinner with the count and the rate,
// erased by Finish (which also stops its redraw timer).
func TestProgressUnknownTotalOnTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	var got bytes.Buffer
	done := make(chan struct{})
	go func() { defer close(done); _, _ = io.Copy(&got, ptmx) }()
	p := progress.New(tty, "audit", progress.UnknownTotal, progress.Options{Unit: "values", RedrawEvery: time.Nanosecond})
	p.Set(4096)
	p.Set(8192)
	p.Finish()
	time.Sleep(250 * time.Millisecond) // past the spinner's next tick: nothing more is drawn
	_ = tty.Close()
	<-done
	s := got.String()
	if !regexp.MustCompile(`\r. audit \(8192, \d+ values/s\) \[\d+s\] \x1b\[0K`).MatchString(s) {
		t.Errorf("no count and rate in %q", s)
	}
	if !strings.HasSuffix(s, "\x1b[2K\r") || emulate(s) != "" {
		t.Errorf("the spinner is not erased at the end: %q", s)
	}
}

// emulate is the last line a terminal shows after s: carriage returns, "erase
// to the end of the line" (ESC [0K) and "erase the line" (ESC [2K).
func emulate(s string) string {
	var line []rune
	col := 0
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "\x1b[0K"):
			line = line[:min(col, len(line))]
			i += 4
		case strings.HasPrefix(s[i:], "\x1b[2K"):
			line = line[:0]
			i += 4
		case s[i] == '\r':
			col = 0
			i++
		case s[i] == '\n':
			line, col = line[:0], 0
			i++
		default:
			r := []rune(s[i:])[0]
			if col < len(line) {
				line[col] = r
			} else {
				line = append(line, r)
			}
			col++
			i += len(string(r))
		}
	}
	return string(line)
}

// finalRate is the rate on the final plain line of stderr.
func finalRate(t *testing.T, stderr string) float64 {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	m := plainLine.FindStringSubmatch(lines[len(lines)-1])
	if m == nil || m[8] == "" {
		t.Fatalf("no final progress line in %q", stderr)
	}
	r, _ := strconv.ParseFloat(strings.ReplaceAll(m[6], ",", ""), 64)
	return r
}

// stall is how long the tests below hold a command before its work: long
// next to writing 3,000 documents, so a rate that counted it would be
// several times too low.
const stall = 1500 * time.Millisecond

// The rate counts only the writing: load validates every document before
// writing any, and here validation cannot end before standard input does,
// which the test holds open for a while. The rate shown must be at least
// the count over the time from the end of the input to the end of the
// command (a bound the real writing time can only beat), which a clock
// started before the stall would miss by far.
func TestProgressRateLeavesOutValidation(t *testing.T) {
	uri, _ := mongotest.Start(t)
	const n = 3000
	docs, _, code := runApp(t, t.Context(), "", "fixtures", "--seed", "5", "-n", strconv.Itoa(n))
	if code != ExitOK {
		t.Fatal("fixtures failed")
	}
	pr, pw := io.Pipe()
	closed := make(chan time.Time, 1)
	go func() {
		_, _ = io.WriteString(pw, docs)
		time.Sleep(stall) // validation waits for the end of the input
		closed <- time.Now()
		_ = pw.Close()
	}()
	start := time.Now()
	out, stderr, code := runOnPipe(t, everyReport, pr, "load", "--uri", uri, "--collection", "stalled", "-")
	end := time.Now()
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	checkPlain(t, stderr, "load", n, 1)
	assertUndiluted(t, finalRate(t, stderr), n, start, <-closed, end)
}

// The same for seed, whose connection the test holds up: connecting, the
// server's rules and the plan checks all come before the clock starts.
func TestProgressRateLeavesOutConnecting(t *testing.T) {
	uri, _ := mongotest.Start(t)
	const n = 3000
	release := time.Now().Add(stall)
	proxy := stallingProxy(t, uri, release)
	start := time.Now()
	out, stderr, code := runOnPipe(t, everyReport, nil, "seed", "--uri", proxy, "--seed", "6", "-n", strconv.Itoa(n), "--collection", "held", "--timeout", "30s")
	end := time.Now()
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	checkPlain(t, stderr, "held", n, 1)
	assertUndiluted(t, finalRate(t, stderr), n, start, release, end)
}

// assertUndiluted checks that rate, shown for n documents of a command run
// from start to end whose work could not start before ready, counts only
// the time after ready.
func assertUndiluted(t *testing.T, rate float64, n int, start, ready, end time.Time) {
	t.Helper()
	if ready.Sub(start) < stall-50*time.Millisecond {
		t.Fatalf("the command was held only %v", ready.Sub(start))
	}
	floor := float64(n) / end.Sub(ready).Seconds() // the work took at most end-ready
	diluted := float64(n) / end.Sub(start).Seconds()
	t.Logf("rate shown %.0f docs/s; at least %.0f from the time after the stall; %.0f over the whole run", rate, floor, diluted)
	if rate < floor-1 { // the rate shown is rounded to a whole number
		t.Errorf("rate shown %.0f docs/s, below %.0f (%d documents in at most %v): the clock counted time before the work", rate, floor, n, end.Sub(ready))
	}
}

// stallingProxy forwards connections to the server of uri, holding every
// connection opened before release until then. It returns the URI through
// it.
func stallingProxy(t *testing.T, uri string, release time.Time) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	target := u.Host
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Until(release))
				s, err := net.Dial("tcp", target)
				if err != nil {
					_ = c.Close()
					return
				}
				mu.Lock()
				conns = append(conns, c, s)
				mu.Unlock()
				go func() { _, _ = io.Copy(s, c); _ = s.Close() }()
				_, _ = io.Copy(c, s)
				_ = c.Close()
			}()
		}
	}()
	u.Host = ln.Addr().String()
	return u.String()
}

// A collection name with a carriage return and an escape code reaches the
// progress quoted: the lines on a pipe stay plain.
func TestProgressControlCharactersInName(t *testing.T) {
	uri, _ := mongotest.Start(t)
	name := "x\ry\x1b[2J"
	out, stderr, code := runOnPipe(t, everyReport, nil, "seed", "--uri", uri, "--seed", "1", "-n", "300", "--batch", "100", "--collection", name)
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, stderr)
	}
	checkPlain(t, stderr, strconv.Quote(name), 300, 3)
}

// An interrupted run (Ctrl-C) ends its progress before the error: on a
// terminal the bar is erased and the error starts on a clean line; on a
// pipe the final line says how far the run got, short of the total.
func TestProgressInterrupted(t *testing.T) {
	uri, _ := mongotest.Start(t)
	const n = 200000
	for _, onTerminal := range []bool{false, true} {
		t.Run(fmt.Sprintf("terminal=%v", onTerminal), func(t *testing.T) {
			r, w, err := os.Pipe()
			drawn := regexp.MustCompile(`: [1-9]\d*/200000 docs`) // a line with documents written
			if onTerminal {
				if r, w, err = pty.Open(); err == nil {
					_, err = term.MakeRaw(int(w.Fd()))
				}
				drawn = regexp.MustCompile(`\([1-9]\d*/200000, `)
			}
			if err != nil {
				t.Skipf("no pipe or pseudo-terminal: %v", err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var got bytes.Buffer
			done := make(chan struct{})
			go func() {
				defer close(done)
				buf := make([]byte, 4096)
				for {
					k, err := r.Read(buf)
					got.Write(buf[:k])
					if drawn.Match(got.Bytes()) {
						cancel() // once documents are in: mid-way
					}
					if err != nil {
						return
					}
				}
			}()
			var out bytes.Buffer
			a := NewApp(nil, &out, w)
			a.progressEvery, a.redrawEvery = time.Nanosecond, time.Nanosecond
			code := a.RunContext(ctx, []string{"oidkit", "seed", "--uri", uri, "--seed", "9", "-n", strconv.Itoa(n), "--batch", "100", "--collection", fmt.Sprintf("cut%v", onTerminal)})
			_ = w.Close()
			<-done
			_ = r.Close()
			stderr := got.String()
			if code != ExitFailure || !strings.Contains(stderr, "interrupted") {
				t.Fatalf("exit %d\nstdout %s\nstderr %q", code, out.String(), stderr)
			}
			if onTerminal {
				i := strings.LastIndex(stderr, "\x1b[2K\r")
				if i < 0 || !strings.HasPrefix(stderr[i+len("\x1b[2K\r"):], "oidkit: ") {
					t.Fatalf("the bar is not erased before the error: %q", stderr[max(0, len(stderr)-400):])
				}
				return
			}
			rest := beyondProgress(stderr)
			if !strings.HasPrefix(rest, "oidkit: ") || strings.Count(rest, "\n") > 0 {
				t.Fatalf("besides progress lines, stderr holds %q; want the error alone", rest)
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			final := plainLine.FindStringSubmatch(lines[len(lines)-2])
			if final == nil || final[8] == "" || final[5] == "100" {
				t.Fatalf("the line before the error, %q, is not a final line short of the total", lines[len(lines)-2])
			}
			k, _ := strconv.Atoi(final[2])
			m := regexp.MustCompile(`inserted (\d+) of 200000`).FindStringSubmatch(rest)
			if m == nil {
				t.Fatalf("the error %q does not say how many went in", rest)
			}
			if held, _ := strconv.Atoi(m[1]); k > held || k == 0 {
				t.Errorf("final line %q; the error says %q", lines[len(lines)-2], rest)
			}
		})
	}
}
