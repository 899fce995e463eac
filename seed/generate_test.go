package seed

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/oid"
)

// uniqueField is a natural key of each kind, for field:NAME.
var uniqueField = map[string]string{
	KindUser: "email", KindEmployee: "employeeNumber", KindProduct: "code", KindOrder: "number",
}

func allStrategies(kind string) []string {
	return []string{"objectid", "int", "uuid", "field:" + uniqueField[kind]}
}

func TestParseIDStrategy(t *testing.T) {
	good := map[string]IDStrategy{
		"":            {Kind: IDObjectID},
		"objectid":    {Kind: IDObjectID},
		"int":         {Kind: IDInt},
		"uuid":        {Kind: IDUUID},
		"field:email": {Kind: IDField, Field: "email"},
	}
	for in, want := range good {
		got, err := ParseIDStrategy(in)
		if err != nil || got != want {
			t.Errorf("ParseIDStrategy(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"ObjectID", "integer", "field:", "field:_id", "field:a.b", "field:$x", "uuid4", "int:5"} {
		_, err := ParseIDStrategy(in)
		if !errors.Is(err, ErrIDStrategy) || !strings.Contains(err.Error(), fmt.Sprintf("%q", in)) {
			t.Errorf("ParseIDStrategy(%q) error = %v; want ErrIDStrategy naming the input", in, err)
		}
	}
}

func FuzzParseIDStrategy(f *testing.F) {
	for _, s := range []string{"objectid", "int", "uuid", "field:email", "field:", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseIDStrategy(s)
		if err != nil {
			return
		}
		back, err := ParseIDStrategy(id.String())
		if err != nil || back != id {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, id, id.String(), back, err)
		}
	})
}

func marshal(t testing.TB, d bson.D) []byte {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	return b
}

// Every kind with every strategy: _id first, ID(i) equals the document's
// _id, documents do not depend on generation order, and survive relaxed
// Extended JSON byte for byte.
func TestKindsAndStrategies(t *testing.T) {
	for _, kind := range Kinds() {
		for _, strat := range allStrategies(kind) {
			t.Run(kind+"/"+strat, func(t *testing.T) {
				c := buildOne(t, CollectionSpec{Name: "docs", Kind: kind, Count: 300, ID: mustStrategy(t, strat), IDStart: -5}, 7)
				fields, _, _ := KindFields(kind)
				seen := map[string]bool{}
				w := c.NewWorker()
				for i := range c.Len() {
					d := w.Doc(i)
					if d[0].Key != "_id" {
						t.Fatalf("doc %d: first field %q, want _id", i, d[0].Key)
					}
					if len(d) != 1+len(fields) {
						t.Fatalf("doc %d: %d fields, want %d", i, len(d), 1+len(fields))
					}
					idb := marshal(t, bson.D{{Key: "v", Value: c.ID(i)}})
					if !bytes.Equal(idb, marshal(t, bson.D{{Key: "v", Value: d[0].Value}})) {
						t.Fatalf("doc %d: ID(i) %v != _id %v", i, c.ID(i), d[0].Value)
					}
					if seen[string(idb)] {
						t.Fatalf("doc %d: duplicate _id %v", i, d[0].Value)
					}
					seen[string(idb)] = true
					// Random access gives the same bytes as streaming.
					if i%37 == 0 && !bytes.Equal(marshal(t, c.Doc(i)), marshal(t, d)) {
						t.Fatalf("doc %d: Doc(i) differs from the worker's", i)
					}
					checkRelaxedRoundTrip(t, d)
				}
			})
		}
	}
}

func checkRelaxedRoundTrip(t *testing.T, d bson.D) {
	t.Helper()
	js, err := bson.MarshalExtJSON(d, false, false)
	if err != nil {
		t.Fatalf("MarshalExtJSON: %v", err)
	}
	var back bson.D
	if err := bson.UnmarshalExtJSON(js, false, &back); err != nil {
		t.Fatalf("UnmarshalExtJSON(%s): %v", js, err)
	}
	if !bytes.Equal(marshal(t, d), marshal(t, back)) {
		t.Fatalf("relaxed Extended JSON changes the document:\n%s", js)
	}
}

