package ejson

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// doc builds the BSON the tests expect, element by element.
func doc(elems ...[]byte) []byte {
	return bsoncore.BuildDocument(nil, elems...)
}

func TestEveryType(t *testing.T) {
	oid := [12]byte{0x5f, 0x3e, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e, 0x6f, 0x70, 0x81, 0x92, 0x03}
	dec, _ := bson.ParseDecimal128("1.5")
	hi, lo := dec.GetBytes()
	cases := []struct {
		name, in string
		want     []byte
	}{
		{"int32", `{"a":1}`, doc(bsoncore.AppendInt32Element(nil, "a", 1))},
		{"minus zero integer is int32 0", `{"a":-0}`, doc(bsoncore.AppendInt32Element(nil, "a", 0))},
		{"minus zero double", `{"a":-0.0}`, doc(bsoncore.AppendDoubleElement(nil, "a", math.Copysign(0, -1)))},
		{"int64", `{"a":2147483648}`, doc(bsoncore.AppendInt64Element(nil, "a", 2147483648))},
		{"beyond int64 is a double", `{"a":9223372036854775808}`, doc(bsoncore.AppendDoubleElement(nil, "a", 9223372036854775808))},
		{"double", `{"a":1.5}`, doc(bsoncore.AppendDoubleElement(nil, "a", 1.5))},
		{"$numberInt", `{"a":{"$numberInt":"-7"}}`, doc(bsoncore.AppendInt32Element(nil, "a", -7))},
		{"$numberLong", `{"a":{"$numberLong":"7"}}`, doc(bsoncore.AppendInt64Element(nil, "a", 7))},
		{"$numberDouble NaN", `{"a":{"$numberDouble":"NaN"}}`, doc(bsoncore.AppendDoubleElement(nil, "a", math.NaN()))},
		{"$numberDouble -Infinity", `{"a":{"$numberDouble":"-Infinity"}}`, doc(bsoncore.AppendDoubleElement(nil, "a", math.Inf(-1)))},
		{"$numberDecimal", `{"a":{"$numberDecimal":"1.5"}}`, doc(bsoncore.AppendDecimal128Element(nil, "a", hi, lo))},
		{"string with escapes and a surrogate pair", `{"a":"\u00e9\ud83d\ude00\n"}`, doc(bsoncore.AppendStringElement(nil, "a", "é😀\n"))},
		{"lone surrogate", `{"a":"\ud83dx"}`, doc(bsoncore.AppendStringElement(nil, "a", "\ufffdx"))},
		{"bool and null", `{"a":true,"b":null}`, doc(bsoncore.AppendBooleanElement(nil, "a", true), bsoncore.AppendNullElement(nil, "b"))},
		{"$oid", `{"_id":{"$oid":"5f3e1a2b3c4d5e6f70819203"}}`, doc(bsoncore.AppendObjectIDElement(nil, "_id", oid))},
		{"$date string", `{"d":{"$date":"1970-01-01T00:00:01.5Z"}}`, doc(bsoncore.AppendDateTimeElement(nil, "d", 1500))},
		{"$date offset", `{"d":{"$date":"1970-01-01T01:00:00+01:00"}}`, doc(bsoncore.AppendDateTimeElement(nil, "d", 0))},
		{"$date $numberLong", `{"d":{"$date":{"$numberLong":"-1"}}}`, doc(bsoncore.AppendDateTimeElement(nil, "d", -1))},
		{"$date number", `{"d":{"$date":86400000}}`, doc(bsoncore.AppendDateTimeElement(nil, "d", 86400000))},
		{"$binary", `{"b":{"$binary":{"base64":"AQI=","subType":"80"}}}`, doc(bsoncore.AppendBinaryElement(nil, "b", 0x80, []byte{1, 2}))},
		{"$binary subtype 2", `{"b":{"$binary":{"base64":"AQI=","subType":"02"}}}`, doc(bsoncore.AppendBinaryElement(nil, "b", 2, []byte{1, 2}))},
		{"legacy $binary", `{"b":{"$binary":"AQI=","$type":"5"}}`, doc(bsoncore.AppendBinaryElement(nil, "b", 5, []byte{1, 2}))},
		{"$uuid", `{"u":{"$uuid":"00112233-4455-6677-8899-aabbccddeeff"}}`, doc(bsoncore.AppendBinaryElement(nil, "u", 4,
			[]byte{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}))},
		{"regex options sorted", `{"r":{"$regularExpression":{"pattern":"a","options":"xmi"}}}`, doc(bsoncore.AppendRegexElement(nil, "r", "a", "imx"))},
		{"$timestamp", `{"t":{"$timestamp":{"t":4294967295,"i":1}}}`, doc(bsoncore.AppendTimestampElement(nil, "t", 4294967295, 1))},
		{"$minKey $maxKey $undefined", `{"a":{"$minKey":1},"b":{"$maxKey":1},"c":{"$undefined":true}}`,
			doc(bsoncore.AppendMinKeyElement(nil, "a"), bsoncore.AppendMaxKeyElement(nil, "b"), bsoncore.AppendUndefinedElement(nil, "c"))},
		{"$code", `{"c":{"$code":"f()"}}`, doc(bsoncore.AppendJavaScriptElement(nil, "c", "f()"))},
		{"$code $scope", `{"c":{"$code":"f()","$scope":{"x":1}}}`,
			doc(bsoncore.AppendCodeWithScopeElement(nil, "c", "f()", doc(bsoncore.AppendInt32Element(nil, "x", 1))))},
		{"$symbol", `{"s":{"$symbol":"x"}}`, doc(bsoncore.AppendSymbolElement(nil, "s", "x"))},
		{"$dbPointer", `{"p":{"$dbPointer":{"$ref":"c","$id":{"$oid":"5f3e1a2b3c4d5e6f70819203"}}}}`, doc(bsoncore.AppendDBPointerElement(nil, "p", "c", oid))},
		{"nested document and array", `{"a":{"b":[1,{"c":[]}]}}`, doc(bsoncore.AppendDocumentElement(nil, "a", doc(
			bsoncore.AppendArrayElement(nil, "b", doc(bsoncore.AppendInt32Element(nil, "0", 1), bsoncore.AppendDocumentElement(nil, "1",
				doc(bsoncore.AppendArrayElement(nil, "c", doc()))))))))},
		{"unknown $ key is a document", `{"a":{"$foo":1}}`, doc(bsoncore.AppendDocumentElement(nil, "a", doc(bsoncore.AppendInt32Element(nil, "$foo", 1))))},
		{"wrapper key at the top is a field", `{"$oid":"x"}`, doc(bsoncore.AppendStringElement(nil, "$oid", "x"))},
		{"duplicate keys kept", `{"a":1,"a":2}`, doc(bsoncore.AppendInt32Element(nil, "a", 1), bsoncore.AppendInt32Element(nil, "a", 2))},
		{"dots and dollars in keys", `{"a.b":1,"$c":2}`, doc(bsoncore.AppendInt32Element(nil, "a.b", 1), bsoncore.AppendInt32Element(nil, "$c", 2))},
		{"empty", ` {} `, doc()},
	}
	for _, c := range cases {
		got, err := AppendDocument(nil, []byte(c.in))
		if err != nil {
			t.Errorf("%s: %s: %v", c.name, c.in, err)
			continue
		}
		if !bytes.Equal(got, c.want) {
			t.Errorf("%s: %s:\n got %v\nwant %v", c.name, c.in, bson.Raw(got), bson.Raw(c.want))
		}
	}
}

