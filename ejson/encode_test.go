package ejson

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

var testOID = bson.ObjectID{0x65, 0x92, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x00, 0x00, 0x2a}

// seedLikeDoc holds every type seed documents use.
func seedLikeDoc(i int) bson.D {
	id := testOID
	id[11] = byte(i)
	return bson.D{
		{Key: "_id", Value: id},
		{Key: "i32", Value: int32(-42 - i)},
		{Key: "i64big", Value: int64(1) << 40},
		{Key: "i64small", Value: int64(7)},
		{Key: "dbl", Value: 19.99},
		{Key: "dblInt", Value: 3.0},
		{Key: "str", Value: "Smith \"quoted\" \\ tab\t nl\n é 日本 \u2028 <&>"},
		{Key: "yes", Value: true},
		{Key: "no", Value: false},
		{Key: "at", Value: bson.DateTime(1704067200123)},
		{Key: "before1970", Value: bson.DateTime(-86400000)},
		{Key: "uuid", Value: bson.Binary{Subtype: 4, Data: []byte{0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}}},
		// FerretDB rejects nested arrays, and seed does not make them.
		{Key: "tags", Value: bson.A{"a", int32(1), bson.D{{Key: "x", Value: int64(-5)}}}},
		{Key: "address", Value: bson.D{{Key: "city", Value: "Lyon"}, {Key: "geo", Value: bson.D{{Key: "lat", Value: 45.76}, {Key: "lng", Value: 4.84}}}}},
		{Key: "empty", Value: bson.D{}},
		{Key: "nothing", Value: nil},
	}
}

// everyType adds the BSON types seed does not use.
func everyType() bson.D {
	d := seedLikeDoc(0)
	dec, _ := bson.ParseDecimal128("1.5E-10")
	return append(d,
		// FerretDB stores -0.0 as 0.0 (MongoDB keeps the sign).
		bson.E{Key: "negZero", Value: math.Copysign(0, -1)},
		bson.E{Key: "nested", Value: bson.A{bson.A{int32(1)}, bson.A{}}},
		bson.E{Key: "bin0", Value: bson.Binary{Subtype: 0, Data: []byte("hello")}},
		bson.E{Key: "binOld", Value: bson.Binary{Subtype: 2, Data: []byte("old")}},
		bson.E{Key: "undef", Value: bson.Undefined{}},
		bson.E{Key: "re", Value: bson.Regex{Pattern: `^a"b\d`, Options: "mi"}},
		bson.E{Key: "ptr", Value: bson.DBPointer{DB: "db.coll", Pointer: testOID}},
		bson.E{Key: "js", Value: bson.JavaScript("function(){return 1}")},
		bson.E{Key: "sym", Value: bson.Symbol("sym")},
		bson.E{Key: "cws", Value: bson.CodeWithScope{Code: "x", Scope: bson.D{{Key: "x", Value: int32(1)}}}},
		bson.E{Key: "ts", Value: bson.Timestamp{T: 1700000000, I: 7}},
		bson.E{Key: "dec", Value: dec},
		bson.E{Key: "min", Value: bson.MinKey{}},
		bson.E{Key: "max", Value: bson.MaxKey{}},
		bson.E{Key: "inf", Value: math.Inf(1)},
		bson.E{Key: "ninf", Value: math.Inf(-1)},
		bson.E{Key: "nan", Value: math.NaN()},
		bson.E{Key: "big", Value: 1e300},
		bson.E{Key: "tiny", Value: 5e-324},
		bson.E{Key: "far", Value: bson.DateTime(300000000000000)},
		bson.E{Key: "ctl", Value: "\x00\x01\x1f\x7f"},
	)
}

