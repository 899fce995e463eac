package verify

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/internal/mongoserver/mongotest"
	"github.com/oidkit/oidkit/parts"
	"github.com/oidkit/oidkit/rules"
	"github.com/oidkit/oidkit/seed"
)

// A part is checked alone: the other parts' documents are left out (a
// change to one of them is not the part's failure), a change inside the
// part fails the rows that name it with the collection's document number,
// and the parts' checks together cover every document. Each _id strategy
// (objectid and int inverted by seed, uuid by a table) takes the same road.
func TestVerifyDBPart(t *testing.T) {
	cl := startServer(t)
	ctx := context.Background()
	const n, count = 30, 3
	for k, id := range []string{"objectid", "int", "uuid"} {
		t.Run(id, func(t *testing.T) {
			strategy, err := seed.ParseIDStrategy(id)
			if err != nil {
				t.Fatal(err)
			}
			plan := &seed.Plan{DB: fmt.Sprintf("part%d", k), Seed: 4, Seeded: true,
				Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: n, ID: strategy, IDStart: 1}}}
			ds := seedInto(t, cl, plan)
			c := ds.Collection("users")
			// Document 25 (part 2/3, [20,30)) loses a field.
			coll := cl.Database(ds.DB).Collection("users")
			if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: c.ID(25)}}, bson.D{{Key: "$unset", Value: bson.D{{Key: "email", Value: ""}}}}); err != nil {
				t.Fatal(err)
			}
			for i := range int64(count) {
				p := parts.Part{I: i, N: count}
				e, err := ExpectPart(ctx, ds, c, p)
				if err != nil {
					t.Fatal(err)
				}
				if e.Len() != 10 {
					t.Fatalf("part %v expects %d documents", p, e.Len())
				}
				rep, err := VerifyDB(ctx, cl, ExpectedSet{Verify: []*Expected{e}}, DBOptions{Profile: rules.FerretDB})
				if err != nil {
					t.Fatal(err)
				}
				if row(t, rep, "users: count").Cases == 0 || row(t, rep, "users: missing _ids").Cases != 10 {
					t.Errorf("part %v: count or missing rows did not check 10 documents: %+v", p, rep.Rows)
				}
				if i < 2 {
					checkRows(t, rep, nil)
					continue
				}
				checkRows(t, rep, []wantRow{{"users: documents equal (BSON bytes)", StatusFail, 1, "document 25 (_id " + show(rawValueOf(c.ID(25))) + ")"}})
			}
		})
	}
}

// TestVerifyDBPartUnderMongoDBProfile: under MongoDB's profile the server
// converts every ObjectID _id of the collection with $toDate, while the
// read covers one part; the part passes (it failed with "server converted
// 30 ObjectID _ids, the read found 10"). Run on oidkit's own engine, which
// has $toDate.
func TestVerifyDBPartUnderMongoDBProfile(t *testing.T) {
	_, cl := mongotest.Start(t)
	ctx := context.Background()
	plan := &seed.Plan{DB: "partmongo", Seed: 4, Seeded: true,
		Collections: []seed.CollectionSpec{{Name: "users", Kind: seed.KindUser, Count: 30}}}
	ds := seedInto(t, cl, plan)
	c := ds.Collection("users")
	for i := range int64(3) {
		e, err := ExpectPart(ctx, ds, c, parts.Part{I: i, N: 3})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := VerifyDB(ctx, cl, ExpectedSet{Verify: []*Expected{e}}, DBOptions{Profile: rules.MongoDB})
		if err != nil {
			t.Fatal(err)
		}
		if r := row(t, rep, "users: timestamp on server ($toDate)"); r.Mismatches != 0 || r.Cases < 10 || r.skipped {
			t.Errorf("part %d: $toDate row %+v; want a pass over at least 10 documents", i, r)
		}
		checkRows(t, rep, nil)
	}
}