// Every refusal says where, what was found (naming the value) and what
// was expected.
func TestErrorsNameValueAndExpected(t *testing.T) {
	cases := []struct{ in, found, expected string }{
		{`{"_id":{"$oid":"xyz"}}`, `"xyz"`, "24 hexadecimal digits"},
		{`{"a":{"$numberInt":"2147483648"}}`, `"2147483648"`, "-2147483648 to 2147483647"},
		{`{"a":{"$numberLong":"x1"}}`, `"x1"`, "integer"},
		{`{"a":{"$numberDouble":"1e400"}}`, `"1e400"`, "range of a double"},
		{`{"a":{"$numberDecimal":"abc"}}`, `"abc"`, "decimal"},
		{`{"d":{"$date":"yesterday"}}`, `"yesterday"`, "RFC 3339"},
		{`{"b":{"$binary":{"base64":"!!","subType":"00"}}}`, `"!!"`, "base64"},
		{`{"b":{"$binary":{"base64":"AA==","subType":"zz"}}}`, `"zz"`, "hexadecimal"},
		{`{"u":{"$uuid":"0011"}}`, `"0011"`, "36 characters"},
		{`{"k":{"$minKey":2}}`, "2", "the number 1"},
		{`{"a":1e400}`, "1e400", "range of a double"},
		{`{"a":tru}`, `"tru}"`, "true, false or null"},
		{`{"a":1,}`, "}", "key"},
		{`{"a" 1}`, "1", ":"},
		{`{"a\u0000b":1}`, `"a\x00b"`, "without \\u0000"},
		{`{"a":"\x"}`, `\x`, `\uXXXX`},
		{`{"a":"open`, "not closed", `"`},
		{`[1]`, "array", "JSON object"},
		{``, "end of the input", "JSON object"},
	}
	for _, c := range cases {
		_, err := AppendDocument(nil, []byte(c.in))
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v (%T), want an *Error", c.in, err, err)
			continue
		}
		if !strings.Contains(e.Found, c.found) || !strings.Contains(e.Expected, c.expected) || !strings.Contains(err.Error(), "expected") {
			t.Errorf("%s: %v: want found to name %s and expected to say %q", c.in, err, c.found, c.expected)
		}
	}
}

