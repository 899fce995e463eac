package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// MaxExamples is how many mismatch messages a Row keeps.
const MaxExamples = 5

// Status is the outcome of one row.
type Status string

// Row outcomes.
const (
	StatusPass    Status = "pass"
	StatusFail    Status = "fail"
	StatusSkipped Status = "skipped"
)

// Row is one checked property. It is not safe for concurrent use: give each
// goroutine its own rows, or merge with Add.
type Row struct {
	Name       string   `json:"name"`
	Cases      int64    `json:"cases"`
	Mismatches int64    `json:"mismatches"`
	Status     Status   `json:"status"`
	Reason     string   `json:"reason,omitempty"`   // why it was skipped (or failed without cases)
	Examples   []string `json:"examples,omitempty"` // the first MaxExamples mismatches
	skipped    bool
}

// Pass counts one case that matched.
func (r *Row) Pass() { r.Cases++ }

// Failf counts one case that did not match and keeps its message if fewer
// than MaxExamples are kept.
func (r *Row) Failf(format string, args ...any) {
	r.Cases++
	r.Mismatches++
	if len(r.Examples) < MaxExamples {
		r.Examples = append(r.Examples, fmt.Sprintf(format, args...))
	}
}

// Check is Pass when ok, else Failf.
func (r *Row) Check(ok bool, format string, args ...any) {
	if ok {
		r.Pass()
		return
	}
	r.Failf(format, args...)
}

// Add merges the counts and examples of other into r (for rows filled by
// several goroutines).
func (r *Row) Add(other *Row) {
	r.Cases += other.Cases
	r.Mismatches += other.Mismatches
	for _, e := range other.Examples {
		if len(r.Examples) >= MaxExamples {
			break
		}
		r.Examples = append(r.Examples, e)
	}
}

// Skip marks the row as not run, with the reason shown to the user
// ("server has no $toDate").
func (r *Row) Skip(reason string) {
	r.skipped = true
	r.Reason = reason
}

// Result is the row's status as the rules in the package doc give it.
func (r *Row) Result() Status {
	switch {
	case r.skipped:
		return StatusSkipped
	case r.Mismatches > 0, r.Cases == 0:
		return StatusFail
	default:
		return StatusPass
	}
}

// Report is an ordered list of rows under a title, plus free-form notes
// (such as the deliberate differences that were allowed).
type Report struct {
	Title  string   `json:"title"`
	Passed bool     `json:"ok"` // set when written: no row failed
	Rows   []*Row   `json:"rows"`
	Notes  []string `json:"notes,omitempty"`
}

// NewReport starts an empty report.
func NewReport(title string) *Report { return &Report{Title: title} }

// Row appends a new row and returns it for counting.
func (rep *Report) Row(name string) *Row {
	r := &Row{Name: name}
	rep.Rows = append(rep.Rows, r)
	return r
}

// Skip appends a row that could not run, with its reason.
func (rep *Report) Skip(name, reason string) *Row {
	r := rep.Row(name)
	r.Skip(reason)
	return r
}

// Note appends a line shown under the table.
func (rep *Report) Note(format string, args ...any) {
	rep.Notes = append(rep.Notes, fmt.Sprintf(format, args...))
}

// OK reports whether no row failed (skipped rows do not fail a report).
func (rep *Report) OK() bool {
	for _, r := range rep.Rows {
		if r.Result() == StatusFail {
			return false
		}
	}
	return true
}

func (rep *Report) finish() {
	rep.Passed = rep.OK()
	for _, r := range rep.Rows {
		r.Status = r.Result()
		if r.Status == StatusFail && r.Cases == 0 && r.Reason == "" {
			r.Reason = "no case was tried"
		}
	}
}

// WriteJSON writes the report as one JSON object followed by a newline:
// {"title":...,"ok":bool,"rows":[{"name","cases","mismatches","status",
// "reason","examples"}],"notes":[...]}.
func (rep *Report) WriteJSON(w io.Writer) error {
	rep.finish()
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteTable writes a readable table: one line per row (name and status
// left-aligned, counts right-aligned), the kept mismatch examples of each
// failing row, the notes, and a result line.
func (rep *Report) WriteTable(w io.Writer) error {
	rep.finish()
	var sb strings.Builder
	if rep.Title != "" {
		sb.WriteString(rep.Title + "\n\n")
	}
	nameW, casesW, misW := len("PROPERTY"), len("CASES"), len("MISMATCHES")
	for _, r := range rep.Rows {
		nameW = max(nameW, len(r.Name))
		casesW = max(casesW, len(Thousands(r.Cases)))
		misW = max(misW, len(Thousands(r.Mismatches)))
	}
	fmt.Fprintf(&sb, "%-*s  %*s  %*s  %s\n", nameW, "PROPERTY", casesW, "CASES", misW, "MISMATCHES", "STATUS")
	var failed, skipped int
	for _, r := range rep.Rows {
		status := string(r.Status)
		switch r.Status {
		case StatusSkipped:
			skipped++
			status += ": " + r.Reason
		case StatusFail:
			failed++
			if r.Reason != "" {
				status += ": " + r.Reason
			}
		}
		fmt.Fprintf(&sb, "%-*s  %*s  %*s  %s\n", nameW, r.Name, casesW, Thousands(r.Cases), misW, Thousands(r.Mismatches), status)
	}
	for _, r := range rep.Rows {
		if len(r.Examples) == 0 {
			continue
		}
		fmt.Fprintf(&sb, "\n%s: first %d of %s mismatches:\n", r.Name, len(r.Examples), Thousands(r.Mismatches))
		for _, e := range r.Examples {
			sb.WriteString("  " + e + "\n")
		}
	}
	if len(rep.Notes) > 0 {
		sb.WriteString("\nnotes:\n")
		for _, n := range rep.Notes {
			sb.WriteString("  - " + n + "\n")
		}
	}
	result := "PASS"
	if failed > 0 {
		result = "FAIL"
	}
	fmt.Fprintf(&sb, "\nresult: %s (%d properties: %d failed, %d skipped)\n", result, len(rep.Rows), failed, skipped)
	_, err := io.WriteString(w, sb.String())
	return err
}

// Thousands prints n with thousands separators, as report tables show
// counts: 1,000,000.
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
