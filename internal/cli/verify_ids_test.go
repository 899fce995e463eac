package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestVerifyIDsPasses(t *testing.T) {
	out, errOut, code := runApp(t, t.Context(), "", "verify", "ids", "-n", "3000", "--seed", "11")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"verify ids:", "seed 11", "PROPERTY", "v2 bson.ObjectID: {\"$oid\"} and \"hex\" in",
		"v1 primitive.ObjectID: parse: bad characters", "documented difference: json-oid-extra-keys", "result: PASS"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if beyondProgress(errOut) != "" {
		t.Errorf("stderr should hold nothing but progress: %q", errOut)
	}
}

func TestVerifyIDsJSON(t *testing.T) {
	out, _, code := runApp(t, t.Context(), "", "verify", "ids", "-n", "500", "--seed", "3", "--json")
	var rep struct {
		Title string
		OK    bool
		Rows  []struct {
			Name       string
			Cases      int64
			Mismatches int64
			Status     string
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || !rep.OK || len(rep.Rows) < 30 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	for _, r := range rep.Rows {
		if r.Status != "pass" || r.Cases == 0 || r.Mismatches != 0 {
			t.Errorf("row %+v", r)
		}
	}
	// Same seed, same cases.
	again, _, _ := runApp(t, t.Context(), "", "verify", "ids", "-n", "500", "--seed", "3", "--json")
	cut := func(s string) string { return s[:strings.Index(s, `"notes"`)] }
	if cut(again) != cut(out) {
		t.Error("same seed gave different rows")
	}
}

func TestVerifyIDsBadInput(t *testing.T) {
	cases := []struct {
		args []string
		err  string
	}{
		{[]string{"-n", "-5"}, "-n -5: expected a count from 0 to"},
		{[]string{"--seed", "x"}, `--seed "x": expected an unsigned integer`},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--nope"}, "ids: unknown flag --nope; see oidkit verify ids --help"},
	}
	for _, c := range cases {
		_, errOut, code := runApp(t, t.Context(), "", append([]string{"verify", "ids"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, c.err) {
			t.Errorf("verify ids %v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.err)
		}
	}
}