func TestStrict(t *testing.T) {
	d := Decoder{Strict: true}
	for _, in := range []string{`{"a":1} x`, `{"a":1}{}`, "{\"a\":\"\x01\"}", `{"a":"\uzzzz"}`} {
		if _, err := AppendDocument(nil, []byte(in)); err != nil {
			t.Errorf("%q: the default mode, as the driver, reads it: %v", in, err)
		}
		if _, err := d.AppendDocument(nil, []byte(in)); err == nil {
			t.Errorf("%q: strict accepted text that is not one JSON object", in)
		}
	}
	got, err := d.AppendDocument(nil, []byte(" {\"a\":1}\n"))
	if err != nil || !bytes.Equal(got, doc(bsoncore.AppendInt32Element(nil, "a", 1))) {
		t.Errorf("strict, white space around: %v %v", bson.Raw(got), err)
	}
}

// The top-level null is no document, as the driver reads it.
func TestNull(t *testing.T) {
	got, err := AppendDocument([]byte("x"), []byte("null"))
	if err != nil || string(got) != "x" {
		t.Fatalf("null: %q %v; want nothing appended and no error", got, err)
	}
}

// A Decoder reused for many documents gives what a new one gives, and an
// error leaves dst as it was.
func TestDecoderReuse(t *testing.T) {
	var d Decoder
	var out []byte
	var want []byte
	for i, s := range seeds {
		before := len(out)
		var err error
		out, err = d.AppendDocument(out, []byte(s))
		fresh, ferr := AppendDocument(nil, []byte(s))
		if (err == nil) != (ferr == nil) {
			t.Fatalf("seed %d %q: reused %v, fresh %v", i, s, err, ferr)
		}
		if err != nil {
			if len(out) != before {
				t.Fatalf("seed %d %q: an error appended %d bytes", i, s, len(out)-before)
			}
			continue
		}
		if !bytes.Equal(out[before:], fresh) {
			t.Fatalf("seed %d %q: reused decoder gives % x, fresh % x", i, s, out[before:], fresh)
		}
		want = append(want, fresh...)
	}
	if !bytes.Equal(out, want) {
		t.Fatal("appended documents differ from the fresh ones")
	}
}

// Decoding allocates nothing once a Decoder has warmed up.
func TestAllocs(t *testing.T) {
	src := []byte(benchDocs[0])
	var d Decoder
	buf := make([]byte, 0, 4096)
	if _, err := d.AppendDocument(buf, src); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = d.AppendDocument(buf[:0], src) }); n != 0 {
		t.Errorf("%v allocations per document, want 0", n)
	}
}

// The documents writers produce take the fast path; what it gives is
// checked against the driver with every other input (FuzzAgainstDriver).
func TestFastPathTakesWritersOutput(t *testing.T) {
	var d Decoder
	for _, s := range append(benchDocs, `{"a":[1,{"b":{"$numberDecimal":"1.5"}}],"c":{"$binary":{"subType":"04","base64":"AAECAwQFBgcICQoLDA0ODw=="}}}`) {
		if _, ok := d.fastDocument(nil, []byte(s)); !ok {
			t.Errorf("%s: left to the state machine", s)
		}
	}
	for _, s := range []string{`{"a":{"$regularExpression":{"pattern":"a","options":""}}}`, `{"a":{"$oid":"xyz"}}`, `null`} {
		if _, ok := d.fastDocument(nil, []byte(s)); ok {
			t.Errorf("%s: taken by the fast path", s)
		}
	}
}
