package oidkittest_test

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/oidkit/oidkit/oidkittest"
)

// A test of a service's retry handling: the next insert of the service's
// client fails as it would while a primary steps down, and the test checks
// what the service does with it. Other tests' clients are not affected.
func ExampleFailCommand() {
	var t *testing.T // the test's own, in a real test
	db := oidkittest.New(t)
	faulty := oidkittest.FailCommand(t, db, oidkittest.FailPoint{Commands: []string{"insert"}, Times: 1, ErrorCode: 11602})
	// Give faulty to the code under test; here, insert directly.
	_, err := faulty.Collection("orders").InsertOne(context.Background(), bson.D{{Key: "total", Value: 42}})
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(11602) {
		t.Fatalf("the injected error did not come back: %v", err)
	}
}
