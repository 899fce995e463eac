package oid_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/oid"
)

// Differential tests against both drivers: go.mongodb.org/mongo-driver/v2
// bson.ObjectID and v1 primitive.ObjectID.

func edgeIDs() []oid.ID {
	hexes := []string{
		"000000000000000000000000", "ffffffffffffffffffffffff",
		"000000000000000000000001", "00000000ffffffffffffffff",
		"7fffffff0000000000000000", "800000000000000000000000",
		"ffffffff0000000000000000", "00000000000000000000ffff",
		"000000000000000000ffffff", "507f1f77bcf86cd799439011",
		"6553f1003f2a91c8d4003039", "56e1fc72e0c917e9c4714161",
		"7fffffffffffffffffffffff", "80000000ffffffffffffffff",
	}
	ids := make([]oid.ID, len(hexes))
	for i, h := range hexes {
		ids[i] = oid.MustParse(h)
	}
	return ids
}

func sampleIDs(n int) []oid.ID {
	r := rand.New(rand.NewPCG(1, 2))
	ids := edgeIDs()
	for range n {
		var id oid.ID
		for j := range id {
			id[j] = byte(r.Uint32())
		}
		ids = append(ids, id)
	}
	return ids
}

func TestDriverSameOutput(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 1000
	}
	for _, id := range sampleIDs(n) {
		compareOutput(t, id)
	}
}

func compareOutput(t *testing.T, id oid.ID) {
	t.Helper()
	v2, v1 := bson.ObjectID(id), primitive.ObjectID(id)
	if id.Hex() != v2.Hex() || id.Hex() != v1.Hex() {
		t.Fatalf("%s: hex v2 %s v1 %s", id, v2.Hex(), v1.Hex())
	}
	if !id.Timestamp().Equal(v2.Timestamp()) || !id.Timestamp().Equal(v1.Timestamp()) ||
		id.Timestamp().Location() != v2.Timestamp().Location() {
		t.Fatalf("%s: timestamp %v, v2 %v, v1 %v", id, id.Timestamp(), v2.Timestamp(), v1.Timestamp())
	}
	ours, _ := id.MarshalJSON()
	j2, _ := v2.MarshalJSON()
	j1, _ := v1.MarshalJSON()
	viaEnc, _ := json.Marshal(id)
	if string(ours) != string(j2) || string(ours) != string(j1) || string(viaEnc) != string(j2) {
		t.Fatalf("%s: JSON %s, v2 %s, v1 %s", id, ours, j2, j1)
	}
	t2, _ := v2.MarshalText()
	to, _ := id.MarshalText()
	if string(to) != string(t2) {
		t.Fatalf("%s: text %s, v2 %s", id, to, t2)
	}
	if id.IsZero() != v2.IsZero() {
		t.Fatalf("%s: IsZero differs", id)
	}
	// {"$oid"} and "hex" in, as each driver reads them.
	for _, in := range []string{`{"$oid":"` + id.Hex() + `"}`, `"` + id.Hex() + `"`, `{"$oid":"` + strings.ToUpper(id.Hex()) + `"}`} {
		var o oid.ID
		var d2 bson.ObjectID
		var d1 primitive.ObjectID
		e0, e2, e1 := o.UnmarshalJSON([]byte(in)), d2.UnmarshalJSON([]byte(in)), d1.UnmarshalJSON([]byte(in))
		if e0 != nil || e2 != nil || e1 != nil || o != id || bson.ObjectID(o) != d2 || primitive.ObjectID(o) != d1 {
			t.Fatalf("%s: ours %s %v, v2 %s %v, v1 %s %v", in, o, e0, d2.Hex(), e2, d1.Hex(), e1)
		}
	}
	// The driver's own Extended JSON and BSON hold the same bytes.
	ext, err := bson.MarshalExtJSON(bson.D{{Key: "_id", Value: v2}}, true, false)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ID oid.ID `json:"_id"`
	}
	if err := json.Unmarshal(ext, &doc); err != nil || doc.ID != id {
		t.Fatalf("driver extjson %s: %s %v", ext, doc.ID, err)
	}
	raw, err := bson.Marshal(bson.D{{Key: "a", Value: v2}})
	if err != nil || string(raw[7:19]) != string(id[:]) {
		t.Fatalf("%s: BSON %x", id, raw)
	}
}

