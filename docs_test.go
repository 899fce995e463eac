package main

// TestDocs runs every command that README.md and docs/*.md show, so the
// documents cannot drift from the binary. The convention it reads, kept
// here only (docs/architecture.md links to this file):
//
//   - A command shown to the reader lives in a fenced ```console block as a
//     line "$ oidkit ARGS" (or "$ go run . ARGS", the same program). The lines
//     after it, up to the next "$ " line or the end of the block, are what
//     the command prints, stdout and stderr together as a terminal shows them:
//     without progress, which a terminal draws in place and erases (the
//     plain progress lines a run longer than their period prints on a
//     non-terminal are left out).
//     A block with no such lines after a command does not check its output.
//   - Two spaces and "# " end a command: the rest is a comment for the
//     reader ("$ oidkit gen -n 5  # five IDs").
//   - In expected output, a line that is exactly "..." matches any number of
//     lines (none included), and "..." inside a line matches any text on that
//     line (durations, rates, times of day).
//   - A last output line "[exit N]" says the command exits with N; otherwise
//     it must exit 0.
//   - "$ A | oidkit B" feeds A's stdout to B's stdin; "> FILE" at the end of
//     a command writes its stdout to FILE. Arguments are split like a shell
//     does for '...' and "..." quoting; nothing else of a shell is supported.
//   - All console blocks of one file run in order in one fresh working
//     directory (so the embedded server's data dir .oidkit is inside it) with
//     no OIDKIT_* variable but OIDKIT_DATA_DIR=.oidkit set: a file reads as
//     one session on a fresh clone. The test changes directory, so it never
//     runs in parallel.
//   - "<!-- not run: REASON -->" on the line before a fence skips that block
//     (a real MongoDB, a browser, a server that runs until stopped); the test
//     logs the reason.
//   - "<!-- file: NAME -->" on the line before a fence writes the block's
//     content to NAME in that directory, for the commands after it.
//   - A command line ("oidkit ...", "$ oidkit ...", "go run . ...") in any
//     other fenced block is an error: every command shown is run or skipped
//     with a reason.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/oidkit/oidkit/internal/cli"
)

// docBlock is one fenced block of a Markdown file.
type docBlock struct {
	file    string
	line    int // of the opening fence
	lang    string
	body    []string
	skip    string // reason, from <!-- not run: ... -->
	asFile  string // from <!-- file: ... -->
	hasSkip bool
}

// docCommand is one "$ ..." line of a console block and what it must print.
type docCommand struct {
	line     int
	text     string
	want     []string // nil: output not checked
	wantExit int
}

var (
	notRunMarker = regexp.MustCompile(`^<!--\s*not run:\s*(.+?)\s*-->$`)
	fileMarker   = regexp.MustCompile(`^<!--\s*file:\s*(\S+)\s*-->$`)
	exitLine     = regexp.MustCompile(`^\[exit (\d+)\]$`)
	commandLine  = regexp.MustCompile(`^\s*(\$\s+)?(oidkit|go run \.)\s`)
)

func TestDocs(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			runDoc(t, name, parseBlocks(t, name, string(data)))
		})
	}
}

func parseBlocks(t *testing.T, name, text string) []docBlock {
	t.Helper()
	var (
		blocks  []docBlock
		cur     *docBlock
		pending string // the marker line just before a fence
	)
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if cur != nil {
			if strings.HasPrefix(trimmed, "```") {
				blocks = append(blocks, *cur)
				cur = nil
				continue
			}
			cur.body = append(cur.body, line)
			continue
		}
		if strings.HasPrefix(trimmed, "```") {
			cur = &docBlock{file: name, line: i + 1, lang: strings.TrimPrefix(trimmed, "```")}
			if m := notRunMarker.FindStringSubmatch(pending); m != nil {
				cur.skip, cur.hasSkip = m[1], true
			}
			if m := fileMarker.FindStringSubmatch(pending); m != nil {
				cur.asFile = m[1]
			}
			pending = "" // a marker is for the one fence after it
			continue
		}
		if trimmed != "" {
			pending = trimmed
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: fence never closed", name, cur.line)
	}
	return blocks
}

