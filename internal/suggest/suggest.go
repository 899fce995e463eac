// Package suggest owns the "did you mean" of every message that names an
// unknown value: the nearest of the names that were expected, by edit
// distance.
package suggest

import (
	"strings"
	"unicode/utf8"
)

// Distance is the optimal string alignment distance between a and b, in
// runes: insertions, deletions, substitutions and swaps of two adjacent
// runes each cost 1 ("usr" -> "user" is 1, "uesr" -> "user" is 1).
func Distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	// Three rows: two back for swaps.
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}

// Nearest is the candidate nearest to s, ignoring case, or "" when none is
// near enough to be what was meant: at most one edit per three runes of the
// candidate (at least one), and fewer edits than s has runes (so "x" does
// not suggest "n"). Ties go to the earlier candidate. An exact match is no
// suggestion.
func Nearest(s string, candidates []string) string {
	in := strings.ToLower(s)
	best, bestD := "", 0
	for _, c := range candidates {
		if c == s {
			return ""
		}
		d := Distance(in, strings.ToLower(c))
		limit := max(1, utf8.RuneCountInString(c)/3)
		if d > limit || d >= utf8.RuneCountInString(s) {
			continue
		}
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// DidYouMean is "; did you mean X?" for the suggestion for s among
// candidates, or "" when there is none: every message that suggests a
// name says it this way.
func DidYouMean(s string, candidates []string) string {
	if c := Nearest(s, candidates); c != "" {
		return "; did you mean " + c + "?"
	}
	return ""
}
