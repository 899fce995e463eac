package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/oid"
)

func TestInspectJSONExact(t *testing.T) {
	want := `{"id":"507f1f77bcf86cd799439011","timestamp":"2012-10-17T21:13:27Z","unix":1350508407,"random":"bcf86cd799","counter":4427793}` + "\n"
	for _, in := range []string{"507f1f77bcf86cd799439011", "507F1F77BCF86CD799439011", `ObjectId("507f1f77bcf86cd799439011")`,
		`ObjectID("507f1f77bcf86cd799439011")`, `{"$oid":"507f1f77bcf86cd799439011"}`, `"507f1f77bcf86cd799439011"`,
		// As pasted from articles and files: no quotes, curly quotes, a BOM.
		`ObjectId(507f1f77bcf86cd799439011)`, "ObjectId(\u201c507f1f77bcf86cd799439011\u201d)", "ObjectId(\u2018507f1f77bcf86cd799439011\u2019)",
		"\ufeff507f1f77bcf86cd799439011", " \ufeffObjectId(\"507f1f77bcf86cd799439011\") "} {
		out, errOut, code := runApp(t, t.Context(), "", "inspect", "--json", in)
		if code != 0 || out != want || errOut != "" {
			t.Errorf("inspect --json %s: exit %d\n%s%s", in, code, out, errOut)
		}
	}
}

func TestInspectEdgesAgainstDriver(t *testing.T) {
	for _, h := range []string{"000000000000000000000000", "ffffffffffffffffffffffff", "7fffffff0000000000000000", "800000000000000000ffffff"} {
		out, _, _ := runApp(t, t.Context(), "", "inspect", "--json", h)
		var got struct {
			ID        string
			Timestamp string
			Unix      int64
			Random    string
			Counter   uint32
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		d, _ := bson.ObjectIDFromHex(h)
		id := oid.MustParse(h)
		if got.ID != h || got.Timestamp != d.Timestamp().Format("2006-01-02T15:04:05Z07:00") || got.Unix != d.Timestamp().Unix() ||
			got.Random != h[8:18] || got.Counter != id.Counter() {
			t.Errorf("%s: %+v, driver time %v", h, got, d.Timestamp())
		}
	}
}

func TestInspectText(t *testing.T) {
	out, _, code := runApp(t, t.Context(), "", "inspect", "507f1f77bcf86cd799439011")
	want := "507f1f77bcf86cd799439011  time 2012-10-17T21:13:27Z  unix 1350508407  random bcf86cd799  counter 4427793\n"
	if code != 0 || out != want {
		t.Errorf("exit %d: %q", code, out)
	}
}

func TestInspectStdin(t *testing.T) {
	in := "507f1f77bcf86cd799439011\r\n\n  6553f1003f2a91c8d4003039  \n"
	out, errOut, code := runApp(t, t.Context(), in, "inspect", "--json")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 2 || errOut != "" || !strings.Contains(lines[1], `"unix":1700000000,"random":"3f2a91c8d4","counter":12345`) {
		t.Errorf("exit %d: %q %q", code, out, errOut)
	}
	// gen | inspect round trip.
	gen, _, _ := runApp(t, t.Context(), "", "gen", "-n", "50", "--seed", "9", "--at", "1700000000")
	out, _, code = runApp(t, t.Context(), gen, "inspect", "--json")
	if code != 0 || strings.Count(out, `"timestamp":"2023-11-14T22:13:20Z"`) != 50 {
		t.Errorf("gen | inspect: exit %d\n%s", code, out)
	}
}

func TestInspectBadInput(t *testing.T) {
	cases := []struct {
		args  []string
		stdin string
		err   string
	}{
		{[]string{"507f1f7zbcf86cd799439011"}, "", `"507f1f7zbcf86cd799439011": invalid character 'z' at position 7`},
		{[]string{"507f"}, "", `"507f": length 4, expected 24 hex characters`},
		{[]string{`{"$oid":"nope"}`}, "", `"{\"$oid\":\"nope\"}": expected 24 hex characters`},
		{[]string{`ObjectId("123")`}, "", `length 3`},
		{nil, "xyz\n", `"xyz": length 3`},
		{nil, strings.Repeat("a", 2<<20), "longer than 1 MiB"},
		{nil, "", "no ID given"},
		{[]string{"507f1f77bcf86cd7994390é1"}, "", `"507f1f77bcf86cd7994390é1": invalid character 'é' at position 22, expected 0-9, a-f or A-F`},
		{[]string{"507f1f77bcf86cd79943901€"}, "", `invalid character '€' at position 23`},
		{nil, "５07f1f77bcf86cd799439011\n", `invalid character '５' at position 0`},
		{nil, "\n  \n\t\n", "no ID given"},
	}
	for _, c := range cases {
		_, errOut, code := runApp(t, t.Context(), c.stdin, append([]string{"inspect"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, c.err) || strings.Contains(errOut, "panic") {
			t.Errorf("inspect %v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.err)
		}
	}
	// Good IDs are still decoded around a bad one.
	out, errOut, code := runApp(t, t.Context(), "", "inspect", "507f1f77bcf86cd799439011", "bad", "6553f1003f2a91c8d4003039")
	if code != ExitUsage || strings.Count(out, "\n") != 2 || !strings.Contains(errOut, `"bad": length 3`) {
		t.Errorf("mixed: exit %d, %q, %q", code, out, errOut)
	}
}
