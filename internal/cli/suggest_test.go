package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
