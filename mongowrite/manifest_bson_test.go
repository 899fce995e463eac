package mongowrite_test

import (
	"bytes"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/mongowrite"
	"github.com/oidkit/oidkit/parts"
)

// A manifest's plan is stored among its own fields, after run, and read
// back apart from them, whatever its fields hold; one without a plan is
// its own fields alone; a plan that names a field as the manifest does is
// refused, since it could not be read back apart.
func TestManifestPlanAmongItsFields(t *testing.T) {
	plan, err := bson.Marshal(bson.D{{Key: "db", Value: "shop"}, {Key: "x.y", Value: bson.D{{Key: "$in", Value: bson.A{1, "two"}}}}, {Key: "n", Value: int64(3)}})
	if err != nil {
		t.Fatal(err)
	}
	m := mongowrite.Manifest{Key: "users", Collection: "users", Run: "r", Plan: plan, Count: 5, Acked: []parts.Range{{From: 0, To: 2}}, AckedCount: 2, State: mongowrite.StateDone}
	raw, err := bson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	elems, _ := bson.Raw(raw).Elements()
	for _, e := range elems {
		keys = append(keys, e.Key())
	}
	if got := strings.Join(keys, " "); got != "_id collection run db x.y n count acked ackedCount state started updated" {
		t.Fatalf("stored keys: %s", got)
	}
	var back mongowrite.Manifest
	if err := bson.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Plan, plan) || back.Run != "r" || back.AckedCount != 2 || back.Count != 5 || len(back.Acked) != 1 {
		t.Fatalf("read back: %+v, plan %v", back, back.Plan)
	}

	none, err := bson.Marshal(mongowrite.Manifest{Collection: "users"})
	if err != nil {
		t.Fatal(err)
	}
	if err := bson.Unmarshal(none, &back); err != nil || len(back.Plan) != 5 || back.Collection != "users" {
		t.Fatalf("a manifest without a plan read back: %+v, %v", back, err)
	}

	clash, _ := bson.Marshal(bson.D{{Key: "state", Value: "x"}})
	if _, err := bson.Marshal(mongowrite.Manifest{Collection: "users", Plan: clash}); err == nil || !strings.Contains(err.Error(), `"state"`) {
		t.Fatalf("a plan with a field state: %v, expected a refusal naming it", err)
	}
}