func TestIDTypes(t *testing.T) {
	c := buildOne(t, CollectionSpec{Name: "e", Kind: KindEmployee, Count: 3, ID: IDStrategy{Kind: IDInt}, IDStart: 10}, 1)
	if got := c.Doc(0); got[0].Value != int32(10) || got[1].Key != "EmployeeName" {
		t.Fatalf("doc 0 = %v; want {_id: 10, EmployeeName: ...}", got)
	}
	big := buildOne(t, CollectionSpec{Name: "e", Kind: KindEmployee, Count: 3, ID: IDStrategy{Kind: IDInt}, IDStart: 1<<31 - 2}, 1)
	for i := range int64(3) {
		if _, ok := big.ID(i).(int64); !ok {
			t.Fatalf("ID(%d) = %T; want int64 for every id when the last does not fit int32", i, big.ID(i))
		}
	}
	u := buildOne(t, CollectionSpec{Name: "u", Kind: KindUser, Count: 3, ID: IDStrategy{Kind: IDUUID}}, 1)
	b := u.ID(1).(bson.Binary)
	if b.Subtype != 4 || len(b.Data) != 16 || b.Data[6]>>4 != 4 || b.Data[8]>>6 != 2 {
		t.Fatalf("uuid = %x subtype %d; want a version 4 RFC 4122 UUID, subtype 4", b.Data, b.Subtype)
	}
	f := buildOne(t, CollectionSpec{Name: "p", Kind: KindProduct, Count: 3, ID: mustStrategy(t, "field:code")}, 1)
	d := f.Doc(2)
	if d[0].Value != d[indexOf(d, "code")].Value || !strings.HasSuffix(d[0].Value.(string), "-0000002") {
		t.Fatalf("field:code doc = %v", d)
	}
}

