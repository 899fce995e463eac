package rules

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
)

// stricterThanMongoDB are the cases the MongoDB profile refuses on purpose
// although MongoDB (and the embedded server) stores them: a top-level '$'
// key, a key twice, a key not in UTF-8, and nesting from 101 to 180 levels
// (see the package doc).
var stricterThanMongoDB = map[string]bool{"dollar key": true, "duplicate key": true, "nested duplicate key": true,
	"invalid utf8 key": true, "depth 101": true, "depth 101 arrays": true}

// The MongoDB profile refuses exactly what the embedded server (which
// implements MongoDB 8.0) refuses or does not give back unchanged.
func TestMongoDBProfileMatchesServer(t *testing.T) {
	_, client := mongotest.Start(t)
	ctx := context.Background()
	if p, err := Detect(ctx, client); err != nil || p.Name() != "MongoDB" {
		t.Fatalf("Detect = %q, %v; want MongoDB", p.Name(), err)
	}
	for i, c := range append(cases(), idCases()...) {
		coll := client.Database("rules").Collection(fmt.Sprintf("c%d", i))
		stored := "stored unchanged"
		if _, err := coll.InsertOne(ctx, c.doc); err != nil {
			stored = "refused: " + err.Error()
		} else {
			var got bson.Raw
			if err := coll.FindOne(ctx, bson.D{}).Decode(&got); err != nil {
				t.Fatalf("%s: read back: %v", c.name, err)
			}
			if !bytes.Equal(got, c.doc) {
				stored = "changed to " + got.String()
			}
		}
		serverRefuses := stored != "stored unchanged"
		err := MongoDB.Check(c.doc)
		if stricterThanMongoDB[c.name] {
			if serverRefuses || err == nil {
				t.Errorf("%s: server %s, profile %v; want stored and refused by the profile", c.name, stored, err)
			}
			continue
		}
		if (err != nil) != serverRefuses {
			t.Errorf("%s: server %.200s; profile says %v", c.name, stored, err)
		}
	}
}

// What the MongoDB profile refuses, case by case; the cases not listed are
// accepted.
var mongoDBRefuses = map[string]Reason{
	"dollar key":                   DollarKey,
	"duplicate key":                DuplicateKey,
	"nested duplicate key":         DuplicateKey,
	"invalid utf8 key":             KeyNotUTF8,
	"depth 101":                    TooDeep,
	"depth 101 arrays":             TooDeep,
	"_id array":                    IDType,
	"_id regex":                    IDType,
	"_id undefined":                IDType,
	"_id document with dollar key": DollarKey,
}

func TestMongoDBProfile(t *testing.T) {
	for _, c := range append(cases(), idCases()...) {
		err := MongoDB.Check(c.doc)
		want, refused := mongoDBRefuses[c.name]
		var v *Violation
		switch {
		case !refused && err != nil:
			t.Errorf("%s: %v; want accepted", c.name, err)
		case refused && (!errors.As(err, &v) || v.Reason != want || v.Profile != "MongoDB"):
			t.Errorf("%s: %v; want a MongoDB violation %q", c.name, err, want)
		}
	}
	big := withID(1, elem("v", val(strings.Repeat("x", MaxBSONSize))))
	var v *Violation
	if err := MongoDB.Check(big); !errors.As(err, &v) || v.Reason != TooLarge || v.Path != "" {
		t.Errorf("document of %d bytes: %v; want TooLarge for the whole document", len(big), err)
	}
	fits := withID(1, elem("v", val(strings.Repeat("x", MaxBSONSize-100))))
	if err := MongoDB.Check(fits); err != nil || len(fits) > MaxBSONSize {
		t.Errorf("document of %d bytes: %v; want accepted", len(fits), err)
	}
}

