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

// Any bytes read as a manifest either fail or make a manifest that is
// written and read back the same; nothing panics.
func FuzzManifestBSON(f *testing.F) {
	plan, _ := bson.Marshal(bson.D{{Key: "db", Value: "shop"}, {Key: "plan", Value: bson.A{bson.D{{Key: "name", Value: "users"}}}}})
	seed, _ := bson.Marshal(mongowrite.Manifest{Key: "users#part-0001-of-0002", Collection: "users", Part: parts.Part{I: 1, N: 2}, Run: "r", Plan: plan, Count: 9, Acked: []parts.Range{{From: 0, To: 4}}, State: mongowrite.StateFailed, Error: "x"})
	f.Add(seed)
	f.Add([]byte{5, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var m mongowrite.Manifest
		if bson.Unmarshal(b, &m) != nil {
			return
		}
		out, err := bson.Marshal(m)
		if err != nil {
			return // a plan naming a field as the manifest does is refused
		}
		var back mongowrite.Manifest
		if err := bson.Unmarshal(out, &back); err != nil {
			t.Fatalf("a manifest written cannot be read back: %v", err)
		}
		if !bytes.Equal(back.Plan, m.Plan) || back.Key != m.Key || back.Collection != m.Collection || back.Run != m.Run || back.AckedCount != m.AckedCount {
			t.Fatalf("read back %+v, want %+v", back, m)
		}
	})
}
