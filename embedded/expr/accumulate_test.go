package expr

import (
	"math"
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

// TestSumFoldsAsArith: $sum and $avg over random runs of integers near
// the int32 and int64 limits, doubles, decimals and non-numbers give the
// value, of the type, that adding them one by one with bsonval.Arith
// gives (MongoDB's promotion: int32 to int64 to double on overflow).
func TestSumFoldsAsArith(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pick := []func() bsoncore.Value{
		func() bsoncore.Value { return bsonval.Int32(int32(r.IntN(2000) - 1000)) },
		func() bsoncore.Value { return bsonval.Int32(math.MaxInt32 - int32(r.IntN(3))) },
		func() bsoncore.Value { return bsonval.Int32(math.MinInt32 + int32(r.IntN(3))) },
		func() bsoncore.Value { return bsonval.Int64(math.MaxInt64 - int64(r.IntN(3))) },
		func() bsoncore.Value { return bsonval.Int64(math.MinInt64 + int64(r.IntN(3))) },
		func() bsoncore.Value { return bsonval.Int64(int64(r.IntN(2000) - 1000)) },
		func() bsoncore.Value { return bsonval.Double(r.Float64()*10 - 5) },
		func() bsoncore.Value {
			return bsonval.Decimal(bson.NewDecimal128(0x3040000000000000, uint64(r.IntN(100))))
		},
		func() bsoncore.Value { return bsonval.String("x") },
		func() bsoncore.Value { return bsonval.Null() },
	}
	for round := range 3000 {
		n := 1 + r.IntN(8)
		kinds := 1 + r.IntN(len(pick)) // later rounds mix more kinds
		sum, avg := NewAccumulator("$sum"), NewAccumulator("$avg")
		want, count := bsonval.Int32(0), 0
		for range n {
			v := pick[r.IntN(kinds)]()
			sum.Add(v)
			avg.Add(v)
			if bsonval.IsNumber(v) {
				want = bsonval.Arith('+', want, v)
				count++
			}
		}
		if got := sum.Result(); got.Type != want.Type || !got.Equal(want) {
			t.Fatalf("round %d: $sum gave %s (%s), adding one by one gives %s (%s)", round, got, got.Type, want, want.Type)
		}
		wantAvg := bsonval.Null()
		switch {
		case count > 0 && want.Type == bsoncore.TypeDecimal128:
			wantAvg = want
		case count > 0:
			wantAvg = bsonval.Double(bsonval.NumberFloat(want) / float64(count))
		}
		if got := avg.Result(); got.Type != wantAvg.Type || !got.Equal(wantAvg) {
			t.Fatalf("round %d: $avg gave %s, want %s", round, got, wantAvg)
		}
	}
}
