package runtimetune

import (
	"os"
	"path/filepath"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestChooseLeavesUserSettings(t *testing.T) {
	for _, vars := range []map[string]string{{"GOGC": "100"}, {"GOMEMLIMIT": "1GiB"}, {"GOGC": "off", "GOMEMLIMIT": "2GiB"}} {
		if s := Choose(env(vars), 8<<30); s.Applied {
			t.Errorf("%v: applied %+v, expected nothing", vars, s)
		}
	}
}

func TestChooseLimit(t *testing.T) {
	for _, c := range []struct {
		avail, want int64
	}{
		{0, MaxLimit},
		{64 << 30, MaxLimit},
		{1 << 30, 256 << 20},
		{100 << 20, MinLimit},
	} {
		s := Choose(env(nil), c.avail)
		if !s.Applied || s.Limit != c.want || s.GCPercent != GCPercent {
			t.Errorf("available %d: got %+v, expected limit %d and GOGC %d", c.avail, s, c.want, GCPercent)
		}
	}
}

func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMemTotal(t *testing.T) {
	if got := memTotal(write(t, "MemFree: 5 kB\nMemTotal:       24684096 kB\n")); got != 24684096<<10 {
		t.Errorf("got %d", got)
	}
	for _, bad := range []string{"", "MemTotal: x kB\n", "MemFree: 5 kB\n"} {
		if got := memTotal(write(t, bad)); got != 0 {
			t.Errorf("%q: got %d, expected 0", bad, got)
		}
	}
	if got := memTotal(filepath.Join(t.TempDir(), "missing")); got != 0 {
		t.Errorf("missing file: got %d", got)
	}
}

func TestCgroupLimit(t *testing.T) {
	for content, want := range map[string]int64{"max\n": 0, "1073741824\n": 1 << 30, "9223372036854771712": 9223372036854771712, "-1": 0} {
		if got := cgroupLimit(write(t, content)); got != want {
			t.Errorf("%q: got %d, expected %d", content, got, want)
		}
	}
}
