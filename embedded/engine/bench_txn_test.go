package engine

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// BenchmarkLookupVsRead reads 10,000 orders, and the same orders joined
// to their users by $lookup on the users' indexed email, in one run: the
// goal is that the join costs at most 3x the read.
func BenchmarkLookupVsRead(b *testing.B) {
	ctx := context.Background()
	users := seedUsers(b, 1000)
	orders := users.Database().Collection("orders")
	batch := make([]any, 0, 10000)
	for i := 0; i < 10000; i++ {
		batch = append(batch, bson.D{{Key: "_id", Value: i}, {Key: "email", Value: fmt.Sprintf("u%d@x.io", i%1000)}, {Key: "total", Value: i % 97}})
	}
	if _, err := orders.InsertMany(ctx, batch); err != nil {
		b.Fatal(err)
	}
	read := func(b *testing.B, cur *mongo.Cursor, err error) {
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for cur.Next(ctx) {
			n++
		}
		if cur.Err() != nil || n != 10000 {
			b.Fatal(n, cur.Err())
		}
	}
	b.Run("Read", func(b *testing.B) {
		for b.Loop() {
			cur, err := orders.Find(ctx, bson.D{})
			read(b, cur, err)
		}
	})
	b.Run("Lookup", func(b *testing.B) {
		for b.Loop() {
			cur, err := orders.Aggregate(ctx, mongo.Pipeline{{{Key: "$lookup", Value: bson.D{
				{Key: "from", Value: "users"}, {Key: "localField", Value: "email"}, {Key: "foreignField", Value: "email"}, {Key: "as", Value: "user"}}}}})
			read(b, cur, err)
		}
	})
}

// BenchmarkTransactionVsPlain runs two updates of two documents with and
// without a transaction around them, in one run: the goal is that the
// transaction costs at most 3x the two updates.
func BenchmarkTransactionVsPlain(b *testing.B) {
	ctx := context.Background()
	users := seedUsers(b, 1000)
	c := users.Database().Client()
	move := func(ctx context.Context) error {
		if _, err := users.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: -1}}}}); err != nil {
			return err
		}
		_, err := users.UpdateOne(ctx, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
		return err
	}
	b.Run("Plain", func(b *testing.B) {
		for b.Loop() {
			if err := move(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Transaction", func(b *testing.B) {
		sess, err := c.StartSession()
		if err != nil {
			b.Fatal(err)
		}
		defer sess.EndSession(ctx)
		for b.Loop() {
			if _, err := sess.WithTransaction(ctx, func(sc context.Context) (any, error) { return nil, move(sc) }, options.Transaction()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
