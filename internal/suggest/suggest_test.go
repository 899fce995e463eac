package suggest

import (
	"testing"
	"unicode/utf8"
)

// osaOracle is the optimal string alignment distance by its recursive
// definition, memoised: the oracle for Distance.
func osaOracle(a, b []rune) int {
	memo := map[[2]int]int{}
	var d func(i, j int) int
	d = func(i, j int) int {
		if i == 0 {
			return j
		}
		if j == 0 {
			return i
		}
		if v, ok := memo[[2]int{i, j}]; ok {
			return v
		}
		cost := 1
		if a[i-1] == b[j-1] {
			cost = 0
		}
		v := min(d(i-1, j)+1, d(i, j-1)+1, d(i-1, j-1)+cost)
		if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
			v = min(v, d(i-2, j-2)+1)
		}
		memo[[2]int{i, j}] = v
		return v
	}
	return d(len(a), len(b))
}

func TestEditDistance(t *testing.T) {
	cases := []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"", "abc", 3}, {"shopx", "shop", 1}, {"usr", "user", 1}, {"uesr", "user", 1},
		{"kitten", "sitting", 3}, {"ca", "abc", 3}, {"é", "e", 1}, {"seed", "seed", 0},
	}
	for _, c := range cases {
		if got := Distance(c.a, c.b); got != c.d || got != osaOracle([]rune(c.a), []rune(c.b)) {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

func FuzzEditDistance(f *testing.F) {
	for _, s := range [][2]string{{"shopx", "shop"}, {"uesr", "user"}, {"", "x"}, {"ab", "ba"}, {"\xff", "é"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 40 || len(b) > 40 {
			return
		}
		ra, rb := []rune(a), []rune(b)
		d := Distance(a, b)
		if d != osaOracle(ra, rb) || d != Distance(b, a) {
			t.Fatalf("Distance(%q, %q) = %d, oracle %d, reversed %d", a, b, d, osaOracle(ra, rb), Distance(b, a))
		}
		if n := max(utf8.RuneCountInString(a), utf8.RuneCountInString(b)); d > n || (d == 0) != (string(ra) == string(rb)) {
			t.Fatalf("Distance(%q, %q) = %d out of bounds", a, b, d)
		}
		_ = Nearest(a, []string{b, "seed", "user"})
	})
}

func TestSuggestion(t *testing.T) {
	cases := []struct {
		in   string
		cand []string
		want string
	}{
		{"shopx", []string{"shop"}, "shop"},
		{"usr", []string{"user", "employee", "product", "order"}, "user"},
		{"User", []string{"user"}, "user"},
		{"user", []string{"user"}, ""},
		{"x", []string{"n"}, ""},
		{"emp", []string{"user", "employee"}, ""},
		{"zzzzzz", []string{"shop"}, ""},
		{"sed", []string{"gen", "seed", "server"}, "seed"},
		{"--cont", []string{"-n", "--count", "--at"}, "--count"},
		{"", []string{"a"}, ""},
	}
	for _, c := range cases {
		if got := Nearest(c.in, c.cand); got != c.want {
			t.Errorf("Nearest(%q, %v) = %q, want %q", c.in, c.cand, got, c.want)
		}
	}
	if got := DidYouMean("shopx", []string{"shop"}); got != "; did you mean shop?" {
		t.Errorf("didYouMean = %q", got)
	}
}
