package crosscheck

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/oidkit/oidkit/internal/driverdiff"
	"github.com/oidkit/oidkit/verify"
)

func TestIDsPasses(t *testing.T) {
	rep := IDs(IDsOptions{N: 5000, Seed: 1, Deep: 2000})
	var out bytes.Buffer
	rep.WriteTable(&out)
	if !rep.OK() {
		t.Fatalf("verify ids failed:\n%s", out.String())
	}
	for _, r := range rep.Rows {
		if r.Result() != verify.StatusPass || r.Cases == 0 {
			t.Errorf("row %q: %s with %d cases", r.Name, r.Result(), r.Cases)
		}
	}
	t.Log("\n" + out.String())
	for _, want := range []string{"v2 bson.ObjectID: hex", "v1 primitive.ObjectID: parse: whitespace",
		"documented difference: json-raw-12", "generation: consecutive counters (mod 2^24)", "result: PASS"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// The same seed and N check the same cases whatever the number of workers.
func TestIDsDeterministic(t *testing.T) {
	a := IDs(IDsOptions{N: 9000, Seed: 5, Workers: 1, Deep: 100})
	b := IDs(IDsOptions{N: 9000, Seed: 5, Workers: 3, Deep: 100})
	if len(a.Rows) < 30 || len(a.Rows) != len(b.Rows) {
		t.Fatalf("%d rows with 1 worker, %d with 3; want the same number, at least 30", len(a.Rows), len(b.Rows))
	}
	total := int64(0)
	for i := range a.Rows {
		total += a.Rows[i].Cases
		if a.Rows[i].Name != b.Rows[i].Name || a.Rows[i].Cases != b.Rows[i].Cases || a.Rows[i].Mismatches != b.Rows[i].Mismatches {
			t.Errorf("row %d: %s %d cases %d mismatches vs %s %d cases %d mismatches", i,
				a.Rows[i].Name, a.Rows[i].Cases, a.Rows[i].Mismatches, b.Rows[i].Name, b.Rows[i].Cases, b.Rows[i].Mismatches)
		}
	}
	if total < 9000 {
		t.Errorf("%d cases in all; want at least N = 9000", total)
	}
}

// The checks can fail: a wrong expectation is caught and shown.
func TestIDsRowsCanFail(t *testing.T) {
	r := rows{}
	checkParse(newIDRows(r), kindLength, "507f1f77bcf86cd79943901") // agrees: both reject
	if r.get(v2+": "+rowLength).Mismatches != 0 {
		t.Fatal("agreeing case counted as a mismatch")
	}
	al := allowed{}
	checkJSONIn(r, al, []byte(`{"$oid":"507f1f77bcf86cd799439011","x":1}`), driverdiff.JSONDifferences)
	if al["json-oid-extra-keys"] != 1 || r.get(v2+": "+rowJSONMutated).Mismatches != 0 {
		t.Errorf("documented difference not tallied: %v", al)
	}
	// Without the documented names, the same real differences are mismatches
	// and are shown: the check is able to fail.
	none := func([]byte) []string { return nil }
	for _, in := range []string{`123456789012`, `{"$OID":"507f1f77bcf86cd799439011"}`, `""`} {
		checkJSONIn(r, al, []byte(in), none)
	}
	row := r.get(v2 + ": " + rowJSONMutated)
	if row.Mismatches != 3 || row.Result() != verify.StatusFail || !strings.Contains(strings.Join(row.Examples, "\n"), "123456789012") {
		t.Errorf("undocumented differences not caught: %+v", row)
	}
	if r.get(v1+": "+rowJSONMutated).Mismatches != 1 { // v1 agrees with oid on {"$OID"} and ""
		t.Errorf("v1 row: %+v", r.get(v1+": "+rowJSONMutated))
	}
}

func TestIDsJSONReport(t *testing.T) {
	rep := IDs(IDsOptions{N: 100, Seed: 2, Deep: 50})
	var out bytes.Buffer
	if err := rep.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var got struct {
		OK    bool
		Rows  []verify.Row
		Notes []string
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || !got.OK || len(got.Rows) < 30 {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(got.Notes) < len(Differences()) {
		t.Errorf("notes %v", got.Notes)
	}
}