// IDs made here are accepted by the driver and the reverse.
func TestDriverAcceptsGenerated(t *testing.T) {
	g := oid.NewGenerator(oid.Config{})
	batch := make([]oid.ID, 1000)
	g.Fill(batch)
	batch = append(batch, oid.New(), g.New())
	for _, id := range batch {
		d, err := bson.ObjectIDFromHex(id.Hex())
		p, err1 := primitive.ObjectIDFromHex(id.Hex())
		if err != nil || err1 != nil || oid.ID(d) != id || oid.ID(p) != id {
			t.Fatalf("driver rejects %s: %v %v", id, err, err1)
		}
	}
	for range 1000 {
		for _, d := range []bson.ObjectID{bson.NewObjectID(), bson.ObjectID(primitive.NewObjectID())} {
			id, err := oid.Parse(d.Hex())
			if err != nil || bson.ObjectID(id) != d || !id.Timestamp().Equal(d.Timestamp()) {
				t.Fatalf("oid rejects driver ID %s: %v", d.Hex(), err)
			}
		}
	}
	// NewWithTime matches NewObjectIDFromTimestamp on the timestamp bytes.
	for _, sec := range []int64{0, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1700000000} {
		tm := time.Unix(sec, 0)
		id, err := oid.NewWithTime(tm)
		d := bson.NewObjectIDFromTimestamp(tm)
		if err != nil || string(id[:4]) != string(d[:4]) || !id.Timestamp().Equal(d.Timestamp()) {
			t.Errorf("NewWithTime(%d) %s, driver %s, %v", sec, id, d.Hex(), err)
		}
	}
}

// mutations of a valid hex string: wrong length, bad characters, upper case,
// whitespace, prefixes and wrappers.
func mutations(h string) []string {
	out := []string{h, strings.ToUpper(h), h[:23], h + "0", h[1:], " " + h, h + " ", h + "\n",
		h[:12] + " " + h[13:], "0x" + h[2:], `ObjectId("` + h + `")`, `"` + h + `"`, "", h + h,
		h[:5] + "g" + h[6:], h[:23] + "Z", h[:10] + "\x00" + h[11:], h[:22] + "é",
		h[:7] + "z" + h[8:], strings.ToUpper(h[:12]) + h[12:], h[:11] + "-" + h[12:],
	}
	return out
}

func TestDriverParseAcceptance(t *testing.T) {
	for _, id := range sampleIDs(2000) {
		for _, s := range mutations(id.Hex()) {
			compareParse(t, s)
		}
	}
}

func compareParse(t *testing.T, s string) {
	t.Helper()
	ours, err := oid.Parse(s)
	d2, err2 := bson.ObjectIDFromHex(s)
	d1, err1 := primitive.ObjectIDFromHex(s)
	if (err == nil) != (err2 == nil) || (err == nil) != (err1 == nil) {
		t.Fatalf("Parse(%q): ours err %v, v2 err %v, v1 err %v", s, err, err2, err1)
	}
	if err == nil && (bson.ObjectID(ours) != d2 || primitive.ObjectID(ours) != d1) {
		t.Fatalf("Parse(%q): ours %s, v2 %s, v1 %s", s, ours, d2.Hex(), d1.Hex())
	}
	if err == nil && ours.Hex() != strings.ToLower(s) {
		t.Fatalf("Parse(%q).Hex() = %s", s, ours.Hex())
	}
	if oid.IsValid(s) != (err == nil) || primitive.IsValidObjectID(s) != (err == nil) {
		t.Fatalf("IsValid(%q) disagrees", s)
	}
}