func mustRaw(t testing.TB, v any) bson.Raw {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// everyServerType holds the types the embedded server refuses, and keys with
// dots and dollars, which MongoDB stores.
func everyServerType() bson.D {
	dec := func(s string) bson.Decimal128 {
		d, err := bson.ParseDecimal128(s)
		if err != nil {
			panic(err)
		}
		return d
	}
	return bson.D{
		{Key: "_id", Value: "every-type"},
		{Key: "negZero", Value: math.Copysign(0, -1)},
		{Key: "nan", Value: math.NaN()},
		{Key: "inf", Value: math.Inf(1)},
		{Key: "ninf", Value: math.Inf(-1)},
		{Key: "dec", Value: bson.A{dec("0"), dec("-0"), dec("1.5E-10"), dec("-123.456"), dec("9.999999999999999999999999999999999E+6144"), dec("1E-6176"), dec("NaN"), dec("Infinity"), dec("-Infinity")}},
		{Key: "min", Value: bson.MinKey{}},
		{Key: "max", Value: bson.MaxKey{}},
		{Key: "js", Value: bson.JavaScript("function(){return 1}")},
		{Key: "cws", Value: bson.CodeWithScope{Code: "x", Scope: bson.D{{Key: "x", Value: int32(1)}}}},
		{Key: "sym", Value: bson.Symbol("sym")},
		{Key: "undef", Value: bson.Undefined{}},
		{Key: "ptr", Value: bson.DBPointer{DB: "db.coll", Pointer: testOID}},
		{Key: "nestedArrays", Value: bson.A{bson.A{int32(1), bson.A{}}, bson.A{}}},
		{Key: "a.b", Value: "dotted key"},
		{Key: "sub", Value: bson.D{{Key: "$dollar", Value: int32(1)}, {Key: "x.y", Value: int32(2)}, {Key: "$ref", Value: "c"}, {Key: "$id", Value: int32(3)}}},
		{Key: "date", Value: bson.A{bson.DateTime(math.MinInt64), bson.DateTime(math.MaxInt64), bson.DateTime(-1)}},
		{Key: "all", Value: bson.D{{Key: "i32", Value: int32(1)}, {Key: "i64", Value: int64(1)}, {Key: "d", Value: 1.0}, {Key: "ts", Value: bson.Timestamp{T: 1, I: 2}}}},
	}
}

// The types a server may hold, the ones the embedded server refuses among
// them, are written as the driver writes them.
func TestAppendJSONEveryServerType(t *testing.T) {
	matchDriver(t, mustRaw(t, everyServerType()))
}

// The indented form: each field on its own line, after the prefix and one
// indent per level; empty containers and wrappers stay on one line.
func TestEncoderIndent(t *testing.T) {
	raw := mustRaw(t, bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: bson.A{"x", bson.D{{Key: "b", Value: true}}}}, {Key: "e", Value: bson.A{}}, {Key: "o", Value: bson.D{{Key: "id", Value: testOID}}}})
	e := Encoder{Prefix: "> ", Indent: "\t"}
	got, err := e.AppendJSON([]byte("start "), raw)
	if err != nil {
		t.Fatal(err)
	}
	want := "start {\n> \t\"_id\": 1,\n> \t\"a\": [\n> \t\t\"x\",\n> \t\t{\n> \t\t\t\"b\": true\n> \t\t}\n> \t],\n> \t\"e\": [],\n> \t\"o\": {\n> \t\t\"id\": {\"$oid\":\"65920000010203040500002a\"}\n> \t}\n> }"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The compact text is the driver's, byte for byte, in canonical mode, and in
// relaxed mode apart from the documented int64 difference.
func TestAppendJSONMatchesDriver(t *testing.T) {
	raw := mustRaw(t, everyType())
	for _, mode := range []Mode{Canonical, Relaxed} {
		got, err := AppendJSON(nil, raw, mode)
		if err != nil {
			t.Fatal(err)
		}
		want, err := bson.MarshalExtJSON(raw, mode == Canonical, false)
		if err != nil {
			t.Fatal(err)
		}
		if mode == Relaxed {
			want = bytes.Replace(want, []byte(`"i64small":7`), []byte(`"i64small":{"$numberLong":"7"}`), 1)
			want = bytes.Replace(want, []byte(`"x":-5`), []byte(`"x":{"$numberLong":"-5"}`), 1)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%v:\n got %s\nwant %s", mode, got, want)
		}
	}
}

