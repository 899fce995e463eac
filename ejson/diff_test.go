package ejson

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// driver is what the driver's reader makes of src: the bytes, and whether
// it accepted it.
func driver(src []byte) ([]byte, bool) {
	var raw bson.Raw
	if err := bson.UnmarshalExtJSON(src, false, &raw); err != nil {
		return nil, false
	}
	return raw, true
}

// checkAgainstDriver fails t unless AppendDocument, default and strict,
// agrees with the driver about src.
func checkAgainstDriver(t *testing.T, src []byte) {
	t.Helper()
	want, ok := driver(src)
	prefix := []byte("prefix")
	var d Decoder
	got, err := d.AppendDocument(bytes.Clone(prefix), src)
	if !bytes.HasPrefix(got, prefix) {
		t.Fatalf("%q: dst's bytes were not kept: %q", src, got)
	}
	got = got[len(prefix):]
	switch {
	case ok && err != nil:
		t.Fatalf("%q: the driver reads it as %v, ejson refuses it: %v", src, bson.Raw(want), err)
	case !ok && err == nil:
		t.Fatalf("%q: the driver refuses it, ejson reads it as %v (% x)", src, bson.Raw(got), got)
	case ok && !bytes.Equal(got, want):
		t.Fatalf("%q: bytes differ\n got % x\nwant % x", src, got, want)
	case ok && len(got) > 0 && bsoncore.Document(got).Validate() != nil:
		// What fixtures relies on to skip the driver's Validate.
		t.Fatalf("%q: accepted, but the BSON is not valid: %v", src, bsoncore.Document(got).Validate())
	case err != nil:
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) || e.Found == "" || e.Expected == "" {
			t.Fatalf("%q: error %v (%T) does not say what was found and expected", src, err, err)
		}
		if e.Offset < 0 || e.Offset > len(src) {
			t.Fatalf("%q: error offset %d outside the input", src, e.Offset)
		}
	}
	d.Strict = true
	sgot, serr := d.AppendDocument(nil, src)
	sok := ok && json.Valid(src)
	switch {
	case sok && serr != nil:
		t.Fatalf("%q: strict: valid JSON the driver reads, refused: %v", src, serr)
	case !sok && serr == nil:
		t.Fatalf("%q: strict: accepted (driver ok %v, json.Valid %v)", src, ok, json.Valid(src))
	case sok && !bytes.Equal(sgot, want):
		t.Fatalf("%q: strict: bytes differ\n got % x\nwant % x", src, sgot, want)
	}
}

