package mongowrite

// A manifest's BSON: its own fields with its plan's among them, after run,
// in one flat document (the layout every version has stored).

import (
	"fmt"
	"reflect"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// manifestFields is Manifest without its BSON methods: its own fields.
type manifestFields Manifest

// ownKeys are the keys of a manifest's own fields; any other key of a
// stored manifest is its plan's.
var ownKeys = func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[manifestFields]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("bson"), ","); name != "-" {
			keys[name] = true
		}
	}
	return keys
}()

// planAfter is the key after which the plan's fields are stored.
const planAfter = "run"

// MarshalBSON is m's own fields with the fields of m.Plan after Run.
func (m Manifest) MarshalBSON() ([]byte, error) {
	own, err := bson.Marshal((*manifestFields)(&m))
	if err != nil {
		return nil, err
	}
	var plan []byte
	if len(m.Plan) > 0 {
		keys, err := m.Plan.Elements()
		if err != nil {
			return nil, fmt.Errorf("run manifest of %s: its plan: %w", m.Collection, err)
		}
		for _, e := range keys {
			if ownKeys[e.Key()] {
				return nil, fmt.Errorf("run manifest of %s: its plan has a field %q, a name the manifest's own fields take; expected other names", m.Collection, e.Key())
			}
		}
		plan = m.Plan[4 : len(m.Plan)-1]
	}
	elems, err := bson.Raw(own).Elements()
	if err != nil {
		return nil, err
	}
	out := make([]byte, 4, len(own)+len(plan))
	for _, e := range elems {
		out = append(out, e...)
		if e.Key() == planAfter {
			out = append(out, plan...)
		}
	}
	out = append(out, 0)
	return bsoncore.UpdateLength(out, 0, int32(len(out))), nil
}

// UnmarshalBSON reads m's own fields from b, and the others into m.Plan
// in the order stored.
func (m *Manifest) UnmarshalBSON(b []byte) error {
	var own manifestFields
	if err := bson.Unmarshal(b, &own); err != nil {
		return err
	}
	elems, err := bson.Raw(b).Elements()
	if err != nil {
		return err
	}
	plan := make([]byte, 4)
	for _, e := range elems {
		if !ownKeys[e.Key()] {
			plan = append(plan, e...)
		}
	}
	plan = append(plan, 0)
	bsoncore.UpdateLength(plan, 0, int32(len(plan)))
	*m = Manifest(own)
	m.Plan = plan
	return nil
}
