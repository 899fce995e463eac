package crosscheck

import (
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/oid"
)

// Difference is a deliberate difference between package oid and the
// drivers, named as in the oid package doc. Check returns nil while both the
// drivers and oid behave as documented, so a driver release that changes one
// is caught.
type Difference struct {
	Name    string
	Summary string
	Check   func() error
}

const exampleHex = "507f1f77bcf86cd799439011"

var (
	exampleID = oid.MustParse(exampleHex)
	otherID   = oid.MustParse("0102030405060708090a0b0c")
)

// Differences lists the deliberate differences in the order of the oid
// package doc.
func Differences() []Difference {
	return []Difference{
		{"string-format", `String() is the bare hex; the drivers print ObjectID("...")`, diffStringFormat},
		{"error-types", "every oid parse error matches ErrInvalidHex and names the input and the reason; the drivers return ErrInvalidHex only for a wrong length", diffErrorTypes},
		{"time-range", "NewWithTime/FromTime refuse a time outside 1970..2106; the drivers' NewObjectIDFromTimestamp wraps it", diffTimeRange},
		{"json-raw-12", "the drivers' UnmarshalJSON takes any 12-byte input as raw ID bytes; oid rejects it", diffJSONRaw12},
		{"json-empty-string", `"" is the nil ID (as v1); v2 leaves the value unchanged`, diffJSONEmptyString},
		{"json-oid-empty", `{"$oid":""} is an error (as v2); v1 decodes it to the nil ID`, diffJSONOIDEmpty},
		{"json-oid-key-case", `the key must be exactly "$oid" (as v1); v2 also accepts {"$OID":...}`, diffJSONOIDKeyCase},
		{"json-oid-extra-keys", `{"$oid":"...","x":1} is an error; both drivers ignore other members`, diffJSONOIDExtraKeys},
		{"json-string-escapes", `JSON strings are decoded by JSON rules (escapes, surrounding whitespace), as in v1; v2 reads the raw bytes`, diffJSONStringEscapes},
		{"json-invalid", `input that is not valid JSON is an error; v2 accepts some ("507f…011x)`, diffJSONInvalid},
		{"json-error-leaves-value", "on error oid never changes the value; v1 may leave it partly overwritten", diffJSONErrorLeavesValue},
	}
}

// diffStringFormat checks the difference string-format.
func diffStringFormat() error {
	want := `ObjectID("` + exampleHex + `")`
	if s := bson.ObjectID(exampleID).String(); s != want {
		return fmt.Errorf("v2 String() = %s", s)
	}
	if s := primitive.ObjectID(exampleID).String(); s != want {
		return fmt.Errorf("v1 String() = %s", s)
	}
	if exampleID.String() != exampleHex {
		return fmt.Errorf("oid String() = %s", exampleID.String())
	}
	return nil
}

// diffErrorTypes checks the difference error-types.
func diffErrorTypes() error {
	bad := "507f1f7zbcf86cd799439011"
	if _, err := bson.ObjectIDFromHex(bad); err == nil || errors.Is(err, bson.ErrInvalidHex) {
		return fmt.Errorf("v2 bad-character error %v", err)
	}
	if _, err := primitive.ObjectIDFromHex(bad); err == nil || errors.Is(err, primitive.ErrInvalidHex) {
		return fmt.Errorf("v1 bad-character error %v", err)
	}
	if _, err := bson.ObjectIDFromHex("abc"); err != bson.ErrInvalidHex {
		return fmt.Errorf("v2 length error %v", err)
	}
	_, err := oid.Parse(bad)
	var pe *oid.ParseError
	if !errors.Is(err, oid.ErrInvalidHex) || !errors.Is(err, oid.ErrInvalidChar) || !errors.As(err, &pe) || pe.Input != bad || pe.Pos != 7 {
		return fmt.Errorf("oid error %v", err)
	}
	return nil
}

// diffTimeRange checks the difference time-range.
func diffTimeRange() error {
	before, after := time.Unix(-1, 0), time.Unix(1<<32, 0)
	if s := bson.NewObjectIDFromTimestamp(before).Timestamp().Unix(); s != 1<<32-1 {
		return fmt.Errorf("v2 maps 1969-12-31T23:59:59Z to %d", s)
	}
	if s := primitive.NewObjectIDFromTimestamp(after).Timestamp().Unix(); s != 0 {
		return fmt.Errorf("v1 maps 2106-02-07T06:28:16Z to %d", s)
	}
	if _, err := oid.NewWithTime(before); !errors.Is(err, oid.ErrTimeRange) {
		return fmt.Errorf("oid NewWithTime(1969): %v", err)
	}
	if _, err := oid.FromTime(after); !errors.Is(err, oid.ErrTimeRange) {
		return fmt.Errorf("oid FromTime(2106+): %v", err)
	}
	return nil
}

