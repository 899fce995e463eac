package cli

import (
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestRangeFilter(t *testing.T) {
	out, errOut, code := runApp(t, t.Context(), "", "range", "--from", "2024-01-01T00:00:00Z", "--to", "2024-01-02T00:00:00Z")
	want := "from    2024-01-01T00:00:00Z  659200800000000000000000  inclusive ($gte)\n" +
		"to      2024-01-02T00:00:00Z  659352000000000000000000  exclusive ($lt)\n" +
		`filter  {"_id":{"$gte":{"$oid":"659200800000000000000000"},"$lt":{"$oid":"659352000000000000000000"}}}` + "\n"
	if code != 0 || out != want || errOut != "" {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	// The bounds equal the driver's zero-tailed IDs, and the filter is
	// Extended JSON the driver reads.
	f, _, _ := runApp(t, t.Context(), "", "range", "--from", "1704067200", "--to", "1704153600", "--filter")
	var doc bson.D
	if err := bson.UnmarshalExtJSON([]byte(f), true, &doc); err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	cond := doc[0].Value.(bson.D)
	lo, hi := cond[0].Value.(bson.ObjectID), cond[1].Value.(bson.ObjectID)
	if cond[0].Key != "$gte" || cond[1].Key != "$lt" ||
		!lo.Timestamp().Equal(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) || !hi.Timestamp().Equal(time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)) ||
		lo.Hex()[8:] != "0000000000000000" || hi.Hex()[8:] != "0000000000000000" {
		t.Errorf("filter %s", f)
	}
}

func TestRangeRounding(t *testing.T) {
	cases := []struct {
		args   []string
		filter string
	}{
		{[]string{"--from", "0"}, `{"_id":{"$gte":{"$oid":"000000000000000000000000"}}}`},
		{[]string{"--from", "1.5"}, ""}, // not a format parseTime reads: bad input
		{[]string{"--from", "1970-01-01T00:00:01.5Z", "--to", "1970-01-01T00:00:02.5Z"}, `{"_id":{"$gte":{"$oid":"000000010000000000000000"},"$lt":{"$oid":"000000030000000000000000"}}}`},
		{[]string{"--from", "2106-02-07T06:28:15Z", "--to", "2106-02-07T06:28:15.5Z"}, `{"_id":{"$gte":{"$oid":"ffffffff0000000000000000"},"$lte":{"$oid":"ffffffffffffffffffffffff"}}}`},
		{[]string{"--from", "2038-01-19T03:14:07Z", "--to", "2038-01-19T03:14:09Z"}, `{"_id":{"$gte":{"$oid":"7fffffff0000000000000000"},"$lt":{"$oid":"800000010000000000000000"}}}`},
	}
	for _, c := range cases {
		out, errOut, code := runApp(t, t.Context(), "", append([]string{"range", "--filter"}, c.args...)...)
		if c.filter == "" {
			if code != ExitUsage {
				t.Errorf("range %v: exit %d %s", c.args, code, out)
			}
			continue
		}
		if code != 0 || out != c.filter+"\n" {
			t.Errorf("range %v: exit %d %q %s", c.args, code, out, errOut)
		}
	}
}

func TestRangeBadInput(t *testing.T) {
	cases := []struct {
		args []string
		err  string
	}{
		{nil, "--from is required"},
		{[]string{"--from", "soon"}, `--from "soon": expected RFC 3339`},
		{[]string{"--from", "2200-01-01T00:00:00Z"}, `--from "2200-01-01T00:00:00Z"`},
		{[]string{"--from", "-5"}, `--from "-5"`},
		{[]string{"--from", "100", "--to", "100"}, `--to "100": expected a time after --from "100"`},
		{[]string{"--from", "100", "--to", "50"}, `--to "50"`},
		{[]string{"--from", "100", "--to", "x"}, `--to "x"`},
		{[]string{"--from", "100", "stray"}, `unexpected argument "stray"`},
	}
	for _, c := range cases {
		out, errOut, code := runApp(t, t.Context(), "", append([]string{"range"}, c.args...)...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, c.err) {
			t.Errorf("range %v: exit %d, %q, %q; want 2 and %q", c.args, code, out, errOut, c.err)
		}
	}
}
