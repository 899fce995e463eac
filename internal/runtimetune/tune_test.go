package runtimetune

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
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

func TestChooseFloor(t *testing.T) {
	s := Choose(env(nil), 8<<30)
	if s.Floor != Floor {
		t.Fatalf("got %+v, expected floor %d", s, Floor)
	}
	if s := Choose(env(map[string]string{"GOMEMLIMIT": "1GiB"}), 8<<30); s.Floor != 0 || s.Limit != 0 {
		t.Errorf("GOMEMLIMIT set: got %+v, expected nothing", s)
	}
}

func TestLimitFor(t *testing.T) {
	s := Settings{Applied: true, GCPercent: 400, Limit: 512 << 20, Floor: 48 << 20}
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, 48 << 20}, // the floor
		{8 << 20, 48 << 20},
		{48 << 20 / 5, 48 << 20},
		{10 << 20, 50 << 20}, // five times the live heap, from here on
		{100 << 20, 500 << 20},
		{103 << 20, 512 << 20}, // the ceiling holds
		{512 << 20, 512 << 20},
		{1 << 40, 512 << 20},
		{1<<64 - 1, 512 << 20}, // no overflow
	} {
		if got := s.LimitFor(c.live); got != c.want {
			t.Errorf("live %d: got %d, expected %d", c.live, got, c.want)
		}
	}
	// A ceiling below the floor (a small machine) is the limit.
	small := Settings{GCPercent: 400, Limit: MinLimit, Floor: MinLimit * 2}
	if got := small.LimitFor(1 << 20); got != MinLimit {
		t.Errorf("small machine: got %d, expected %d", got, MinLimit)
	}
	// Another GOGC gives its own factor.
	if got := (Settings{GCPercent: 100, Limit: 1 << 30, Floor: 1}).LimitFor(100 << 20); got != 200<<20 {
		t.Errorf("GOGC 100: got %d, expected %d", got, 200<<20)
	}
}

func TestLasting(t *testing.T) {
	var l lasting
	// One high collection among low ones does not count as lasting.
	for i, c := range []struct{ live, want uint64 }{
		{10, 10}, {50, 10}, {8, 8}, {9, 8}, {9, 8}, {9, 8}, {9, 8}, {9, 8},
		{9, 8}, {9, 8}, // the 8 is the oldest of the window
		{30, 9}, // the 8 has left the window
		{30, 9}, {30, 9}, {30, 9}, {30, 9}, {30, 9}, {30, 9},
		{30, 30}, // eight collections of 30: it lasts
		{5, 5},
	} {
		if got := l.add(c.live); got != c.want {
			t.Errorf("collection %d (live %d): got %d, expected %d", i, c.live, got, c.want)
		}
	}
}

// TestFollowTracksLiveHeap runs the real runtime: with a large slice live
// through Window collections, the limit is what GOGC allows for it, and it
// falls back to the floor once the slice is dropped.
func TestFollowTracksLiveHeap(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	s := Settings{Applied: true, GCPercent: 100, Limit: 1 << 30, Floor: 48 << 20}
	stop := follow(s)
	defer stop()

	const big = 96 << 20
	ballast := make([]byte, big)
	for i := range ballast {
		ballast[i] = byte(i) // touched, so it is no page the runtime could share
	}
	limit := waitLimit(t, func(l int64) bool { return l >= 2*big })
	if limit > 2*big+64<<20 {
		t.Errorf("with %d bytes live: limit %d, expected about %d", big, limit, 2*big)
	}
	runtime.KeepAlive(ballast)
	ballast = nil
	limit = waitLimit(t, func(l int64) bool { return l < big })
	if limit != s.Floor {
		t.Errorf("after the slice is dropped: limit %d, expected the floor %d", limit, s.Floor)
	}

	// Once stopped, collections leave the limit alone.
	stop()
	runtime.GC()
	time.Sleep(50 * time.Millisecond) // the finalizer that sees stop
	debug.SetMemoryLimit(12345 << 20)
	for range 3 {
		runtime.GC()
	}
	time.Sleep(50 * time.Millisecond)
	if got := debug.SetMemoryLimit(-1); got != 12345<<20 {
		t.Errorf("after stop: limit %d, expected it left at %d", got, 12345<<20)
	}
}

// waitLimit collects until the soft memory limit satisfies ok, and returns it.
func waitLimit(t *testing.T, ok func(int64) bool) int64 {
	t.Helper()
	var l int64
	for range 100 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs on its own goroutine
		if l = debug.SetMemoryLimit(-1); ok(l) {
			return l
		}
	}
	t.Fatalf("soft memory limit %d after 100 collections", l)
	return l
}

// TestApplyLeavesRuntimeWhenEnvSet: with GOGC or GOMEMLIMIT in the
// environment, Apply changes neither GOGC nor the limit, now or after
// collections.
func TestApplyLeavesRuntimeWhenEnvSet(t *testing.T) {
	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(name, func(t *testing.T) {
			value := map[string]string{"GOGC": "100", "GOMEMLIMIT": "1GiB"}[name]
			t.Setenv(name, value)
			prevLimit := debug.SetMemoryLimit(-1)
			prevGC := debug.SetGCPercent(137)
			defer debug.SetGCPercent(prevGC)
			if s := Apply(); s.Applied {
				t.Fatalf("%s=%s: applied %+v", name, value, s)
			}
			for range 3 {
				runtime.GC()
			}
			time.Sleep(20 * time.Millisecond)
			if got := debug.SetMemoryLimit(-1); got != prevLimit {
				t.Errorf("limit %d, expected it left at %d", got, prevLimit)
			}
			if got := debug.SetGCPercent(prevGC); got != 137 {
				t.Errorf("GOGC %d, expected it left at 137", got)
			}
		})
	}
}
