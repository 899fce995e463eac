package rules

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func rawValue(t *testing.T, v any) bson.RawValue {
	t.Helper()
	typ, data, err := bson.MarshalValue(v)
	if err != nil {
		t.Fatal(err)
	}
	return bson.RawValue{Type: typ, Value: data}
}

func TestIntegral(t *testing.T) {
	for _, c := range []struct {
		in   any
		want int64
		ok   bool
	}{
		{int32(-7), -7, true},
		{int64(1 << 40), 1 << 40, true},
		{7.0, 7, true},
		{-0.0, 0, true},
		{7.5, 0, false},
		{math.NaN(), 0, false},
		{math.Inf(1), 0, false},
		{float64(1 << 63), 0, false}, // just past int64
		{-float64(1 << 63), math.MinInt64, true},
		{"7", 0, false},
		{true, 0, false},
	} {
		got, ok := Integral(rawValue(t, c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("Integral(%v) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
