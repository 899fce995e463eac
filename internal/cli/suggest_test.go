package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// osaOracle is the optimal string alignment distance by its recursive
// definition, memoised: the oracle for editDistance.
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
		if got := editDistance(c.a, c.b); got != c.d || got != osaOracle([]rune(c.a), []rune(c.b)) {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
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
		d := editDistance(a, b)
		if d != osaOracle(ra, rb) || d != editDistance(b, a) {
			t.Fatalf("editDistance(%q, %q) = %d, oracle %d, reversed %d", a, b, d, osaOracle(ra, rb), editDistance(b, a))
		}
		if n := max(utf8.RuneCountInString(a), utf8.RuneCountInString(b)); d > n || (d == 0) != (string(ra) == string(rb)) {
			t.Fatalf("editDistance(%q, %q) = %d out of bounds", a, b, d)
		}
		_ = suggestion(a, []string{b, "seed", "user"})
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
		if got := suggestion(c.in, c.cand); got != c.want {
			t.Errorf("suggestion(%q, %v) = %q, want %q", c.in, c.cand, got, c.want)
		}
	}
	if got := didYouMean("shopx", []string{"shop"}); got != "; did you mean shop?" {
		t.Errorf("didYouMean = %q", got)
	}
}

// The suggestions reach the user through the commands.
func TestDidYouMeanThroughTheApp(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"seed", "--plan", "shopx"}, "did you mean shop?"},
		{[]string{"fixtures", "--kind", "usr"}, "did you mean user?"},
		{[]string{"fixtures", "--id", "ints"}, "did you mean int?"},
		{[]string{"fixtures", "--id", "feild:email"}, "did you mean field:email?"},
		{[]string{"sed"}, `unknown command "sed"; did you mean seed?`},
		{[]string{"verify", "idz"}, `unknown command "idz"; did you mean ids?`},
		{[]string{"gen", "--cont", "3"}, "unknown flag --cont; did you mean --count?"},
		{[]string{"--versio"}, "unknown flag --versio; did you mean --version?"},
		{[]string{"zzzz"}, `unknown command "zzzz"; run 'oidkit help' for the list`},
	}
	for _, c := range cases {
		_, errOut, code := runApp(t, t.Context(), "", c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("oidkit %v: exit %d, %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
	// A plan file's unknown kind is suggested too.
	plan := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(plan, []byte(`{"collections":[{"name":"a","kind":"prodcut","count":1}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runApp(t, t.Context(), "", "fixtures", "--plan", plan, "--out", t.TempDir()); code != ExitUsage || !strings.Contains(errOut, "did you mean product?") {
		t.Errorf("plan kind prodcut: %d %q", code, errOut)
	}
}