// A violation names the dotted path, array indexes included, and the value.
func TestViolationPath(t *testing.T) {
	cases := []struct {
		p      Profile
		doc    bson.Raw
		path   string
		reason Reason
		value  string
	}{
		{FerretDB, withID(1, elem("v", array(val(int32(1)), subdoc(elem("a.b", val(int32(1))))))), "v.1.a.b", DottedKey, `"a.b"`},
		{FerretDB, withID(1, elem("v", array(val(1.0), array()))), "v.1", NestedArray, "[]"},
		{FerretDB, withID(1, elem("w", subdoc(elem("x", val(bson.Symbol("s")))))), "w.x", UnsupportedType, `{"$symbol":"s"}`},
		{MongoDB, withID(1, elem("v", nested(100))), "v" + strings.Repeat(".a", 100), TooDeep, "level 101 (at most 100)"},
		{MongoDB, bson.Raw{5, 0, 0, 0}, "", Malformed, "4 bytes with length prefix 5"},
	}
	const msg = `FerretDB refuses field "v.1.a.b" = "a.b": key contains '.'`
	if err := cases[0].p.Check(cases[0].doc); err == nil || err.Error() != msg {
		t.Errorf("message %q, want %q", err, msg)
	}
	for _, c := range cases {
		var v *Violation
		if err := c.p.Check(c.doc); !errors.As(err, &v) || v.Path != c.path || v.Reason != c.reason || v.Value != c.value {
			t.Errorf("%s: %+v; want path %q, reason %q, value %s", c.p.Name(), v, c.path, c.reason, c.value)
		}
	}
}

// Duplicates are found past the pairwise scan too.
func TestDuplicateKeyInLargeDocument(t *testing.T) {
	var elems [][]byte
	for i := range 3 * dupScanLimit {
		elems = append(elems, elem(fmt.Sprint("k", i), val(int32(i))))
	}
	if err := MongoDB.Check(withID(1, elems...)); err != nil {
		t.Fatalf("distinct keys: %v", err)
	}
	elems = append(elems, elem(fmt.Sprint("k", 2*dupScanLimit), val(int32(0))))
	var v *Violation
	if err := MongoDB.Check(withID(1, elems...)); !errors.As(err, &v) || v.Reason != DuplicateKey || v.Path != fmt.Sprint("k", 2*dupScanLimit) {
		t.Fatalf("duplicate key: %v", err)
	}
}

// Accepting a document allocates nothing.
func TestCheckDoesNotAllocate(t *testing.T) {
	doc := withID(1, elem("v", subdoc(elem("x", array(val(1.5), val("s"), subdoc(elem("y", val(int64(2)))))))), elem("w", val(true)))
	for _, p := range []Profile{MongoDB, FerretDB} {
		if n := testing.AllocsPerRun(100, func() {
			if p.Check(doc) != nil {
				t.Fatal("refused")
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per Check", p.Name(), n)
		}
	}
}

// Check never panics, gives the same verdict twice, refuses what is not
// well-formed BSON, and accepts again what it accepted after a round trip
// through the driver.
func FuzzCheck(f *testing.F) {
	for _, c := range append(cases(), idCases()...) {
		if len(c.doc) < 1<<16 {
			f.Add([]byte(c.doc))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// FerretDB refuses everything MongoDB refuses.
		if FerretDB.Check(data) == nil {
			if err := MongoDB.Check(data); err != nil {
				t.Fatalf("FerretDB accepts %x, MongoDB refuses it: %v", data, err)
			}
		}
		for _, p := range []Profile{MongoDB, FerretDB} {
			err := p.Check(data)
			if again := p.Check(data); fmt.Sprint(again) != fmt.Sprint(err) {
				t.Fatalf("%s: verdict %v then %v", p.Name(), err, again)
			}
			if err != nil {
				var v *Violation
				if !errors.As(err, &v) {
					t.Fatalf("%s: %T %v; want *Violation", p.Name(), err, err)
				}
				continue
			}
			if verr := bsoncore.Document(data).Validate(); verr != nil {
				t.Fatalf("%s accepts what the driver calls malformed: %v", p.Name(), verr)
			}
			var d bson.D
			if bson.Unmarshal(data, &d) != nil {
				continue // the driver decodes less than is well-formed (e.g. old binary)
			}
			back, merr := bson.Marshal(d)
			if merr != nil {
				continue
			}
			if err := p.Check(back); err != nil {
				t.Fatalf("%s accepts %x but not its round trip %x: %v", p.Name(), data, back, err)
			}
		}
	})
}