func TestDeterminism(t *testing.T) {
	build := func(seed uint64) *Dataset {
		p, _ := BuiltinPlan("shop", 40)
		p.Seed, p.Seeded, p.Span = seed, true, 72*time.Hour
		ds, err := p.Build()
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	a, b, other := build(5), build(5), build(6)
	for _, ca := range a.Collections() {
		cb, co := b.Collection(ca.Name()), other.Collection(ca.Name())
		same := 0
		for i := int64(0); i < ca.Len(); i++ {
			da := marshal(t, ca.Doc(i))
			if !bytes.Equal(da, marshal(t, cb.Doc(i))) {
				t.Fatalf("%s doc %d differs between two builds with the same seed", ca.Name(), i)
			}
			if bytes.Equal(da, marshal(t, co.Doc(i))) {
				same++
			}
		}
		if same > 0 {
			t.Errorf("%s: %d documents equal under seeds 5 and 6", ca.Name(), same)
		}
	}
	// A pinned vector: the output format of seeded runs is a contract.
	u := a.Collection("users")
	if got := u.ObjectID(0).Timestamp(); !got.Equal(DefaultBase.Add(-72 * time.Hour)) {
		t.Errorf("users[0] timestamp %v; want base-span", got)
	}
}

func TestUnseededDiffers(t *testing.T) {
	mk := func() *Collection {
		ds, err := (&Plan{Collections: []CollectionSpec{{Name: "u", Kind: KindUser, Count: 5}}}).Build()
		if err != nil {
			t.Fatal(err)
		}
		return ds.Collection("u")
	}
	a, b := mk(), mk()
	if a.ObjectID(0) == b.ObjectID(0) || bytes.Equal(marshal(t, a.Doc(1)), marshal(t, b.Doc(1))) {
		t.Fatal("two unseeded builds gave the same IDs or documents")
	}
	// The last document is at the time base, which is now without a seed.
	if d := time.Since(a.ObjectID(4).Timestamp()); d < 0 || d > time.Minute {
		t.Fatalf("unseeded timestamp %v is not now", a.ObjectID(4).Timestamp())
	}
	if d := a.ObjectID(4).Timestamp().Sub(a.ObjectID(0).Timestamp()); d != DefaultSpan {
		t.Fatalf("unseeded timestamps span %v; want the default %v", d, DefaultSpan)
	}
}

func TestSpanAndCreatedAt(t *testing.T) {
	for _, strat := range []string{"objectid", "int"} {
		p := &Plan{Seed: 1, Seeded: true, At: testBase, Span: 10 * time.Hour,
			Collections: []CollectionSpec{{Name: "u", Kind: KindUser, Count: 1001, ID: mustStrategy(t, strat)}}}
		ds, err := p.Build()
		if err != nil {
			t.Fatal(err)
		}
		c := ds.Collection("u")
		prev := time.Time{}
		for i := range c.Len() {
			ts := c.Time(i)
			if ts.Before(prev) {
				t.Fatalf("doc %d: time %v before the previous %v", i, ts, prev)
			}
			prev = ts
			d := c.Doc(i)
			ca := d[indexOf(d, "createdAt")].Value.(bson.DateTime)
			if ca.Time().UTC() != ts {
				t.Fatalf("doc %d: createdAt %v != schedule %v", i, ca.Time(), ts)
			}
			if strat == "objectid" && d[0].Value.(bson.ObjectID).Timestamp().UTC() != ts {
				t.Fatalf("doc %d: _id timestamp != createdAt", i)
			}
		}
		if c.Time(0) != testBase.Add(-10*time.Hour) || c.Time(1000) != testBase || c.Time(500) != testBase.Add(-5*time.Hour) {
			t.Fatalf("span endpoints %v %v %v", c.Time(0), c.Time(500), c.Time(1000))
		}
	}
}

// The ObjectIDs of a collection are those an oid.Generator with the same
// random value and counter start makes at the same times.
func TestObjectIDsMatchOidGenerator(t *testing.T) {
	c := buildOne(t, CollectionSpec{Name: "u", Kind: KindUser, Count: 500}, 3)
	r := c.ObjectID(0).Random()
	start := c.counterStart
	g := oid.NewGenerator(oid.Config{Random: &r, CounterStart: &start})
	for i := range c.Len() {
		want, err := g.NewWithTime(c.Time(i))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.ObjectID(i); got != want {
			t.Fatalf("ObjectID(%d) = %v; oid.Generator gives %v", i, got, want)
		}
	}
}

// Past the 24-bit counter the random value moves on, so IDs stay unique.
func TestObjectIDCounterWrap(t *testing.T) {
	c := buildOne(t, CollectionSpec{Name: "u", Kind: KindUser, Count: 1 << 25}, 3)
	c.counterStart = 0xFFFFFE
	a, b, d := c.ObjectID(0), c.ObjectID(1), c.ObjectID(2)
	if a.Counter() != 0xFFFFFE || b.Counter() != 0xFFFFFF || d.Counter() != 0 {
		t.Fatalf("counters %x %x %x", a.Counter(), b.Counter(), d.Counter())
	}
	if a.Random() != b.Random() || b.Random() == d.Random() {
		t.Fatalf("random values %x %x %x: want a change at the wrap", a.Random(), b.Random(), d.Random())
	}
	if c.ObjectID(2) == c.ObjectID(2+1<<24) {
		t.Fatal("IDs repeat after 2^24 documents")
	}
}

func TestReferencesResolve(t *testing.T) {
	p, _ := BuiltinPlan("shop", 200)
	p.Seed, p.Seeded = 9, true
	ds, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	ids := func(name string) map[any]bool {
		c := ds.Collection(name)
		m := map[any]bool{}
		for i := range c.Len() {
			m[c.ID(i)] = true
		}
		return m
	}
	users, products := ids("users"), ids("products")
	orders := ds.Collection("orders")
	usedUsers := map[any]bool{}
	for i := range orders.Len() {
		d := orders.Doc(i)
		u := d[indexOf(d, "userId")].Value
		if !users[u] {
			t.Fatalf("order %d: userId %v is not a user", i, u)
		}
		usedUsers[u] = true
		pids := d[indexOf(d, "productIds")].Value.(bson.A)
		if len(pids) < 1 || len(pids) > 5 {
			t.Fatalf("order %d: %d products", i, len(pids))
		}
		for _, pid := range pids {
			if !products[pid] {
				t.Fatalf("order %d: productId %v is not a product", i, pid)
			}
		}
	}
	if len(usedUsers) < 100 {
		t.Errorf("orders refer to only %d of 200 users", len(usedUsers))
	}
}