// diffJSONRaw12 checks the difference json-raw-12.
func diffJSONRaw12() error {
	var d2 bson.ObjectID
	var d1 primitive.ObjectID
	var o oid.ID
	if err := d2.UnmarshalJSON([]byte(`123456789012`)); err != nil || string(d2[:]) != "123456789012" {
		return fmt.Errorf("v2: %x %v", d2[:], err)
	}
	if err := d1.UnmarshalJSON([]byte(`"0123456789"`)); err != nil || string(d1[:]) != `"0123456789"` {
		return fmt.Errorf("v1: %x %v", d1[:], err)
	}
	if o.UnmarshalJSON([]byte(`123456789012`)) == nil {
		return errors.New("oid accepted 123456789012")
	}
	return nil
}

// diffJSONEmptyString checks the difference json-empty-string.
func diffJSONEmptyString() error {
	d2, d1, o := bson.ObjectID(otherID), primitive.ObjectID(otherID), otherID
	e2, e1, eo := d2.UnmarshalJSON([]byte(`""`)), d1.UnmarshalJSON([]byte(`""`)), o.UnmarshalJSON([]byte(`""`))
	if e2 != nil || oid.ID(d2) != otherID {
		return fmt.Errorf("v2: %s %v", d2.Hex(), e2)
	}
	if e1 != nil || !d1.IsZero() || eo != nil || !o.IsZero() {
		return fmt.Errorf("v1 %s %v, oid %s %v", d1.Hex(), e1, o, eo)
	}
	return nil
}

// diffJSONOIDEmpty checks the difference json-oid-empty.
func diffJSONOIDEmpty() error {
	in := []byte(`{"$oid":""}`)
	d2, d1, o := bson.ObjectID(otherID), primitive.ObjectID(otherID), otherID
	if d2.UnmarshalJSON(in) == nil {
		return errors.New("v2 accepted it")
	}
	if err := d1.UnmarshalJSON(in); err != nil || !d1.IsZero() {
		return fmt.Errorf("v1: %s %v", d1.Hex(), err)
	}
	if o.UnmarshalJSON(in) == nil {
		return errors.New("oid accepted it")
	}
	return nil
}

// diffJSONOIDKeyCase checks the difference json-oid-key-case.
func diffJSONOIDKeyCase() error {
	in := []byte(`{"$OID":"` + exampleHex + `"}`)
	var d2 bson.ObjectID
	var d1 primitive.ObjectID
	var o oid.ID
	if err := d2.UnmarshalJSON(in); err != nil || oid.ID(d2) != exampleID {
		return fmt.Errorf("v2: %v", err)
	}
	if d1.UnmarshalJSON(in) == nil || o.UnmarshalJSON(in) == nil {
		return errors.New("v1 or oid accepted it")
	}
	return nil
}

// diffJSONOIDExtraKeys checks the difference json-oid-extra-keys.
func diffJSONOIDExtraKeys() error {
	in := []byte(`{"$oid":"` + exampleHex + `","x":1}`)
	var d2 bson.ObjectID
	var d1 primitive.ObjectID
	var o oid.ID
	if d2.UnmarshalJSON(in) != nil || d1.UnmarshalJSON(in) != nil {
		return errors.New("a driver rejected it")
	}
	if o.UnmarshalJSON(in) == nil {
		return errors.New("oid accepted it")
	}
	return nil
}

// diffJSONStringEscapes checks the difference json-string-escapes.
func diffJSONStringEscapes() error {
	for _, in := range []string{`"507f1f77bcf86cd79943901\u0031"`, ` "` + exampleHex + `"`} {
		var d2 bson.ObjectID
		var d1 primitive.ObjectID
		var o oid.ID
		if d2.UnmarshalJSON([]byte(in)) == nil {
			return fmt.Errorf("v2 accepted %s", in)
		}
		if err := d1.UnmarshalJSON([]byte(in)); err != nil || oid.ID(d1) != exampleID {
			return fmt.Errorf("v1 %s: %v", in, err)
		}
		if err := o.UnmarshalJSON([]byte(in)); err != nil || o != exampleID {
			return fmt.Errorf("oid %s: %v", in, err)
		}
	}
	return nil
}

// diffJSONInvalid checks the difference json-invalid.
func diffJSONInvalid() error {
	in := []byte(`"` + exampleHex + `x`)
	var d2 bson.ObjectID
	var o oid.ID
	if err := d2.UnmarshalJSON(in); err != nil || oid.ID(d2) != exampleID {
		return fmt.Errorf("v2: %v", err)
	}
	if o.UnmarshalJSON(in) == nil {
		return errors.New("oid accepted it")
	}
	return nil
}

// diffJSONErrorLeavesValue checks the difference json-error-leaves-value.
func diffJSONErrorLeavesValue() error {
	in := []byte(`"507f1f77bcf86cd79943901z"`)
	d1, o := primitive.ObjectID(otherID), otherID
	if d1.UnmarshalJSON(in) == nil || o.UnmarshalJSON(in) == nil {
		return errors.New("accepted a bad character")
	}
	if oid.ID(d1) == otherID {
		return errors.New("v1 left the value unchanged")
	}
	if o != otherID {
		return fmt.Errorf("oid changed the value to %s", o)
	}
	return nil
}