func TestAppendJSONVectors(t *testing.T) {
	cases := []struct {
		doc       bson.D
		canonical string
		relaxed   string
	}{
		{bson.D{{Key: "_id", Value: int32(10)}, {Key: "EmployeeName", Value: "Smith"}},
			`{"_id":{"$numberInt":"10"},"EmployeeName":"Smith"}`,
			`{"_id":10,"EmployeeName":"Smith"}`},
		{bson.D{{Key: "n", Value: int64(5)}, {Key: "m", Value: int64(3000000000)}, {Key: "k", Value: int64(math.MinInt32)}, {Key: "j", Value: int64(math.MinInt32 - 1)}},
			`{"n":{"$numberLong":"5"},"m":{"$numberLong":"3000000000"},"k":{"$numberLong":"-2147483648"},"j":{"$numberLong":"-2147483649"}}`,
			`{"n":{"$numberLong":"5"},"m":3000000000,"k":{"$numberLong":"-2147483648"},"j":-2147483649}`},
		{bson.D{{Key: "d", Value: 1.0}, {Key: "e", Value: 0.0}, {Key: "f", Value: 1.5e300}},
			`{"d":{"$numberDouble":"1.0"},"e":{"$numberDouble":"0.0"},"f":{"$numberDouble":"1.5E+300"}}`,
			`{"d":1.0,"e":0.0,"f":1.5E+300}`},
		{bson.D{{Key: "t", Value: bson.NewDateTimeFromTime(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))}},
			`{"t":{"$date":{"$numberLong":"1704067200000"}}}`,
			`{"t":{"$date":"2024-01-01T00:00:00Z"}}`},
		{bson.D{{Key: "u", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}},
			`{"u":{"$binary":{"base64":"AAAAAAAAAAAAAAAAAAAAAA==","subType":"04"}}}`,
			`{"u":{"$binary":{"base64":"AAAAAAAAAAAAAAAAAAAAAA==","subType":"04"}}}`},
		{bson.D{{Key: "p", Value: bson.DBPointer{DB: `a"b`, Pointer: testOID}}},
			`{"p":{"$dbPointer":{"$ref":"a\"b","$id":{"$oid":"65920000010203040500002a"}}}}`,
			`{"p":{"$dbPointer":{"$ref":"a\"b","$id":{"$oid":"65920000010203040500002a"}}}}`},
	}
	for _, c := range cases {
		raw := mustRaw(t, c.doc)
		for _, m := range []struct {
			mode Mode
			want string
		}{{Canonical, c.canonical}, {Relaxed, c.relaxed}} {
			got, err := AppendJSON(nil, raw, m.mode)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != m.want {
				t.Errorf("%v:\n got %s\nwant %s", m.mode, got, m.want)
			}
		}
	}
}

func TestMalformedBSON(t *testing.T) {
	good := mustRaw(t, everyType())
	for n := 0; n < len(good); n++ {
		if _, err := AppendJSON(nil, good[:n], Relaxed); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	bad := bytes.Clone(good)
	bad[4] = 0x42 // unknown type
	if _, err := AppendJSON(nil, bad, Relaxed); !errors.Is(err, ErrMalformedBSON) {
		t.Errorf("unknown type: %v", err)
	}
}

func TestParseMode(t *testing.T) {
	for s, want := range map[string]Mode{"relaxed": Relaxed, "Canonical": Canonical, " canonical ": Canonical} {
		if got, err := ParseMode(s); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseMode("strict"); !errors.Is(err, ErrBadMode) || !strings.Contains(err.Error(), `"strict"`) {
		t.Errorf("ParseMode(strict): %v", err)
	}
}

func TestNotRepresentable(t *testing.T) {
	payloadNaN := math.Float64frombits(0x7ff8000000000123)
	for _, v := range []any{
		"a\xffb",
		payloadNaN,
		bson.NewDecimal128(0x7c00000000000000, 1),                                  // NaN with a payload
		bson.NewDecimal128(0x3040000000000000|0x1ed09bead87c0, 0x378d8e6400000000), // 10^34: over 34 digits, read as 0
	} {
		raw := mustRaw(t, bson.D{{Key: "v", Value: v}})
		for _, mode := range []Mode{Relaxed, Canonical} {
			if _, err := AppendJSON(nil, raw, mode); !errors.Is(err, ErrNotRepresentable) || !strings.Contains(err.Error(), `"v"`) {
				t.Errorf("%v (%s): %v", v, mode, err)
			}
		}
	}
}
