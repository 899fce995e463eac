package verify

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestReportTableAndJSON(t *testing.T) {
	rep := NewReport("verify test")
	ok := rep.Row("bytes (v2)")
	for i := 0; i < 1500; i++ {
		ok.Pass()
	}
	bad := rep.Row("hex (v1)")
	for i := 0; i < 8; i++ {
		bad.Check(i%2 == 0, "case %d differs", i)
	}
	rep.Skip("timestamp on server", "server has no $toDate")
	rep.Row("empty")
	rep.Note("upper case is accepted by both")

	if rep.OK() {
		t.Fatal("OK() with failing rows")
	}
	var tb bytes.Buffer
	if err := rep.WriteTable(&tb); err != nil {
		t.Fatal(err)
	}
	out := tb.String()
	for _, want := range []string{
		"bytes (v2)           1,500           0  pass",
		"hex (v1)                 8           4  fail",
		"skipped: server has no $toDate",
		"empty                    0           0  fail: no case was tried",
		"hex (v1): first 4 of 4 mismatches:\n  case 1 differs\n",
		"  - upper case is accepted by both",
		"result: FAIL (4 properties: 2 failed, 1 skipped)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}

	var jb bytes.Buffer
	if err := rep.WriteJSON(&jb); err != nil {
		t.Fatal(err)
	}
	var got struct {
		OK   bool `json:"ok"`
		Rows []struct {
			Name       string
			Cases      int64
			Mismatches int64
			Status     string
			Reason     string
			Examples   []string
		}
	}
	if err := json.Unmarshal(jb.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, jb.String())
	}
	if got.OK || len(got.Rows) != 4 || got.Rows[0].Status != "pass" || got.Rows[1].Status != "fail" ||
		got.Rows[1].Mismatches != 4 || len(got.Rows[1].Examples) != 4 || got.Rows[2].Status != "skipped" ||
		got.Rows[2].Reason != "server has no $toDate" {
		t.Errorf("unexpected JSON: %s", jb.String())
	}
}

func TestRowKeepsFirstExamplesAndMerges(t *testing.T) {
	var a, b Row
	for i := 0; i < 10; i++ {
		a.Failf("a%d", i)
		b.Failf("b%d", i)
	}
	if len(a.Examples) != MaxExamples || a.Examples[0] != "a0" {
		t.Fatalf("examples %v", a.Examples)
	}
	a.Add(&b)
	if a.Cases != 20 || a.Mismatches != 20 || len(a.Examples) != MaxExamples {
		t.Fatalf("after Add: %+v", a)
	}
	rep := NewReport("")
	rep.Row("x").Pass()
	rep.Skip("y", "why")
	if !rep.OK() {
		t.Fatal("pass + skipped should be OK")
	}
}
