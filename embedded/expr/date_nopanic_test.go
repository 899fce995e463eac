package expr

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/embedded/bsonval"
)

// Every date operator on argument values of every kind, in every
// position: each must give a value or an error, never panic.
func TestDateExprsNoPanic(t *testing.T) {
	values := []any{
		nil, true, 0, -1, 1, int32(math.MinInt32), int64(math.MaxInt64), int64(math.MinInt64), 1.5, 1e300, -1e300,
		math.NaN(), math.Inf(1), math.Inf(-1), decimal("1E+6000"), decimal("-7"), decimal("NaN"), "", "x", "week", "day", "hour",
		"millisecond", "year", "mon", "+99", "-00:00", "+14:00", "Europe/Paris", "../../etc/passwd", "%", "%Y-%m-%d",
		"%G%V%u%z%Z%j%b%B%%", "9999-12-31T23:59:59.999+14:00", "0000-01-01", "1/1/00", "Feb 29th, 2021", "+",
		bson.DateTime(math.MaxInt64), bson.DateTime(math.MinInt64), bson.DateTime(0), bson.Timestamp{T: math.MaxUint32},
		bson.NewObjectID(), bson.A{1}, bson.D{{Key: "a", Value: 1}}, bson.Binary{Data: []byte{1}},
	}
	value := func(x any) bsoncore.Value {
		b, err := bson.Marshal(bson.D{{Key: "v", Value: x}})
		if err != nil {
			t.Fatal(err)
		}
		return bsoncore.Document(b).Lookup("v")
	}
	ops := map[string][]string{
		"$dateAdd":        {"startDate", "unit", "amount", "timezone"},
		"$dateSubtract":   {"startDate", "unit", "amount", "timezone"},
		"$dateDiff":       {"startDate", "endDate", "unit", "timezone", "startOfWeek"},
		"$dateTrunc":      {"date", "unit", "binSize", "timezone", "startOfWeek"},
		"$dateFromParts":  {"year", "month", "day", "hour", "minute", "second", "millisecond", "timezone"},
		"$dateToParts":    {"date", "timezone", "iso8601"},
		"$dateFromString": {"dateString", "format", "timezone", "onError", "onNull"},
	}
	good := map[string]any{
		"startDate": bson.DateTime(0), "endDate": bson.DateTime(1), "date": bson.DateTime(0), "unit": "day",
		"amount": 1, "binSize": 1, "year": 2000, "dateString": "2000-01-01", "iso8601": true,
	}
	evals := 0
	for name, params := range ops {
		for _, p := range params {
			for _, x := range values {
				b := bsoncore.NewDocumentBuilder()
				for _, q := range params {
					switch {
					case q == p:
						b.AppendValue(q, value(x))
					case good[q] != nil:
						b.AppendValue(q, value(good[q]))
					}
				}
				one := b.Build()
				for _, all := range []bool{false, true} {
					spec := one
					if all {
						// the same value in every position
						ab := bsoncore.NewDocumentBuilder()
						for _, q := range params {
							ab.AppendValue(q, value(x))
						}
						spec = ab.Build()
					}
					func() {
						defer func() {
							if r := recover(); r != nil {
								t.Errorf("%s %s: panic %v", name, spec, r)
							}
						}()
						e, err := compileOp(name, bsonval.Doc(spec), nil)
						if err != nil {
							return
						}
						_, _ = e.Eval(bsoncore.NewDocumentBuilder().Build(), nil)
						evals++
					}()
				}
			}
		}
	}
	if evals == 0 {
		t.Fatal("nothing evaluated")
	}
}

// decimal is the Decimal128 s spells.
func decimal(s string) bson.Decimal128 {
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		panic(err)
	}
	return d
}
