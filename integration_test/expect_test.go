package integration

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/oid"
	"github.com/oidkit/oidkit/seed"
)

// gen is one generation plan, spelled both as flags for the binary and as a
// seed.Plan for the expectation the test rebuilds in process.
type gen struct {
	db    string
	coll  string // --collection; empty with plan
	kind  string
	id    string // --id
	plan  string // built-in plan name
	n     int64
	seed  uint64
	at    time.Time // zero: the documented default base
	span  time.Duration
	extra []string // more flags for the binary only
}

// flags are the plan flags of seed, fixtures and verify db.
func (g gen) flags() []string {
	f := []string{"--db", g.db, "-n", strconv.FormatInt(g.n, 10), "--seed", strconv.FormatUint(g.seed, 10)}
	if g.plan != "" {
		f = append(f, "--plan", g.plan)
	} else {
		f = append(f, "--collection", g.coll)
		if g.kind != "" {
			f = append(f, "--kind", g.kind)
		}
		if g.id != "" {
			f = append(f, "--id", g.id)
		}
	}
	if !g.at.IsZero() {
		f = append(f, "--at", g.at.UTC().Format(time.RFC3339))
	}
	// A zero span is left to the default window, the command's and the Go
	// plan's alike (seed.DefaultSpan).
	if g.span != 0 {
		f = append(f, "--span", g.span.String())
	}
	return append(f, g.extra...)
}

// dataset builds the same plan through the seed package.
func (g gen) dataset(t *testing.T) *seed.Dataset {
	t.Helper()
	p := &seed.Plan{DB: g.db, Seed: g.seed, Seeded: true, At: g.at, Span: g.span}
	if g.plan != "" {
		bp, err := seed.BuiltinPlan(g.plan, g.n)
		if err != nil {
			t.Fatalf("plan %q: %v", g.plan, err)
		}
		p.Collections = bp.Collections
	} else {
		id, err := seed.ParseIDStrategy(g.id)
		if err != nil {
			t.Fatalf("--id %q: %v", g.id, err)
		}
		p.Collections = []seed.CollectionSpec{{Name: g.coll, Kind: g.kind, Count: g.n, ID: id, IDStart: 1}}
		if g.kind == seed.KindOrder {
			// As the CLI documents it: orders alone refer to the users and
			// products that --kind user -n N and --kind product -n N/10
			// write with the same seed.
			p.Collections = append(p.Collections,
				seed.CollectionSpec{Name: "users", Kind: seed.KindUser, Count: max(g.n, 1), RefOnly: true},
				seed.CollectionSpec{Name: "products", Kind: seed.KindProduct, Count: max(1, g.n/10), RefOnly: true})
		}
	}
	ds, err := p.Build()
	if err != nil {
		t.Fatalf("building the expected plan: %v", err)
	}
	return ds
}

// expected is what one collection must hold: each document's BSON by its
// _id (type byte + value bytes), in generation order.
type expected struct {
	name  string
	order []string
	docs  map[string]bson.Raw
}

func expectCollection(t *testing.T, c *seed.Collection) *expected {
	t.Helper()
	e := &expected{name: c.Name(), docs: make(map[string]bson.Raw, c.Len())}
	w := c.NewWorker()
	for i := int64(0); i < c.Len(); i++ {
		raw, err := bson.Marshal(w.Doc(i))
		if err != nil {
			t.Fatalf("%s[%d]: marshal: %v", c.Name(), i, err)
		}
		k := idKey(bson.Raw(raw).Lookup("_id"))
		if _, dup := e.docs[k]; dup {
			t.Fatalf("%s[%d]: the generator itself repeats _id %s", c.Name(), i, bson.Raw(raw).Lookup("_id"))
		}
		e.order = append(e.order, k)
		e.docs[k] = raw
	}
	return e
}

func idKey(v bson.RawValue) string { return string(rune(v.Type)) + string(v.Value) }

// readAll reads a collection back with the driver.
func readAll(t *testing.T, coll *mongo.Collection) []bson.Raw {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cur, err := coll.Find(ctx, bson.D{})
	if err != nil {
		t.Fatalf("find %s: %v", coll.Name(), err)
	}
	defer cur.Close(ctx)
	var out []bson.Raw
	for cur.Next(ctx) {
		out = append(out, append(bson.Raw(nil), cur.Current...))
	}
	if err := cur.Err(); err != nil {
		t.Fatalf("reading %s: %v", coll.Name(), err)
	}
	return out
}

// compareExact checks that the stored documents are exactly the expected
// ones: same count, no duplicate or unexpected _id, nothing missing, every
// document byte-identical to the expected BSON (so _id bytes and types too).
func compareExact(t *testing.T, e *expected, got []bson.Raw) {
	t.Helper()
	var problems []string
	seen := make(map[string]bool, len(got))
	for _, d := range got {
		k := idKey(d.Lookup("_id"))
		if seen[k] {
			problems = append(problems, fmt.Sprintf("duplicate _id %s", d.Lookup("_id")))
			continue
		}
		seen[k] = true
		want, ok := e.docs[k]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("unexpected _id %s", d.Lookup("_id")))
		case !bytes.Equal(d, want):
			problems = append(problems, fmt.Sprintf("_id %s differs:\n  got  %s\n  want %s", d.Lookup("_id"), d, want))
		}
	}
	for _, k := range e.order {
		if !seen[k] {
			problems = append(problems, fmt.Sprintf("missing _id %s", e.docs[k].Lookup("_id")))
		}
	}
	if len(got) != len(e.order) {
		problems = append([]string{fmt.Sprintf("count %d, want %d", len(got), len(e.order))}, problems...)
	}
	if len(problems) > 0 {
		if len(problems) > 8 {
			problems = append(problems[:8], fmt.Sprintf("... %d more", len(problems)-8))
		}
		t.Errorf("collection %s is not what was generated:\n%s", e.name, strings.Join(problems, "\n"))
	}
}

// checkObjectIDTimes: for every document, the driver's ObjectID timestamp
// equals oid's, equals createdAt, and lies in [base-span, base].
func checkObjectIDTimes(t *testing.T, got []bson.Raw, base time.Time, span time.Duration) {
	t.Helper()
	lo, hi := base.Add(-span), base
	bad := 0
	for _, d := range got {
		id, ok := d.Lookup("_id").ObjectIDOK()
		if !ok {
			t.Fatalf("_id %s is not an ObjectID", d.Lookup("_id"))
		}
		drv, own := id.Timestamp().UTC(), oid.ID(id).Timestamp()
		var msg string
		switch {
		case !drv.Equal(own):
			msg = fmt.Sprintf("_id %s: driver Timestamp %s, oid Timestamp %s", id.Hex(), drv, own)
		case drv.Before(lo) || drv.After(hi):
			msg = fmt.Sprintf("_id %s: timestamp %s outside [%s, %s]", id.Hex(), drv, lo, hi)
		}
		if ca, ok := d.Lookup("createdAt").DateTimeOK(); ok && msg == "" && time.UnixMilli(ca).UTC() != drv {
			msg = fmt.Sprintf("_id %s: createdAt %s, _id timestamp %s", id.Hex(), time.UnixMilli(ca).UTC(), drv)
		}
		if msg != "" {
			t.Error(msg)
			if bad++; bad > 5 {
				t.Fatal("more timestamp mismatches left out")
			}
		}
	}
}