// seeds are inputs of every type and their edge cases, valid and not.
var seeds = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":-0}`, `{"a":-0.0}`, `{"a":0.0}`, `{"a":1.5e300}`, `{"a":1e400}`, `{"a":-1e400}`, `{"a":1e-400}`,
	`{"a":2147483647}`, `{"a":2147483648}`, `{"a":-2147483648}`, `{"a":-2147483649}`, `{"a":9223372036854775807}`,
	`{"a":9223372036854775808}`, `{"a":-9223372036854775808}`, `{"a":-9223372036854775809}`, `{"a":123456789012345678901234567890}`,
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":1e+}`, `{"a":-}`, `{"a":+1}`, `{"a":1E5}`, `{"a":1e-5}`, `{"a":1:}`,
	`{"a":true}`, `{"a":false}`, `{"a":null}`, `{"a":tru}`, `{"a":truex}`, `{"a":nul}`, `{"a":fals}`, `{"a":falsee}`,
	`{"a":"s"}`, `{"a":"\u00e9\ud83d\ude00"}`, `{"a":"\ud83d"}`, `{"a":"\ud83dx"}`, `{"a":"\ud83d\n"}`, `{"a":"\ude00\ud83d"}`,
	`{"a":"\ud83d\ud83d\ude00"}`, `{"a":"\uZZZZ"}`, `{"a":"\u12"}`, `{"a":"\x"}`, `{"a":"\"\\\/\b\f\n\r\t"}`, "{\"a\":\"\x01\"}",
	"{\"a\":\"\xff\"}", "{\"\xff\":1}", `{"a\u0000b":1}`, `{"a":"b\u0000c"}`, `{"a.b":1,"$c":2}`, `{"a":1,"a":2}`,
	`{"a":[]}`, `{"a":[1,"x",{"b":[]},[[]]]}`, `{"a":[1,]}`, `{"a":[,1]}`, `{"a":[1 2]}`, `{"a":[}`, `{"a":{]}`,
	`{"_id":{"$oid":"5f3e1a2b3c4d5e6f70819203"}}`, `{"_id":{"$oid":"5F3E1A2B3C4D5E6F70819203"}}`, `{"_id":{"$oid":"xyz"}}`,
	`{"_id":{"$oid":1}}`, `{"_id":{"$oid":"5f3e1a2b3c4d5e6f70819203","x":1}}`,
	`{"d":{"$date":"2024-05-06T07:08:09.123Z"}}`, `{"d":{"$date":"2024-05-06T07:08:09Z"}}`, `{"d":{"$date":"2024-05-06T07:08:09.1Z"}}`,
	`{"d":{"$date":"2024-05-06T07:08:09.123456Z"}}`, `{"d":{"$date":"2024-05-06T07:08:09+02:00"}}`, `{"d":{"$date":"2024-05-06T07:08:09.5-0130"}}`,
	`{"d":{"$date":"2024-02-30T07:08:09Z"}}`, `{"d":{"$date":"2023-02-29T00:00:00Z"}}`, `{"d":{"$date":"2024-02-29T00:00:00Z"}}`,
	`{"d":{"$date":"2024-05-06T24:00:00Z"}}`, `{"d":{"$date":"2024-05-06T23:59:60Z"}}`, `{"d":{"$date":"0000-01-01T00:00:00Z"}}`,
	`{"d":{"$date":{"$numberLong":"-62135596800000"}}}`, `{"d":{"$date":{"$numberLong":"x"}}}`, `{"d":{"$date":1}}`, `{"d":{"$date":1.5}}`,
	`{"d":{"$date":{"$numberLong":{"$numberLong":"7"}}}}`, `{"d":{"$date":{"x":"1"}}}`, `{"d":{"$date":true}}`,
	`{"n":{"$numberInt":"42"}}`, `{"n":{"$numberInt":"+42"}}`, `{"n":{"$numberInt":"2147483648"}}`, `{"n":{"$numberInt":42}}`,
	`{"n":{"$numberLong":"9223372036854775807"}}`, `{"n":{"$numberLong":"9223372036854775808"}}`, `{"n":{"$numberLong":"-0"}}`,
	`{"n":{"$numberDouble":"1.5"}}`, `{"n":{"$numberDouble":"-0.0"}}`, `{"n":{"$numberDouble":"Infinity"}}`, `{"n":{"$numberDouble":"-Infinity"}}`,
	`{"n":{"$numberDouble":"NaN"}}`, `{"n":{"$numberDouble":"nan"}}`, `{"n":{"$numberDouble":"inf"}}`, `{"n":{"$numberDouble":"1e400"}}`,
	`{"n":{"$numberDouble":"0x1p-2"}}`, `{"n":{"$numberDouble":"1_0"}}`, `{"n":{"$numberDouble":1.5}}`,
	`{"n":{"$numberDecimal":"1.5"}}`, `{"n":{"$numberDecimal":"-0"}}`, `{"n":{"$numberDecimal":"NaN"}}`, `{"n":{"$numberDecimal":"1e6145"}}`,
	`{"n":{"$numberDecimal":"x"}}`, `{"n":{"$numberDecimal":"1234567890123456789012345678901234567"}}`,
	`{"b":{"$binary":{"base64":"AQID","subType":"00"}}}`, `{"b":{"$binary":{"subType":"80","base64":""}}}`, `{"b":{"$binary":{"base64":"AQID","subType":"02"}}}`,
	`{"b":{"$binary":{"base64":"AQID","subType":"100"}}}`, `{"b":{"$binary":{"base64":"AQI","subType":"00"}}}`, `{"b":{"$binary":{"base64":"AQID"}}}`,
	`{"b":{"$binary":"AQID","$type":"00"}}`, `{"b":{"$binary":"AQID","$type":"2"}}`, `{"b":{"$binary":"AQID","$type":{"$numberInt":"80"}}}`,
	`{"b":{"$binary":"AQID","$type":{"$code":"05"}}}`, `{"b":{"$binary":"AQID"}}`, `{"b":{"$binary":"AQID","x":"00"}}`,
	`{"b":{"$binary":{"base64":{"$code":"AQI=","$scope":{"subType":"00"}}}},"after":1}`,
	`{"u":{"$uuid":"00112233-4455-6677-8899-aabbccddeeff"}}`, `{"u":{"$uuid":"00112233445566778899aabbccddeeff"}}`, `{"u":{"$uuid":"0011223-34455-6677-8899-aabbccddeeff"}}`,
	`{"u":{"$uuid":{"base64":"AQID","subType":"04"}},"b":{"$binary":"AQID","$type":"00"}}`,
	`{"r":{"$regularExpression":{"pattern":"a.c","options":"xmi"}}}`, `{"r":{"$regularExpression":{"options":"","pattern":""}}}`,
	`{"r":{"$regularExpression":{"pattern":"a\u0000","options":""}}}`, `{"r":{"$regularExpression":{"pattern":"a","options":"\u00e9a\ud83d"}}}`,
	"{\"r\":{\"$regularExpression\":{\"pattern\":\"a\",\"options\":\"z\xffa\"}}}", `{"r":{"$regex":"a","$options":"i"}}`,
	`{"t":{"$timestamp":{"t":1,"i":2}}}`, `{"t":{"$timestamp":{"i":2,"t":4294967295}}}`, `{"t":{"$timestamp":{"t":4294967296,"i":2}}}`, `{"t":{"$timestamp":{"t":-1,"i":2}}}`,
	`{"t":{"$timestamp":{"t":1.0,"i":2}}}`, `{"t":{"$timestamp":{"t":1}}}`,
	`{"k":{"$minKey":1}}`, `{"k":{"$maxKey":1}}`, `{"k":{"$minKey":2}}`, `{"k":{"$maxKey":"1"}}`, `{"k":{"$undefined":true}}`, `{"k":{"$undefined":false}}`,
	`{"c":{"$code":"function(){}"}}`, `{"c":{"$code":"x","$scope":{"a":1}}}`, `{"c":{"$code":"x","$scope":{}}}`, `{"c":{"$code":"x","$scope":{},"y":1}}`,
	`{"c":{"$scope":{},"$code":"x"}}`, `{"c":{"$code":1}}`, `{"c":{"$code":"x","other":1}}`,
	`{"s":{"$symbol":"sym"}}`, `{"p":{"$dbPointer":{"$ref":"c","$id":{"$oid":"5f3e1a2b3c4d5e6f70819203"}}}}`,
	`{"p":{"$dbPointer":{"$ref":"c","$id":"5f3e1a2b3c4d5e6f70819203"}}}`, `{"p":{"$dbPointer":{"$id":{"$oid":"5f3e1a2b3c4d5e6f70819203"}}}}`,
	`{"$oid":"5f3e1a2b3c4d5e6f70819203"}`, `{"a":{"$foo":1}}`, `{"a":{"b":{"$oid":"5f3e1a2b3c4d5e6f70819203"},"$oid":"x"}}`,
	`{"a":1} trailing`, `{"a":1}{"b":2}`, `{"a":1`, `{"a"`, `{"a":}`, `{"a" 1}`, `{a:1}`, `{'a':1}`, `{"a":1,}`, `{,}`,
	`[]`, `[{"a":1}]`, `null`, ` null `, `nullx`, `"s"`, `1`, `true`, ``, `   `, `}`, `{"a":[1,2,{"$numberLong":"5"}]}`,
	`{"a":[{"$oid":"5f3e1a2b3c4d5e6f70819203"},{"$date":"2024-05-06T07:08:09Z"},{}]}`,
	"{\"a\":1}\n", "\t{\"a\" : 1 , \"b\" : [ 1 , 2 ] }\r\n",
}

func deep(n int) string {
	return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
}

func TestAgainstDriverSeeds(t *testing.T) {
	for _, s := range append(seeds, deep(199), deep(200), deep(201), `{"a":`+strings.Repeat("[", 300)+strings.Repeat("]", 300)+`}`) {
		checkAgainstDriver(t, []byte(s))
	}
}

func FuzzAgainstDriver(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(deep(201)))
	f.Fuzz(func(t *testing.T, src []byte) {
		checkAgainstDriver(t, src)
	})
}
