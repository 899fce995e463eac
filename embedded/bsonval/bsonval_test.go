package bsonval

import (
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func dec(t *testing.T, s string) bsoncore.Value {
	t.Helper()
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		t.Fatal(err)
	}
	return Decimal(d)
}

func doc(t *testing.T, ext string) bsoncore.Document {
	t.Helper()
	var raw bson.Raw
	if err := bson.UnmarshalExtJSON([]byte(ext), false, &raw); err != nil {
		t.Fatal(err)
	}
	return bsoncore.Document(raw)
}

// TestCompareOrder checks BSON order across type classes, as the manual's
// "Comparison/Sort Order" gives it, and numbers of every type by value.
func TestCompareOrder(t *testing.T) {
	ascending := []bsoncore.Value{
		{Type: bsoncore.TypeMinKey}, Null(), Double(math.NaN()), Int64(math.MinInt64), Double(-1.5), Int32(-1),
		Int32(0), dec(t, "0.5"), Int64(1 << 40), String("a"), String("b"), Doc(doc(t, `{"a": 1}`)),
		Array([]bsoncore.Value{Int32(1)}), Bool(false), Bool(true), DateTime(0), DateTime(5),
		{Type: bsoncore.TypeMaxKey},
	}
	for i := range ascending {
		for j := range ascending {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got := Compare(ascending[i], ascending[j]); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", Shell(ascending[i]), Shell(ascending[j]), got, want)
			}
		}
	}
	for _, eq := range [][2]bsoncore.Value{{Int32(2), Int64(2)}, {Int32(2), Double(2)}, {Double(2), dec(t, "2.0")}, {Missing, Null()}} {
		if Compare(eq[0], eq[1]) != 0 {
			t.Errorf("Compare(%s, %s) != 0", Shell(eq[0]), Shell(eq[1]))
		}
	}
	if Equal(Missing, Null()) != true || Equal(Int32(1), Bool(true)) {
		t.Error("Equal: null and missing are one class; a number never equals a boolean")
	}
}

func TestArith(t *testing.T) {
	for _, c := range []struct {
		op   byte
		a, b bsoncore.Value
		want string
	}{
		{'+', Int32(1), Int32(2), "3"},
		{'+', Int32(math.MaxInt32), Int32(1), "2147483648"},
		{'*', Int64(math.MaxInt64), Int32(2), "1.8446744073709552e+19"},
		{'+', Int32(1), Double(0.5), "1.5"},
		{'+', dec(t, "1.10"), Int32(1), `NumberDecimal("2.1")`},
	} {
		got := Arith(c.op, c.a, c.b)
		if Shell(got) != c.want {
			t.Errorf("%s %c %s = %s, want %s", Shell(c.a), c.op, Shell(c.b), Shell(got), c.want)
		}
	}
	if Arith('+', Int32(math.MaxInt32), Int32(1)).Type != bsoncore.TypeInt64 {
		t.Error("int32 overflow is not an int64")
	}
}

func TestPaths(t *testing.T) {
	d := doc(t, `{"a": [{"b": 1}, {"b": [2, 3]}, {"c": 4}], "x": {"y": "z"}}`)
	if got := Shell(Lookup(d, "x.y")); got != `"z"` {
		t.Errorf("Lookup x.y = %s", got)
	}
	if got := Shell(Lookup(d, "a.1.b.0")); got != "2" {
		t.Errorf("Lookup a.1.b.0 = %s", got)
	}
	if got := Lookup(d, "a.b"); got.Type != 0 {
		t.Errorf("Lookup fans out: %s", Shell(got))
	}
	var got []string
	for _, c := range Candidates(d, "a.b") {
		got = append(got, Shell(c.Value)+"@"+Shell(Int(int64(c.Pos))))
	}
	if want := `[1@0 [ 2, 3 ]@1 null@2]`; fmtList(got) != want {
		t.Errorf("Candidates a.b = %s, want %s", fmtList(got), want)
	}
	var fan []string
	for _, v := range FanValues(d, "a.b") {
		fan = append(fan, Shell(v))
	}
	if want := `[1 2 3 null]`; fmtList(fan) != want {
		t.Errorf("FanValues a.b = %s, want %s", fmtList(fan), want)
	}
	if Shell(SortKey(d, "a.b", false)) != "null" || Shell(SortKey(d, "a.b", true)) != "3" {
		t.Error("SortKey: least ascending, greatest descending")
	}
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}

func TestCollator(t *testing.T) {
	k, err := ParseCollation(Doc(doc(t, `{"locale": "en", "strength": 2}`)))
	if err != nil || k == nil {
		t.Fatal(k, err)
	}
	if !k.Equal(String("abc"), String("ABC")) || k.Compare(String("a"), String("B")) >= 0 {
		t.Error("strength 2 ignores case")
	}
	var none *Collator
	if none.Equal(String("abc"), String("ABC")) {
		t.Error("the simple collation compares bytes")
	}
	if k, err := ParseCollation(Doc(doc(t, `{"locale": "simple"}`))); k != nil || err != nil {
		t.Error("locale simple is no collator", k, err)
	}
	if _, err := ParseCollation(Doc(doc(t, `{"locale": "en", "bogus": 1}`))); err == nil {
		t.Error("an unknown field is refused")
	}
	if string(AppendGroupKey(nil, Int32(2))) != string(AppendGroupKey(nil, Double(2))) {
		t.Error("numbers equal by value share a group key")
	}
}

func TestAddTimeUnit(t *testing.T) {
	jan31 := time.Date(2024, 1, 31, 10, 0, 0, 0, time.UTC).UnixMilli()
	got, ok := AddTimeUnit(jan31, "month", 1)
	if want := time.Date(2024, 2, 29, 10, 0, 0, 0, time.UTC).UnixMilli(); !ok || got != want {
		t.Errorf("Jan 31 + 1 month = %v, want Feb 29", time.UnixMilli(got).UTC())
	}
	if got, ok := AddTimeUnit(0, "hour", 2); !ok || got != 2*3600*1000 {
		t.Errorf("2 hours = %d", got)
	}
	if _, ok := AddTimeUnit(0, "fortnight", 1); ok || IsTimeUnit("fortnight") {
		t.Error("an unknown unit")
	}
	if TypeName(0) != "missing" || TypeName(bsoncore.TypeInt64) != "long" {
		t.Error("TypeName")
	}
}
