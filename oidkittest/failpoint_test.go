package oidkittest

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// FailCommand fails the commands it names for its own client only, as
// many times as asked, and the fault ends with the test.
func TestFailCommand(t *testing.T) {
	db := New(t)
	ctx := context.Background()
	var faulty *mongo.Database
	t.Run("code", func(t *testing.T) {
		faulty = FailCommand(t, db, FailPoint{Commands: []string{"insert"}, Times: 1, ErrorCode: 2})
		var se mongo.ServerError
		if _, err := faulty.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); !errors.As(err, &se) || !se.HasErrorCode(2) {
			t.Fatalf("insert through the faulty client: %v; want code 2", err)
		}
		if _, err := db.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
			t.Fatalf("insert through the test's own client, which the fault must not reach: %v", err)
		}
		if _, err := faulty.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 3}}); err != nil {
			t.Fatalf("second insert, the fault spent: %v", err)
		}
	})
	t.Run("block", func(t *testing.T) {
		slow := FailCommand(t, db, FailPoint{Commands: []string{"find"}, Block: 300 * time.Millisecond})
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		if err := slow.Collection("c").FindOne(cctx, bson.D{}).Err(); !mongo.IsTimeout(err) {
			t.Fatalf("find held 300 ms under a 50 ms deadline: %v; want a timeout", err)
		}
	})
	t.Run("nested", func(t *testing.T) {
		FailCommand(t, db, FailPoint{Commands: []string{"count"}, ErrorCode: 2})
		t.Run("inner", func(t *testing.T) {
			// A subtest of the holder replaces the fault without waiting.
			inner := FailCommand(t, db, FailPoint{Commands: []string{"distinct"}, ErrorCode: 2})
			if _, err := inner.Collection("c").EstimatedDocumentCount(ctx); err != nil {
				t.Errorf("count, no longer named: %v", err)
			}
		})
	})
	// After the subtests, their faults are off.
	if n, err := db.Collection("c").CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
		t.Fatalf("%d documents, %v; want 2", n, err)
	}
	if err := db.Collection("c").FindOne(ctx, bson.D{}).Err(); err != nil {
		t.Fatalf("find after the test's fault ended: %v", err)
	}
}

func TestFailCommandBadInput(t *testing.T) {
	db := New(t)
	ok := t.Run("no commands", func(t *testing.T) {
		ft := &fatalTB{TB: t}
		func() {
			defer func() { _ = recover() }()
			FailCommand(ft, db, FailPoint{})
		}()
		if ft.msg == "" {
			t.Errorf("FailCommand without commands did not fail the test")
		}
	})
	if !ok {
		t.Fail()
	}
}

// fatalTB records Fatalf instead of ending the test.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = format
	panic("fatal")
}
