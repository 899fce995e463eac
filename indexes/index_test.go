package indexes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func i32(n int32) *int32 { return &n }

// The declarations of the plan-file documentation parse into the values a
// reader of MongoDB's createIndexes documentation expects.
func TestParseJSON(t *testing.T) {
	cases := []struct {
		in   string
		want Index
		name string
	}{
		{`{"key": {"email": 1}, "unique": true}`, Index{Key: bson.D{{Key: "email", Value: int32(1)}}, Unique: true}, "email_1"},
		{`{"key": {"createdAt": 1}, "expireAfterSeconds": 86400}`, Index{Key: bson.D{{Key: "createdAt", Value: int32(1)}}, ExpireAfterSeconds: i32(86400)}, "createdAt_1"},
		{`{"key": {"userId": 1, "createdAt": -1}}`, Index{Key: bson.D{{Key: "userId", Value: int32(1)}, {Key: "createdAt", Value: int32(-1)}}}, "userId_1_createdAt_-1"},
		{`{"key": {"status": 1}, "partialFilterExpression": {"status": {"$eq": "paid"}}}`, Index{Key: bson.D{{Key: "status", Value: int32(1)}}, PartialFilterExpression: bson.D{{Key: "status", Value: bson.D{{Key: "$eq", Value: "paid"}}}}}, "status_1"},
		{`{"key": {"a.b": -1.0, "c": "hashed"}, "name": "mine", "sparse": true}`, Index{Key: bson.D{{Key: "a.b", Value: int32(-1)}, {Key: "c", Value: "hashed"}}, Name: "mine", Sparse: true}, "mine"},
		{`{"key": {"at": 1}, "partialFilterExpression": {"at": {"$gt": {"$date": "2024-01-01T00:00:00Z"}}}}`, Index{Key: bson.D{{Key: "at", Value: int32(1)}}, PartialFilterExpression: bson.D{{Key: "at", Value: bson.D{{Key: "$gt", Value: bson.DateTime(1704067200000)}}}}}, "at_1"},
		{`{"key": {"n": {"$numberLong": "1"}}}`, Index{Key: bson.D{{Key: "n", Value: int32(1)}}}, "n_1"},
	}
	for _, c := range cases {
		got, err := ParseJSON([]byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if d := Diff(c.want, got); d != "" || got.String() != c.want.String() {
			t.Errorf("%s: got %s, want %s (%s)", c.in, got, c.want, d)
		}
		if got.NameOrDefault() != c.name {
			t.Errorf("%s: name %q, want %q", c.in, got.NameOrDefault(), c.name)
		}
	}
}

// Every bad declaration is an *Error matching ErrInvalid whose message names
// the offending setting and value and says what was expected.
func TestParseJSONErrors(t *testing.T) {
	long := strings.Repeat("x", MaxNameLen+1)
	cases := []struct{ in, want string }{
		{``, "expected an object"},
		{`[1]`, "expected an object"},
		{`{}`, "key: missing"},
		{`{"key": {}}`, "key {}: expected at least one field"},
		{`{"key": 1}`, "key 1: expected a document"},
		{`{"key": {"a": 0}}`, "key.a 0: expected 1 (ascending), -1"},
		{`{"key": {"a": 2}}`, "key.a 2: expected 1"},
		{`{"key": {"a": "up"}}`, `key.a "up": expected 1`},
		{`{"key": {"a": true}}`, "key.a true: expected 1"},
		{`{"key": {"a": 1, "a": -1}}`, `key "a": field appears twice`},
		{`{"key": {"": 1}}`, `key "": empty field name`},
		{`{"key": {"a..b": 1}}`, `key "a..b": empty part`},
		{`{"key": {"$a": 1}}`, `key "$a": part "$a" starts with $`},
		{`{"key": {"a.$**": 1}}`, `starts with $`},
		{`{"key": {"a\u0000b": 1}}`, "NUL"},
		{`{"key": {"a": 1, "b": 1}, "expireAfterSeconds": 60}`, "a TTL index has one field"},
		{`{"key": {"_id": 1}, "expireAfterSeconds": 60}`, "cannot be on _id"},
		{`{"key": {"a": 1}, "expireAfterSeconds": -1}`, "expireAfterSeconds -1: expected a whole number of seconds from 0 to 2147483647"},
		{`{"key": {"a": 1}, "expireAfterSeconds": 1.5}`, "expireAfterSeconds 1.5: expected a whole number"},
		{`{"key": {"a": 1}, "expireAfterSeconds": 3000000000}`, "expireAfterSeconds 3000000000"},
		{`{"key": {"a": 1}, "expireAfterSeconds": "60"}`, `expireAfterSeconds "60"`},
		{`{"key": {"a": "hashed"}, "expireAfterSeconds": 60}`, "needs a 1 or -1 key"},
		{`{"key": {"a": "hashed"}, "unique": true}`, "unique true: a unique index needs a key of 1/-1 fields"},
		{`{"key": {"a": "hashed", "b": "hashed"}}`, "at most one hashed field"},
		{`{"key": {"a": 1}, "unique": "yes"}`, `unique "yes": expected true or false`},
		{`{"key": {"a": 1}, "unique": 1}`, `unique 1: expected true or false`},
		{`{"key": {"a": 1}, "name": ""}`, `name "": expected a non-empty name`},
		{`{"key": {"a": 1}, "name": 5}`, `name 5: expected a string`},
		{`{"key": {"a": 1}, "name": "*"}`, `name "*"`},
		{`{"key": {"a": 1}, "name": "_id_"}`, `_id_ is the name of the _id index`},
		{`{"key": {"a": 1}, "name": "` + long + `"}`, "128 bytes; expected at most 127"},
		{`{"key": {"` + long + `": 1}}`, "generated name"},
		{`{"key": {"_id": 1}}`, "the _id index always exists"},
		{`{"key": {"a": 1}, "sparse": true, "partialFilterExpression": {"a": 1}}`, "sparse and partialFilterExpression cannot be used together"},
		{`{"key": {"a": 1}, "partialFilterExpression": 3}`, "partialFilterExpression 3: expected a document"},
		{`{"key": {"a": 1}, "collation": {"locale": "fr"}}`, `"collation": unknown setting; expected key, name, unique`},
		{`{"key": {"a": 1}, "v": 2}`, `"v": unknown setting`},
		{`{"key": {"a": 1}, "unique": true, "unique": false}`, "unique: appears twice"},
		{`{"key": {"a": 1}} {}`, "expected an object"},
	}
	for _, c := range cases {
		_, err := ParseJSON([]byte(c.in))
		if err == nil {
			t.Errorf("%s: no error; want %q", c.in, c.want)
			continue
		}
		var ie *Error
		if !errors.Is(err, ErrInvalid) || !errors.As(err, &ie) {
			t.Errorf("%s: %T %v does not match ErrInvalid", c.in, err, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n  got  %v\n  want %q in it", c.in, err, c.want)
		}
	}
}

func TestValidateList(t *testing.T) {
	a := Index{Key: bson.D{{Key: "a", Value: int32(1)}}}
	b := Index{Key: bson.D{{Key: "b", Value: int32(1)}}, Name: "a_1"}
	if err := ValidateList([]Index{a, b}); err == nil || !strings.Contains(err.Error(), `indexes 0 and 1 have this name`) {
		t.Errorf("duplicate names: %v", err)
	}
	c := Index{Key: bson.D{{Key: "a", Value: int32(1)}}, Name: "other", Unique: true}
	if err := ValidateList([]Index{a, c}); err == nil || !strings.Contains(err.Error(), `index "a_1" has the same key`) {
		t.Errorf("duplicate keys: %v", err)
	}
	d := Index{Key: bson.D{{Key: "a", Value: int32(-1)}}}
	if err := ValidateList([]Index{a, d}); err != nil {
		t.Errorf("a ascending and descending are two indexes: %v", err)
	}
	if err := ValidateList(nil); err != nil {
		t.Error(err)
	}
}

// A sidecar written by WriteSidecar reads back as the same indexes, holds
// the _id index as mongodump writes it, and leaves no temporary file.
func TestSidecarRoundTrip(t *testing.T) {
	dir := t.TempDir()
	list := []Index{
		{Key: bson.D{{Key: "email", Value: int32(1)}}, Unique: true},
		{Key: bson.D{{Key: "userId", Value: int32(1)}, {Key: "createdAt", Value: int32(-1)}}, Name: "by_user"},
		{Key: bson.D{{Key: "createdAt", Value: int32(1)}}, ExpireAfterSeconds: i32(0)},
		{Key: bson.D{{Key: "status", Value: int32(1)}}, PartialFilterExpression: bson.D{{Key: "status", Value: bson.D{{Key: "$eq", Value: "paid"}}}}},
		{Key: bson.D{{Key: "t", Value: "text"}}, Other: bson.D{{Key: "default_language", Value: "french"}}},
	}
	path := SidecarPath(dir, "users")
	if err := WriteSidecar(path, "users", list); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), `{"options":{},"indexes":[{"v":{"$numberInt":"2"},"key":{"_id":{"$numberInt":"1"}},"name":"_id_"},{"v":{"$numberInt":"2"},"key":{"email":{"$numberInt":"1"}},"name":"email_1","unique":true}`) {
		t.Errorf("sidecar is not in mongodump's layout:\n%s", data)
	}
	got, err := ReadSidecar(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(list) {
		t.Fatalf("read %d indexes, wrote %d", len(got), len(list))
	}
	for k := range list {
		if d := Diff(list[k], got[k]); d != "" {
			t.Errorf("index %d: %s", k, d)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the sidecar", len(entries))
	}
	if err := WriteSidecar(path, "users", []Index{{Key: bson.D{}}}); err == nil {
		t.Error("an invalid index was written")
	}
	if d2, _ := os.ReadFile(path); string(d2) != string(data) {
		t.Error("a refused write changed the file")
	}
}

// A sidecar as mongodump writes it (written out by hand from its layout,
// relaxed numbers and doubles included) reads as its indexes.
func TestReadMongodumpSidecar(t *testing.T) {
	data := `{"indexes":[{"v":{"$numberInt":"2"},"key":{"_id":{"$numberInt":"1"}},"name":"_id_","ns":"shop.users"},` +
		`{"v":{"$numberInt":"2"},"unique":true,"key":{"email":{"$numberDouble":"1.0"}},"name":"email_1","background":true},` +
		`{"v":2,"key":{"age":-1,"name":1},"name":"age_-1_name_1","collation":{"locale":"en"}}],` +
		`"uuid":"0b1d8c1e2f3a4b5c6d7e8f9a0b1c2d3e","collectionName":"users","type":"collection"}`
	got, err := ParseSidecar("users.metadata.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := []Index{
		{Key: bson.D{{Key: "email", Value: int32(1)}}, Name: "email_1", Unique: true},
		{Key: bson.D{{Key: "age", Value: int32(-1)}, {Key: "name", Value: int32(1)}}, Other: bson.D{{Key: "collation", Value: bson.D{{Key: "locale", Value: "en"}}}}},
	}
	if len(got) != 2 {
		t.Fatalf("got %v", got)
	}
	for k := range want {
		if d := Diff(want[k], got[k]); d != "" {
			t.Errorf("index %d: %s", k, d)
		}
	}
}

func TestSidecarErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{``, "expected Extended JSON"},
		{`[]`, "expected Extended JSON"},
		{`{"indexes": 3}`, "indexes: 3: expected an array"},
		{`{"indexes": [3]}`, "indexes[0]: 3: expected an index document"},
		{`{"indexes": [{"name": "x"}]}`, `indexes[0]: invalid index "x": key: missing`},
		{`{"indexes": [{"key": {"a": 0}, "name": "a_0"}]}`, `indexes[0]: invalid index "a_0": key.a 0: expected 1`},
		{`{"indexes": [{"key": {"a": 1}}, {"key": {"b": 1}, "name": "a_1"}]}`, `indexes: invalid index "a_1": name "a_1": indexes 0 and 1`},
		{`{"indexes": [{"key": {"a": 1}, "name": "_id_"}]}`, `index _id_ with key {"a":1}`},
		{`{"options": {"capped": true}, "indexes": []}`, `options: {"capped":true}: collection options are not created by oidkit; expected {}`},
		{`{"options": 1}`, "options: 1: expected a document"},
		{`{"type": "view"}`, `type: "view": oidkit loads collections only`},
		{`{"collectionName": 5}`, "collectionName: 5: expected a string"},
		{`{"extra": 1}`, "extra: unknown field"},
		{`{"indexes": [], "indexes": []}`, "indexes: appears twice"},
	}
	for _, c := range cases {
		_, err := ParseSidecar("x.metadata.json", []byte(c.in))
		var se *SidecarError
		if err == nil || !errors.As(err, &se) || se.Path != "x.metadata.json" {
			t.Errorf("%s: %v; want a *SidecarError", c.in, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "x.metadata.json: ") {
			t.Errorf("%s:\n  got  %v\n  want %q in it", c.in, err, c.want)
		}
	}
	if _, err := ReadSidecar(filepath.Join(t.TempDir(), "none.metadata.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestIsSidecar(t *testing.T) {
	for in, want := range map[string]bool{"users.metadata.json": true, "a/b/users.metadata.json": true, ".metadata.json": false, "users.json": false, "users.metadata.ndjson": false} {
		if IsSidecar(in) != want {
			t.Errorf("IsSidecar(%q) = %v", in, !want)
		}
	}
}

// FuzzParseJSON: no input panics; what parses is valid and survives a
// round trip through its JSON form.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"key": {"email": 1}, "unique": true}`, `{"key": {"createdAt": 1}, "expireAfterSeconds": 86400}`,
		`{"key": {"userId": 1, "createdAt": -1}, "name": "x"}`, `{"key": {"status": 1}, "partialFilterExpression": {"status": {"$eq": "paid"}}}`,
		`{"key": {"a": "hashed"}, "sparse": true}`, `{"key": {"a": {"$numberDouble": "-1.0"}}}`, `{}`, `[`, `{"key": {"a.b": 1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := ParseJSON(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("%q: error %v does not match ErrInvalid", data, err)
			}
			return
		}
		if err := ix.Validate(); err != nil {
			t.Fatalf("%q parsed but is invalid: %v", data, err)
		}
		js, err := ix.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseJSON(js)
		if err != nil {
			t.Fatalf("%q → %s does not parse: %v", data, js, err)
		}
		if d := Diff(ix, again); d != "" {
			t.Fatalf("%q → %s: %s", data, js, d)
		}
	})
}

// FuzzParseSidecar: no input panics; what parses writes and reads back the
// same.
func FuzzParseSidecar(f *testing.F) {
	for _, s := range []string{`{"options":{},"indexes":[{"v":2,"key":{"_id":1},"name":"_id_"},{"v":2,"key":{"email":1},"name":"email_1","unique":true}],"collectionName":"users","type":"collection"}`,
		`{"indexes":[{"key":{"a":1},"collation":{"locale":"en"}}]}`, `{}`, `{"indexes":[{"key":{"a":"text"},"weights":{"a":1}}]}`} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		list, err := ParseSidecar("f", data)
		if err != nil {
			return
		}
		path := filepath.Join(dir, "c.metadata.json")
		if err := WriteSidecar(path, "c", list); err != nil {
			t.Fatalf("%q parsed but does not write: %v", data, err)
		}
		again, err := ReadSidecar(path)
		if err != nil {
			t.Fatalf("%q: written sidecar does not read: %v", data, err)
		}
		if len(again) != len(list) {
			t.Fatalf("%q: %d indexes, %d read back", data, len(list), len(again))
		}
		for k := range list {
			if d := Diff(list[k], again[k]); d != "" {
				t.Fatalf("%q: index %d: %s", data, k, d)
			}
		}
	})
}

// What a server lists is read as MongoDB reads a key: any positive number
// ascending, any negative one descending; a plan file must write 1 or -1.
func TestFromDocumentDirections(t *testing.T) {
	ix, err := FromDocument(bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 2.5}, {Key: "b", Value: int64(-7)}}}, {Key: "name", Value: "a_2.5_b_-7"}})
	if err != nil || valueText(ix.Key) != `{"a":1,"b":-1}` || ix.Name != "a_2.5_b_-7" {
		t.Errorf("%v %v", ix, err)
	}
	if _, err := FromDocument(bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 0}}}}); err == nil {
		t.Error("direction 0 accepted")
	}
	if _, err := ParseJSON([]byte(`{"key": {"a": 2.5}}`)); err == nil {
		t.Error("a plan file's direction 2.5 accepted")
	}
}

// Conflict judges the wanted indexes against a listing, asking no server:
// the same name with another definition, or the same key under another
// name, is the index in the way; a missing one or one already there as
// wanted is none; a wanted list Create would refuse is refused first.
func TestConflict(t *testing.T) {
	email := Index{Key: bson.D{{Key: "email", Value: int32(1)}}, Unique: true}
	plain := Index{Key: bson.D{{Key: "email", Value: int32(1)}}}
	other := Index{Key: bson.D{{Key: "email", Value: int32(1)}}, Unique: true, Name: "by_email"}
	cases := []struct {
		have, want []Index
		in         *Index // the index in the way, nil for none
	}{
		{nil, []Index{email}, nil},
		{[]Index{email}, []Index{email}, nil},
		{[]Index{plain}, []Index{email}, &plain},
		{[]Index{other}, []Index{email}, &other},
	}
	for _, c := range cases {
		err := Conflict("db", "users", c.have, c.want)
		var re *RefusedError
		switch {
		case c.in == nil && err != nil:
			t.Errorf("have %v, want %v: %v; expected no conflict", c.have, c.want, err)
		case c.in != nil && (!errors.As(err, &re) || re.Have == nil || re.Have.NameOrDefault() != c.in.NameOrDefault() || re.DB != "db" || re.Collection != "users"):
			t.Errorf("have %v, want %v: %v; expected %s in the way", c.have, c.want, err, c.in.NameOrDefault())
		}
	}
	if err := Conflict("db", "users", nil, []Index{email, email}); err == nil {
		t.Error("a wanted list with one index twice: no error")
	}
}
