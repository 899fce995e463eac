package seed

// The settings of PlanOptions that name collections: an _id strategy per
// collection, and references to stored documents.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CollectionID is one COLLECTION=STRATEGY of an _id setting.
type CollectionID struct {
	Collection string
	Strategy   string
}

// ParseIDSetting reads an _id setting: one strategy ("uuid", returned as
// plain), or a strategy per collection, "users=field:email,orders=int"
// (per, in the order given). The strategies themselves are not parsed.
func ParseIDSetting(s string) (plain string, per []CollectionID, err error) {
	if !isPerCollection(s) {
		return s, nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, strategy, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || name == "" || strategy == "" {
			return "", nil, fmt.Errorf("%q: expected COLLECTION=STRATEGY such as users=field:email, or one strategy for every collection", part)
		}
		for _, e := range per {
			if e.Collection == name {
				return "", nil, fmt.Errorf("collection %q named twice; expected one strategy per collection", name)
			}
		}
		per = append(per, CollectionID{Collection: name, Strategy: strategy})
	}
	return "", per, nil
}

// isPerCollection tells "users=int" (a name before any ':') from a strategy.
func isPerCollection(s string) bool {
	eq := strings.IndexByte(s, '=')
	colon := strings.IndexByte(s, ':')
	return eq >= 0 && (colon < 0 || eq < colon)
}

// IDOf is the strategy the _id setting o.ID gives collection coll: the
// plain strategy, or coll's of a list; false when the list leaves it out.
func (o PlanOptions) IDOf(coll string) (string, bool) {
	plain, per, err := ParseIDSetting(o.ID)
	if err != nil || len(per) == 0 {
		return plain, true
	}
	for _, e := range per {
		if e.Collection == coll {
			return e.Strategy, true
		}
	}
	return "", false
}

// planIDs sets the _id strategies the setting gives the collections of a
// plan: only per collection, since a plan's collections differ.
func (o PlanOptions) planIDs(p *Plan) error {
	bad := func(format string, args ...any) error {
		return optionErrorf(SettingID, strconv.Quote(o.ID), format, args...)
	}
	_, per, err := ParseIDSetting(o.ID)
	if err != nil {
		return bad("%v", err)
	}
	var names []string
	for _, cs := range p.Collections {
		names = append(names, cs.Name)
	}
	if len(per) == 0 {
		return bad("a plan has several collections; expected COLLECTION=STRATEGY, such as %s=field:email (one or more, comma-separated or repeated)", names[0])
	}
	for _, e := range per {
		k := slices.Index(names, e.Collection)
		if k < 0 {
			return bad("plan %q has no collection %q; expected one of %s", o.Plan, e.Collection, strings.Join(names, ", "))
		}
		id, err := ParseIDStrategy(e.Strategy)
		if err != nil {
			return bad("%s: %v%s", e.Collection, err, idStrategyHint(e.Strategy))
		}
		p.Collections[k].ID = id
	}
	return nil
}

// ParseRefSetting reads a FIELD=COLLECTION of PlanOptions.Refs.
func ParseRefSetting(s string) (field, coll string, err error) {
	field, coll, ok := strings.Cut(s, "=")
	field, coll = strings.TrimSpace(field), strings.TrimSpace(coll)
	if !ok || field == "" || coll == "" {
		return "", "", fmt.Errorf("expected FIELD=COLLECTION, such as userId=users")
	}
	return field, coll, nil
}

// storedRefs applies o.Refs to the written collections of p, and drops the
// collections only referred to that no reference needs any more.
func (o PlanOptions) storedRefs(p *Plan) error {
	for _, s := range o.Refs {
		bad := func(format string, args ...any) error {
			return optionErrorf(SettingRef, strconv.Quote(s), format, args...)
		}
		field, to, err := ParseRefSetting(s)
		if err != nil {
			return bad("%v", err)
		}
		var at []int
		var have []string // what the written collections can refer with
		for k := range p.Collections {
			cs := &p.Collections[k]
			if cs.RefOnly {
				continue
			}
			fields := refFields(cs)
			if slices.Contains(fields, field) {
				at = append(at, k)
			}
			have = append(have, describeRefFields(cs, fields))
		}
		switch {
		case len(at) == 0:
			return bad("no written collection has a reference %q: %s", field, strings.Join(have, "; "))
		case len(at) > 1:
			return bad("collections %q and %q both have field %q; expected a plan file whose refs say which", p.Collections[at[0]].Name, p.Collections[at[1]].Name, field)
		}
		cs := &p.Collections[at[0]]
		r := Ref{Field: field}
		if i := findRef(cs.Refs, field); i >= 0 {
			r = cs.Refs[i]
			cs.Refs = slices.Delete(cs.Refs, i, i+1)
		} else if kd, ok := kindByName(cs.Kind); ok && cs.Template == nil {
			if i := findRef(kd.refs(), field); i >= 0 {
				r = kd.refs()[i]
			}
		}
		r.To, r.Stored, r.Unresolved = to, true, 0
		cs.Refs = append(cs.Refs, r)
	}
	if len(o.Refs) > 0 {
		p.dropUnreferred()
	}
	return nil
}

// refFields are the fields of cs that may hold a reference: its kind's
// references, or its template's top-level fields, and its own refs.
func refFields(cs *CollectionSpec) []string {
	var out []string
	if cs.Template != nil {
		out = cs.Template.topFields()
	} else if kd, ok := kindByName(cs.Kind); ok {
		for _, r := range kd.refs() {
			out = append(out, r.Field)
		}
	}
	for _, r := range cs.Refs {
		if !slices.Contains(out, r.Field) {
			out = append(out, r.Field)
		}
	}
	return out
}

// describeRefFields says which reference fields cs has, for a message.
func describeRefFields(cs *CollectionSpec, fields []string) string {
	what := "kind " + cs.Kind
	if cs.Template != nil {
		what = "template " + cs.Template.Name()
	}
	if len(fields) == 0 {
		return fmt.Sprintf("%s (%s) has no reference fields", cs.Name, what)
	}
	return fmt.Sprintf("%s (%s) has %s", cs.Name, what, strings.Join(fields, ", "))
}

// dropUnreferred removes the RefOnly collections that no reference of
// another collection points at (stored references point at none).
func (p *Plan) dropUnreferred() {
	used := map[string]bool{}
	for _, cs := range p.Collections {
		refs := cs.Refs
		if kd, ok := kindByName(cs.Kind); ok && cs.Template == nil {
			for _, kr := range kd.refs() {
				if findRef(refs, kr.Field) < 0 {
					refs = append(refs, kr)
				}
			}
		}
		for _, r := range refs {
			if !r.Stored {
				used[r.To] = true
			}
		}
	}
	p.Collections = slices.DeleteFunc(p.Collections, func(cs CollectionSpec) bool { return cs.RefOnly && !used[cs.Name] })
}
