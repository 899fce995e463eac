package seed

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// checkIDs checks the _id settings of cs, whose documents have the
// top-level fields fields, unique those of them unique by construction.
func checkIDs(cs *CollectionSpec, fields, unique []string) error {
	bad := func(s Setting, value, format string, args ...any) error {
		return planErrorf(cs.Name, s, value, format, args...)
	}
	id := cs.ID.String()
	if err := checkIDMix(cs.ID, cs.IDMix); err != nil {
		return bad(SettingIDMix, idMixText(cs.IDMix), "%w", err)
	}
	switch cs.ID.Kind {
	case IDObjectID, IDUUID, IDInt:
		if err := checkIDQuantiles(cs.IDQuantiles, cs.IDStep); err != nil {
			return bad(SettingIDStart, fmt.Sprint(cs.IDQuantiles), "idQuantiles %v: %w", cs.IDQuantiles, err)
		}
		if cs.IDStep < 0 {
			return bad(SettingIDStart, strconv.FormatInt(cs.IDStep, 10), "idStep %d: expected a step of at least 1 (0: 1)", cs.IDStep)
		}
		if cs.usesID(IDInt) && cs.Count > 0 && (cs.IDStart > 0 && cs.IDStart > math.MaxInt64-(cs.Count-1)*cs.idStep() || (cs.Count-1) > math.MaxInt64/cs.idStep()) {
			return bad(SettingIDStart, strconv.FormatInt(cs.IDStart, 10), "idStart %d: the last _id would overflow int64", cs.IDStart)
		}
	case IDField:
		f := cs.ID.Field
		switch {
		case !slices.Contains(fields, f):
			return bad(SettingID, id, "id %s: the documents have no field %q; expected one of %s", id, f, strings.Join(fields, ", "))
		case !slices.Contains(unique, f) && cs.Template != nil:
			return bad(SettingID, id, "id %s: field %q is not unique by construction; put {index} in its template value, between literal text, e.g. \"user{index}@example.com\"", id, f)
		case !slices.Contains(unique, f):
			return bad(SettingID, id, "id %s: field %q is not unique by construction; expected one of %s", id, f, strings.Join(unique, ", "))
		case findRef(cs.Refs, f) >= 0:
			return bad(SettingID, id, "id %s: field %q is a reference; expected a natural key", id, f)
		}
	default:
		return bad(SettingID, id, "unknown _id strategy")
	}
	return nil
}

// usesID reports whether some document of cs has a _id of strategy kind k:
// its own strategy's, or one of its idMix.
func (cs *CollectionSpec) usesID(k IDKind) bool {
	if cs.ID.Kind == k {
		return true
	}
	for _, s := range cs.IDMix {
		if s.ID.Kind == k {
			return true
		}
	}
	return false
}

// idStep is IDStep, 0 taken as 1.
func (cs CollectionSpec) idStep() int64 { return max(cs.IDStep, 1) }

// intID is the int strategy's _id of document i.
func (c *Collection) intID(i int64) int64 {
	if c.idq != nil {
		return c.idq.id(i)
	}
	return c.spec.IDStart + i*c.spec.idStep()
}