func parseCommands(t *testing.T, b docBlock) []docCommand {
	t.Helper()
	var cmds []docCommand
	for i, line := range b.body {
		if rest, ok := strings.CutPrefix(line, "$ "); ok {
			if cut := strings.Index(rest, "  # "); cut >= 0 {
				rest = rest[:cut]
			}
			cmds = append(cmds, docCommand{line: b.line + 1 + i, text: strings.TrimSpace(rest)})
			continue
		}
		if len(cmds) == 0 {
			t.Errorf("%s:%d: output before any \"$ \" command", b.file, b.line+1+i)
			continue
		}
		c := &cmds[len(cmds)-1]
		c.want = append(c.want, line)
	}
	for i := range cmds {
		c := &cmds[i]
		if n := len(c.want); n > 0 {
			if m := exitLine.FindStringSubmatch(c.want[n-1]); m != nil {
				c.wantExit, _ = strconv.Atoi(m[1])
				c.want = c.want[:n-1]
				if len(c.want) == 0 {
					c.want = nil
				}
			}
		}
	}
	return cmds
}

func runDoc(t *testing.T, name string, blocks []docBlock) {
	dir := t.TempDir()
	t.Chdir(dir)
	// The documents show a fresh clone: the default data dir, no variable set.
	t.Setenv("OIDKIT_DATA_DIR", ".oidkit")
	for _, v := range []string{"OIDKIT_URI", "OIDKIT_DB", "OIDKIT_TIMEOUT", "OIDKIT_LISTEN", "OIDKIT_WEB_LISTEN"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	for _, b := range blocks {
		switch {
		case b.asFile != "":
			data := strings.Join(b.body, "\n") + "\n"
			if err := os.WriteFile(b.asFile, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		case b.lang == "console" && b.hasSkip:
			t.Logf("%s:%d: not run: %s", b.file, b.line, b.skip)
		case b.lang == "console":
			for _, c := range parseCommands(t, b) {
				runDocCommand(t, b.file, c)
			}
		default:
			for i, line := range b.body {
				if commandLine.MatchString(line) {
					t.Errorf("%s:%d: command %q outside a ```console block: it would never be run",
						b.file, b.line+1+i, strings.TrimSpace(line))
				}
			}
		}
	}
}

func runDocCommand(t *testing.T, file string, c docCommand) {
	t.Helper()
	where := fmt.Sprintf("%s:%d: $ %s", file, c.line, c.text)
	stages := strings.Split(c.text, " | ")
	var stdin []byte
	var out bytes.Buffer
	code := 0
	for i, stage := range stages {
		args, err := splitArgs(stage)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			return
		}
		var redirect string
		if n := len(args); n >= 2 && args[n-2] == ">" {
			redirect, args = args[n-1], args[:n-2]
		}
		switch {
		case len(args) > 0 && args[0] == "oidkit":
			args = args[1:]
		case len(args) > 2 && args[0] == "go" && args[1] == "run" && args[2] == ".":
			args = args[3:]
		default:
			t.Errorf("%s: only oidkit (or go run .) commands can be run, got %q", where, stage)
			return
		}
		var stdout bytes.Buffer
		combined := &out
		last := i == len(stages)-1
		stdoutW := &stdout
		if last && redirect == "" {
			stdoutW = combined // interleave with stderr, as a terminal shows them
		}
		code = cli.NewApp(bytes.NewReader(stdin), stdoutW, combined).Run(append([]string{"oidkit"}, args...))
		if redirect != "" {
			if err := os.WriteFile(redirect, stdout.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		stdin = stdout.Bytes()
		if !last && code != 0 {
			t.Errorf("%s: %q exited %d:\n%s", where, stage, code, out.String())
			return
		}
	}
	if code != c.wantExit {
		t.Errorf("%s: exit %d, documented %d; output:\n%s", where, code, c.wantExit, out.String())
		return
	}
	if c.want != nil {
		got := withoutProgress(strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"))
		if !matchLines(c.want, got) {
			t.Errorf("%s: output differs from the document.\ndocumented:\n%s\ngot:\n%s",
				where, strings.Join(c.want, "\n"), out.String())
		}
	}
}

// progressLine is a plain progress line ("users: 9000/10000 docs (90%),
// 1,667 docs/s, ETA 600ms"), which a terminal would not keep.
var progressLine = regexp.MustCompile(`^.+: \d+(?:/\d+)? (?:docs|values|IDs)(?: \(\d+%\))?, [\d,]+ (?:docs|values|IDs)/s(?:, ETA \S+|, \d\S*)?$`)

// withoutProgress is lines without the plain progress lines.
func withoutProgress(lines []string) []string {
	out := lines[:0:0]
	for _, l := range lines {
		if !progressLine.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// matchLines matches got against want, where a want line "..." matches any
// number of lines and "..." inside a line any text.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0 || (len(got) == 1 && got[0] == "")
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matchLines(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 || !matchLine(want[0], got[0]) {
		return false
	}
	return matchLines(want[1:], got[1:])
}

func matchLine(want, got string) bool {
	parts := strings.Split(want, "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got)
}

// splitArgs splits a command line into words as a shell does for plain
// words and '...' or "..." quoting (no escapes inside single quotes, \" and
// \\ inside double quotes).
func splitArgs(s string) ([]string, error) {
	var (
		args  []string
		word  strings.Builder
		inArg bool
	)
	r := bufio.NewReader(strings.NewReader(s))
	for {
		ch, _, err := r.ReadRune()
		if err != nil {
			break
		}
		switch {
		case ch == ' ' || ch == '\t':
			if inArg {
				args = append(args, word.String())
				word.Reset()
				inArg = false
			}
		case ch == '\'' || ch == '"':
			inArg = true
			for {
				c, _, err := r.ReadRune()
				if err != nil {
					return nil, fmt.Errorf("unclosed %c quote in %q", ch, s)
				}
				if c == ch {
					break
				}
				if ch == '"' && c == '\\' {
					if n, _, err := r.ReadRune(); err == nil {
						c = n
					}
				}
				word.WriteRune(c)
			}
		default:
			inArg = true
			word.WriteRune(ch)
		}
	}
	if inArg {
		args = append(args, word.String())
	}
	return args, nil
}

// TestDocsConvention pins the matching rules TestDocs applies, so a document
// cannot pass by a wildcard that matches too much.
func TestDocsConvention(t *testing.T) {
	for _, tc := range []struct {
		want, got []string
		ok        bool
	}{
		{[]string{"a", "b"}, []string{"a", "b"}, true},
		{[]string{"a", "b"}, []string{"a", "c"}, false},
		{[]string{"a"}, []string{"a", "b"}, false},
		{[]string{"a", "...", "z"}, []string{"a", "z"}, true},
		{[]string{"a", "...", "z"}, []string{"a", "b", "c", "z"}, true},
		{[]string{"a", "...", "z"}, []string{"a", "b", "c"}, false},
		{[]string{"took ..., ... docs/s"}, []string{"took 3ms, 10 docs/s"}, true},
		{[]string{"took ..., ... docs/s"}, []string{"took 3ms; 10 docs/s"}, false},
		{[]string{"x (y)"}, []string{"x (y)"}, true}, // no regexp syntax leaks in
		{[]string{"x.y"}, []string{"xzy"}, false},
	} {
		if got := matchLines(tc.want, tc.got); got != tc.ok {
			t.Errorf("matchLines(%q, %q) = %v, want %v", tc.want, tc.got, got, tc.ok)
		}
	}
	for in, want := range map[string]string{
		`gen -n 2`:                      `["gen" "-n" "2"]`,
		`range --from '2024-01-01 x' y`: `["range" "--from" "2024-01-01 x" "y"]`,
		`a "b \"c\"" d`:                 `["a" "b \"c\"" "d"]`,
		`fixtures -n 1 > out.ndjson`:    `["fixtures" "-n" "1" ">" "out.ndjson"]`,
	} {
		args, err := splitArgs(in)
		if got := fmt.Sprintf("%q", args); err != nil || got != want {
			t.Errorf("splitArgs(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	// Progress lines are left out, and only they.
	kept := withoutProgress([]string{"users: 9000/10000 docs (90%), 1,667 docs/s, ETA 600ms", "oidkit.users: inserted 10000, skipped 0 (already there), 5.9s, 1683 docs/s",
		"users: 10000/10000 docs (100%), 1,675 docs/s, 6s", "audit: 1200 IDs, 1,000 IDs/s", "people: count   1   0  pass"})
	if want := []string{"oidkit.users: inserted 10000, skipped 0 (already there), 5.9s, 1683 docs/s", "people: count   1   0  pass"}; !slices.Equal(kept, want) {
		t.Errorf("withoutProgress kept %q, want %q", kept, want)
	}
	if _, err := splitArgs(`a 'b`); err == nil {
		t.Error(`splitArgs("a 'b") accepted an unclosed quote`)
	}
	// A marker is for the one fence after it: a console block right after
	// a file block is run, not written as the file again.
	blocks := parseBlocks(t, "t.md", "<!-- file: a.json -->\n```json\n{}\n```\n\n```console\n$ oidkit gen\n```\n")
	if len(blocks) != 2 || blocks[0].asFile != "a.json" || blocks[1].asFile != "" || blocks[1].lang != "console" {
		t.Errorf("file block then console block parsed as %+v", blocks)
	}
}

// TestDocsSize holds every page under docs/ to a size a reader gets through:
// 20 KiB, and 25 KiB for benchmarks.md (today's figures, each with its
// command and date; older runs live in git) and reliability.md (one row per
// guarantee and the test that proves it). A page that outgrows its bound is
// tightened or split into a second page that it links.
func TestDocsSize(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no docs/*.md found")
	}
	for _, name := range files {
		limit := int64(20 << 10)
		switch filepath.Base(name) {
		case "benchmarks.md", "reliability.md":
			limit = 25 << 10
		}
		info, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() > limit {
			t.Errorf("%s is %d bytes (%.1f KiB), over its %d KiB", name, info.Size(), float64(info.Size())/1024, limit>>10)
		}
	}
}

// markdownLink is an inline link or image, [text](target) or
// [text](target "title"); the target is the first group.
var markdownLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)

// codeSpan is an inline code span, whose text is not a link.
var codeSpan = regexp.MustCompile("`[^`]*`")

// TestDocsLinks checks that every relative link of README.md and
// docs/*.md (outside code) names a file or directory that exists, relative
// to the page that holds it. Links with a scheme (https:, mailto:) and
// links to an anchor of the same page are not followed.
func TestDocsLinks(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)
	for _, name := range files {
		for _, l := range relativeLinks(t, name) {
			if _, err := os.Stat(filepath.Join(filepath.Dir(name), l.target)); err != nil {
				t.Errorf("%s:%d: link to %q: no such file", name, l.line, l.target)
			}
		}
	}
}

// docLink is a relative link target (anchor and query cut off) and its line.
type docLink struct {
	target string
	line   int
}

// relativeLinks returns the relative link targets of the Markdown file
// name, outside fenced blocks and code spans.
func relativeLinks(t *testing.T, name string) []docLink {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var (
		links   []docLink
		inFence bool
	)
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range markdownLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			if cut := strings.IndexAny(target, "#?"); cut >= 0 {
				target = target[:cut]
			}
			links = append(links, docLink{target: target, line: i + 1})
		}
	}
	return links
}

// TestDocsLinksConvention pins what relativeLinks takes for a link, so
// that TestDocsLinks cannot pass by reading none.
func TestDocsLinksConvention(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page.md")
	text := "See [a](a.md#part), ![b](img/b.png \"B\"), [c](https://example.org/x.md), [d](#here),\n" +
		"`[e](code.md)` and [f](../f.go).\n```\n[g](fenced.md)\n```\n"
	if err := os.WriteFile(page, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range relativeLinks(t, page) {
		got = append(got, fmt.Sprintf("%s:%d", l.target, l.line))
	}
	if want := []string{"a.md:1", "img/b.png:1", "../f.go:2"}; !slices.Equal(got, want) {
		t.Errorf("relativeLinks = %q, want %q", got, want)
	}
}
