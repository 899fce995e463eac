package ejson

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/internal/testbson"
)

// The types a server may hold, the ones the embedded server refuses among
// them, are written as the driver writes them.
func TestAppendJSONEveryServerType(t *testing.T) {
	matchDriver(t, testbson.MustRaw(t, testbson.EveryServerType()))
}

// The indented form: each field on its own line, after the prefix and one
// indent per level; empty containers and wrappers stay on one line.
func TestEncoderIndent(t *testing.T) {
	raw := testbson.MustRaw(t, bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: bson.A{"x", bson.D{{Key: "b", Value: true}}}}, {Key: "e", Value: bson.A{}}, {Key: "o", Value: bson.D{{Key: "id", Value: testbson.TestOID}}}})
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
	raw := testbson.MustRaw(t, testbson.EveryType())
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
		{bson.D{{Key: "p", Value: bson.DBPointer{DB: `a"b`, Pointer: testbson.TestOID}}},
			`{"p":{"$dbPointer":{"$ref":"a\"b","$id":{"$oid":"65920000010203040500002a"}}}}`,
			`{"p":{"$dbPointer":{"$ref":"a\"b","$id":{"$oid":"65920000010203040500002a"}}}}`},
	}
	for _, c := range cases {
		raw := testbson.MustRaw(t, c.doc)
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
	good := testbson.MustRaw(t, testbson.EveryType())
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
		raw := testbson.MustRaw(t, bson.D{{Key: "v", Value: v}})
		for _, mode := range []Mode{Relaxed, Canonical} {
			if _, err := AppendJSON(nil, raw, mode); !errors.Is(err, ErrNotRepresentable) || !strings.Contains(err.Error(), `"v"`) {
				t.Errorf("%v (%s): %v", v, mode, err)
			}
		}
	}
}