// Each deliberate difference listed in the package doc exists in the
// drivers as described; if a driver release changes one, this fails and the
// doc must change.
func TestDriverDocumentedDifferences(t *testing.T) {
	id := oid.MustParse("507f1f77bcf86cd799439011")
	set := oid.MustParse("0102030405060708090a0b0c")
	t.Run("string-format", func(t *testing.T) {
		want := `ObjectID("507f1f77bcf86cd799439011")`
		if bson.ObjectID(id).String() != want || primitive.ObjectID(id).String() != want || id.String() != id.Hex() {
			t.Error(bson.ObjectID(id).String(), id.String())
		}
	})
	t.Run("error-types", func(t *testing.T) {
		bad := "507f1f7zbcf86cd799439011"
		_, e2 := bson.ObjectIDFromHex(bad)
		_, e1 := primitive.ObjectIDFromHex(bad)
		_, e := oid.Parse(bad)
		if e2 == bson.ErrInvalidHex || e1 == primitive.ErrInvalidHex || e2 == nil || e1 == nil {
			t.Errorf("driver bad-character errors: %v, %v", e2, e1)
		}
		if !strings.Contains(e.Error(), "'z' at position 7") {
			t.Error(e)
		}
		_, e2 = bson.ObjectIDFromHex("abc")
		if e2 != bson.ErrInvalidHex {
			t.Error(e2)
		}
	})
	t.Run("time-range", func(t *testing.T) {
		before := bson.NewObjectIDFromTimestamp(time.Unix(-1, 0))
		after := primitive.NewObjectIDFromTimestamp(time.Unix(1<<32, 0))
		if before.Timestamp().Unix() != 1<<32-1 || after.Timestamp().Unix() != 0 {
			t.Errorf("driver wraps: %v %v", before.Timestamp(), after.Timestamp())
		}
		if _, err := oid.NewWithTime(time.Unix(-1, 0)); err == nil {
			t.Error("oid accepted 1969")
		}
	})
	t.Run("json-raw-12", func(t *testing.T) {
		for _, in := range []string{`123456789012`, `"0123456789"`} {
			var d1 primitive.ObjectID
			var o oid.ID
			if err := d1.UnmarshalJSON([]byte(in)); err != nil || string(d1[:]) != in {
				t.Errorf("v1 %s: %x %v", in, d1, err)
			}
			if o.UnmarshalJSON([]byte(in)) == nil {
				t.Errorf("oid accepted %s", in)
			}
		}
		var d2 bson.ObjectID
		if err := d2.UnmarshalJSON([]byte(`123456789012`)); err != nil || string(d2[:]) != "123456789012" {
			t.Errorf("v2: %x %v", d2, err)
		}
	})
	t.Run("json-empty-string", func(t *testing.T) {
		d2, d1, o := bson.ObjectID(set), primitive.ObjectID(set), set
		_ = d2.UnmarshalJSON([]byte(`""`))
		_ = d1.UnmarshalJSON([]byte(`""`))
		_ = o.UnmarshalJSON([]byte(`""`))
		if oid.ID(d2) != set || !d1.IsZero() || !o.IsZero() {
			t.Errorf("v2 %s v1 %s oid %s", d2.Hex(), d1.Hex(), o)
		}
		var t1 primitive.ObjectID
		if t1.UnmarshalText(nil) == nil {
			t.Error("v1 UnmarshalText(empty) accepted")
		}
	})
	t.Run("json-oid-empty", func(t *testing.T) {
		d2, d1, o := bson.ObjectID(set), primitive.ObjectID(set), set
		e2, e1, e := d2.UnmarshalJSON([]byte(`{"$oid":""}`)), d1.UnmarshalJSON([]byte(`{"$oid":""}`)), o.UnmarshalJSON([]byte(`{"$oid":""}`))
		if e2 == nil || e1 != nil || !d1.IsZero() || e == nil {
			t.Errorf("v2 %v, v1 %v %s, oid %v", e2, e1, d1.Hex(), e)
		}
	})
	t.Run("json-oid-key-case", func(t *testing.T) {
		in := []byte(`{"$OID":"507f1f77bcf86cd799439011"}`)
		var d2 bson.ObjectID
		var d1 primitive.ObjectID
		var o oid.ID
		if d2.UnmarshalJSON(in) != nil || d1.UnmarshalJSON(in) == nil || o.UnmarshalJSON(in) == nil {
			t.Error("key case")
		}
	})
	t.Run("json-oid-extra-keys", func(t *testing.T) {
		in := []byte(`{"$oid":"507f1f77bcf86cd799439011","x":1}`)
		var d2 bson.ObjectID
		var d1 primitive.ObjectID
		var o oid.ID
		if d2.UnmarshalJSON(in) != nil || d1.UnmarshalJSON(in) != nil || o.UnmarshalJSON(in) == nil {
			t.Error("extra keys")
		}
	})
	t.Run("json-string-escapes", func(t *testing.T) {
		for _, in := range []string{`"507f1f77bcf86cd79943901\u0031"`, ` "507f1f77bcf86cd799439011"`} {
			var d2 bson.ObjectID
			var d1 primitive.ObjectID
			var o oid.ID
			if d2.UnmarshalJSON([]byte(in)) == nil || d1.UnmarshalJSON([]byte(in)) != nil || o.UnmarshalJSON([]byte(in)) != nil || o != id {
				t.Errorf("escapes %s", in)
			}
		}
	})
	t.Run("json-invalid", func(t *testing.T) {
		in := []byte(`"507f1f77bcf86cd799439011x`)
		var d2 bson.ObjectID
		var o oid.ID
		if d2.UnmarshalJSON(in) != nil || o.UnmarshalJSON(in) == nil {
			t.Error("v2 should accept, oid reject")
		}
	})
	t.Run("json-error-leaves-value", func(t *testing.T) {
		in := []byte(`"507f1f77bcf86cd79943901z"`)
		d1, o := primitive.ObjectID(set), set
		if d1.UnmarshalJSON(in) == nil || o.UnmarshalJSON(in) == nil {
			t.Fatal("accepted")
		}
		if oid.ID(d1) == set || o != set {
			t.Errorf("v1 left %s, oid left %s", d1.Hex(), o)
		}
	})
}

// Every byte value at every position: Parse accepts exactly what the drivers
// accept, with the same bytes.
func TestDriverParseEveryByte(t *testing.T) {
	for _, base := range []string{"507f1f77bcf86cd799439011", "ffffffffffffffffffffffff", "000000000000000000000000", "ABCDEFabcdef0123456789aF"} {
		for pos := range 24 {
			for c := range 256 {
				b := []byte(base)
				b[pos] = byte(c)
				compareParse(t, string(b))
				var o oid.ID
				var d bson.ObjectID
				eo, ed := o.UnmarshalText(b), d.UnmarshalText(b)
				if (eo == nil) != (ed == nil) || o != oid.ID(d) {
					t.Fatalf("UnmarshalText(%q): oid %s %v, v2 %s %v", b, o, eo, d.Hex(), ed)
				}
			}
		}
	}
}
