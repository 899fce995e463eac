package seed

import (
	"errors"
	"testing"
	"time"
)

func TestParseSeed(t *testing.T) {
	for in, want := range map[string]uint64{"0": 0, "42": 42, " 7 ": 7, "18446744073709551615": 1<<64 - 1} {
		if got, err := ParseSeed(in); err != nil || got != want {
			t.Errorf("ParseSeed(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "abc", "-1", "1.5", "18446744073709551616", "0x10"} {
		_, err := ParseSeed(in)
		var pe *PlanError
		if !errors.As(err, &pe) || !errors.Is(err, ErrPlan) || pe.Setting != SettingSeed || pe.Value != in {
			t.Errorf("ParseSeed(%q) error = %#v, want a seed PlanError", in, err)
		}
	}
}

func TestTimeBase(t *testing.T) {
	at := time.Date(2030, 5, 6, 7, 8, 9, 500, time.FixedZone("x", 3600))
	if got, want := TimeBase(at, false), time.Date(2030, 5, 6, 6, 8, 9, 0, time.UTC); !got.Equal(want) || got.Location() != time.UTC || got.Nanosecond() != 0 {
		t.Errorf("TimeBase(at) = %v, want %v in UTC", got, want)
	}
	if got := TimeBase(time.Time{}, true); !got.Equal(DefaultBase) {
		t.Errorf("TimeBase(seeded) = %v, want %v", got, DefaultBase)
	}
	before := time.Now().Unix()
	got := TimeBase(time.Time{}, false).Unix()
	if after := time.Now().Unix(); got < before || got > after {
		t.Errorf("TimeBase(unseeded) = %d, want the clock in [%d, %d]", got, before, after)
	}
	// Build uses the same base.
	ds, err := (&Plan{Seeded: true, Collections: []CollectionSpec{{Name: "u", Kind: KindUser, Count: 1}}}).Build()
	if err != nil || !ds.Base.Equal(DefaultBase) {
		t.Errorf("Build base = %v, %v", ds, err)
	}
}
