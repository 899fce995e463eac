package cli

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oidkit/oidkit/oid"
)

func TestParseTimeForms(t *testing.T) {
	// The oracle is time.Date, independent of the parser's layouts.
	cases := []struct {
		in   string
		want time.Time
	}{
		{"2024-01-01", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
		{" 2024-02-29 ", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
		{"1970-01-01", time.Unix(0, 0).UTC()},
		{"2106-02-07", time.Date(2106, 2, 7, 0, 0, 0, 0, time.UTC)},
		{"2024-01-01T00:00:00Z", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"2024-01-01T02:00:00+02:00", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"2024-01-01T00:00:00.5Z", time.Date(2024, 1, 1, 0, 0, 0, 5e8, time.UTC)},
		{"1700000000", time.Date(2023, 11, 14, 22, 13, 20, 0, time.UTC)},
		{"0", time.Unix(0, 0).UTC()},
		{"4294967295", time.Date(2106, 2, 7, 6, 28, 15, 0, time.UTC)},
	}
	for _, c := range cases {
		got, err := parseTime(flagAt, c.in)
		if err != nil || !got.Equal(c.want) || got.Location() != time.UTC {
			t.Errorf("parseTime(%q) = %v, %v; want %v UTC", c.in, got, err, c.want)
		}
	}
	bad := []string{"", "2024-1-1", "2024-02-30", "2024-01-01T00:00:00", "01/02/2024", "2024-01-01Z", "1.5", "-1", "1969-12-31", "2106-02-08", "4294967296", "yesterday"}
	for _, in := range bad {
		if _, err := parseTime(flagFrom, in); err == nil || exitCode(err) != ExitUsage || !strings.Contains(err.Error(), "--from "+strconv.Quote(in)) {
			t.Errorf("parseTime(%q): %v; want a usage error naming --from %q", in, err, in)
		}
	}
}

// Every command that takes a time takes a date alone, as midnight UTC.
func TestDateAloneEverywhere(t *testing.T) {
	midnight := time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)
	out, errOut, code := runApp(t, t.Context(), "", "gen", "--at", "2024-03-05", "-n", "1")
	if code != ExitOK {
		t.Fatalf("gen --at DATE: %d %s", code, errOut)
	}
	id, err := oid.Parse(strings.TrimSpace(out))
	if err != nil || !id.Timestamp().Equal(midnight) {
		t.Errorf("gen --at 2024-03-05: %s (%v), want timestamp %v", out, err, midnight)
	}
	lo, _ := oid.FromTime(midnight)
	hi, _ := oid.FromTime(midnight.AddDate(0, 0, 1))
	out, errOut, code = runApp(t, t.Context(), "", "range", "--filter", "--from", "2024-03-05", "--to", "2024-03-06")
	want := `{"_id":{"$gte":{"$oid":"` + lo.Hex() + `"},"$lt":{"$oid":"` + hi.Hex() + `"}}}` + "\n"
	if code != ExitOK || out != want {
		t.Errorf("range with dates: %d %q %s; want %q", code, out, errOut, want)
	}
	p, err := planOf(t, "--at", "2024-03-05", "--seed", "1")
	if err != nil || !p.At.Equal(midnight) {
		t.Errorf("plan --at DATE: %v %v", p, err)
	}
	// fixtures writes createdAt at the time base: midnight of the date.
	out, errOut, code = runApp(t, t.Context(), "", "fixtures", "-n", "1", "--seed", "3", "--at", "2024-03-05")
	if code != ExitOK || !strings.Contains(out, `"createdAt":{"$date":"2024-03-05T00:00:00Z"}`) {
		t.Errorf("fixtures --at DATE: %d %s %s", code, out, errOut)
	}
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2024-01-01", "2024-01-01T00:00:00Z", "2024-01-01T00:00:00.123456789+05:30", "1700000000", "0", "-1",
		"4294967296", "9999-12-31", "0000-01-01", "2024-02-30", " 2024-01-01 ", "+5", "1e9", "2024-01-01T24:00:00Z", "\x00", "２０２４-01-01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseTime(flagAt, s)
		if err != nil {
			msg := err.Error()
			if exitCode(err) != ExitUsage || !strings.HasPrefix(msg, "--at "+strconv.Quote(s)+": ") {
				t.Fatalf("parseTime(%q): %q (exit %d); want a usage error naming --at and the value", s, msg, exitCode(err))
			}
			if !strings.Contains(msg, timeForms) && !strings.Contains(msg, "1970-01-01T00:00:00Z..2106-02-07T06:28:15Z") {
				t.Fatalf("parseTime(%q): %q names neither the accepted forms nor the range", s, msg)
			}
			return
		}
		if got.Location() != time.UTC || oid.CheckTime(got) != nil {
			t.Fatalf("parseTime(%q) = %v: not UTC or outside the ObjectID range", s, got)
		}
		// What was accepted is one of the forms: the same instant comes back
		// from the form it was written in.
		in := strings.TrimSpace(s)
		if n, err := strconv.ParseInt(in, 10, 64); err == nil {
			if got.Unix() != n || got.Nanosecond() != 0 {
				t.Fatalf("parseTime(%q) = %v, want Unix %d", s, got, n)
			}
		} else if len(in) == len("2006-01-02") {
			if got.Format("2006-01-02") != in || got.Hour()+got.Minute()+got.Second()+got.Nanosecond() != 0 {
				t.Fatalf("parseTime(%q) = %v, want midnight UTC of that date", s, got)
			}
		} else if pt, err := time.Parse(time.RFC3339Nano, in); err != nil || !pt.Equal(got) {
			t.Fatalf("parseTime(%q) = %v, not RFC 3339 (%v)", s, got, err)
		}
	})
}
