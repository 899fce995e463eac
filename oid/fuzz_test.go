package oid_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/internal/driverdiff"
	"github.com/oidkit/oidkit/oid"
)

// FuzzParse: Parse accepts exactly what both drivers' ObjectIDFromHex accept,
// with the same bytes, and its output round-trips.
func FuzzParse(f *testing.F) {
	for _, s := range mutations("507f1f77bcf86cd799439011") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		compareParse(t, s)
		if id, err := oid.Parse(s); err == nil {
			compareOutput(t, id)
		}
	})
}

// FuzzBytes: any 12 bytes give the drivers' hex, timestamp and JSON, and
// read back through every decoder.
func FuzzBytes(f *testing.F) {
	f.Add([]byte("0123456789ab"))
	f.Add(make([]byte, 12))
	f.Fuzz(func(t *testing.T, b []byte) {
		id, err := oid.FromBytes(b)
		if (err == nil) != (len(b) == 12) {
			t.Fatalf("FromBytes(%d bytes): %v", len(b), err)
		}
		if err == nil {
			compareOutput(t, id)
		}
	})
}

// FuzzUnmarshalJSON: UnmarshalJSON agrees with both drivers' UnmarshalJSON
// except where a documented difference applies; it never changes the value on
// error, and it accepts only what encoding/json calls valid.
func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{`"507f1f77bcf86cd799439011"`, `{"$oid":"507f1f77bcf86cd799439011"}`, `null`, `""`,
		`{"$oid":""}`, `{ "$oid" : "507F1F77BCF86CD799439011" }`, `123456789012`, `{"$OID":"507f1f77bcf86cd799439011"}`,
		`"507f1f77bcf86cd79943901\u0031"`, `[]`, `{"$oid":"507f1f77bcf86cd799439011","a":1}`} {
		f.Add([]byte(s))
	}
	set := oid.MustParse("0102030405060708090a0b0c")
	f.Fuzz(func(t *testing.T, b []byte) {
		o, d2, d1 := set, bson.ObjectID(set), primitive.ObjectID(set)
		err := o.UnmarshalJSON(b)
		err2 := d2.UnmarshalJSON(b)
		err1 := d1.UnmarshalJSON(b)
		if err != nil && o != set {
			t.Fatalf("%q: value changed on error: %s", b, o)
		}
		if err == nil && !json.Valid(b) {
			t.Fatalf("%q: accepted invalid JSON", b)
		}
		if err == nil && o != set {
			// What was read writes back as the driver writes it.
			out, _ := o.MarshalJSON()
			var back oid.ID
			if back.UnmarshalJSON(out) != nil || back != o {
				t.Fatalf("%q: round trip %s", b, out)
			}
		}
		if names := driverdiff.JSONDifferences(b); len(names) > 0 {
			return
		}
		if (err == nil) != (err2 == nil) || (err == nil) != (err1 == nil) {
			t.Fatalf("%q: ours %v, v2 %v, v1 %v", b, err, err2, err1)
		}
		if err == nil && (bson.ObjectID(o) != d2 || primitive.ObjectID(o) != d1) {
			t.Fatalf("%q: ours %s, v2 %s, v1 %s", b, o, d2.Hex(), d1.Hex())
		}
		if err != nil && !strings.HasPrefix(err.Error(), "oid: ") {
			t.Fatalf("%q: error without prefix: %v", b, err)
		}
	})
}
