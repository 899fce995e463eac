package seed

// From the settings of a plan as a person gives them (PlanOptions) to a
// validated plan (NewPlan): the parsing of each setting, the plan or kind
// it names, the _id strategies per collection and the references to
// stored documents.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/oidkit/oidkit/internal/suggest"
	"github.com/oidkit/oidkit/oid"
)

// PlanOptions are the settings of a plan as a person gives them, one text
// or count each, with which of them were given: a kind (or its plural), a
// template file or a plan (a file or a built-in plan's name), a count, an
// _id strategy, a seed, a time base and a window. NewPlan turns them into a
// validated plan, the one a command line and a Go program alike describe
// with the same settings.
type PlanOptions struct {
	DB         string // the database; DefaultDB when not given
	Collection string // the collection's name; with Plan, the only collection of the plan written
	Kind       string // a built-in kind or its plural; KindUser by default
	Template   string // a template file, instead of Kind
	Plan       string // a plan file, or a built-in plan (BuiltinPlans), instead of Kind and Template
	Count      int64  // documents (with a built-in plan, its first collection's)
	ID         string // the _id strategy (ParseIDStrategy)
	IDStart    int64  // the first _id of the int strategy
	Seed       string // a seed (ParseSeed)
	At         string // the time base (oid.ParseTime)
	Span       string // the window ending at the time base (ParseSpan); checked, but used only with Given[SettingSpan]: else the plan's Span stays zero, DefaultSpan
	// Refs are references to the documents the target already holds, each
	// FIELD=COLLECTION: the written collection whose reference (a kind's,
	// or a template's field) is FIELD draws it from the _ids stored in
	// COLLECTION (Ref.Stored), with the reference's other settings.
	Refs []string
	// Given holds the settings given; the others take their defaults.
	Given map[Setting]bool
}

// NewPlan is the validated plan o describes. Every error is an
// *OptionError naming the setting and its value.
func NewPlan(o PlanOptions) (*Plan, error) {
	// An explicitly empty database or collection (say, from an unset shell
	// variable) would silently fall back to the default; refuse it instead.
	for _, s := range []struct {
		setting Setting
		value   string
	}{{SettingDB, o.DB}, {SettingCollection, o.Collection}} {
		if o.Given[s.setting] && strings.TrimSpace(s.value) == "" {
			return nil, optionErrorf(s.setting, strconv.Quote(s.value), "expected a non-empty name (leave the flag out for the default)")
		}
	}
	p := &Plan{DB: o.DB}
	if p.DB == "" {
		p.DB = DefaultDB
	}
	if err := o.timeSettings(p); err != nil {
		return nil, err
	}
	n := o.Count
	if n < 0 || n > MaxCount {
		return nil, optionErrorf(SettingCount, strconv.FormatInt(n, 10), "expected a count from 0 to %d", MaxCount)
	}
	var err error
	if o.Plan != "" {
		err = o.fromPlan(p, n)
	} else {
		err = o.fromKind(p, n)
	}
	if err != nil {
		return nil, err
	}
	if err := o.storedRefs(p); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, o.Blame(err)
	}
	return p, nil
}

// timeSettings sets the seed, time base and window of p.
func (o PlanOptions) timeSettings(p *Plan) error {
	if o.Given[SettingSeed] {
		v, err := ParseSeed(o.Seed)
		var pe *PlanError
		if errors.As(err, &pe) {
			return optionError(SettingSeed, strconv.Quote(o.Seed), pe.Err)
		}
		p.Seed, p.Seeded = v, true
	}
	if o.Given[SettingAt] {
		t, err := oid.ParseTime(o.At)
		if err != nil {
			return optionError(SettingAt, strconv.Quote(o.At), err)
		}
		p.At = t
	}
	span, err := ParseSpan(o.Span)
	if err != nil {
		return optionError(SettingSpan, strconv.Quote(o.Span), err)
	}
	p.Span = 0 // DefaultSpan, as in Go
	if o.Given[SettingSpan] {
		p.Span = spanOf(span)
	}
	return nil
}

// ParseSeed reads a seed: an unsigned decimal integer, surrounding spaces
// ignored. A bad value is a *PlanError for SettingSeed.
func ParseSeed(s string) (uint64, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, &PlanError{Setting: SettingSeed, Value: s, Err: errors.New("expected an unsigned integer such as 42")}
	}
	return v, nil
}

// ParseSpan reads a window: a Go duration (90m, 72h) or a number of days
// (30d), in whole seconds; "" and "0" are no window (one second).
func ParseSpan(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" || t == "0" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(t, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n < 0 || n > 50000 {
			return 0, errors.New("expected a duration such as 90m, 72h or 30d (0 to 50000 days)")
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil || d < 0 {
		return 0, errors.New("expected a duration >= 0 such as 90m, 72h or 30d")
	}
	if d%time.Second != 0 {
		return 0, errors.New("expected whole seconds (ObjectID timestamps have 1 s resolution)")
	}
	return d, nil
}

// spanOf is a Plan.Span for a window read from a flag, a plan file or a
// manifest, where 0 is no window (NoSpan), not the default.
func spanOf(d time.Duration) time.Duration {
	if d == 0 {
		return NoSpan
	}
	return d
}

// fromPlan sets the collections of p from the plan o names.
func (o PlanOptions) fromPlan(p *Plan, n int64) error {
	var pl *Plan
	var err error
	builtin := isBuiltinPlan(o.Plan)
	if builtin {
		pl, err = BuiltinPlan(o.Plan, n)
	} else {
		pl, err = LoadPlan(o.Plan)
	}
	if err != nil {
		return optionErrorf(SettingFile, strconv.Quote(o.Plan), "%w%s", err, PlanHint(err))
	}
	if !builtin && o.Given[SettingCount] {
		if err := pl.Scale(n); err != nil {
			return optionErrorf(SettingCount, strconv.FormatInt(n, 10), "%w", err)
		}
	}
	if !o.Given[SettingDB] && pl.DB != "" {
		p.DB = pl.DB
	}
	p.Collections = pl.Collections
	if o.Given[SettingID] {
		if err := o.planIDs(p); err != nil {
			return err
		}
	}
	if !o.Given[SettingAt] && !pl.At.IsZero() { // an inferred plan's time window
		p.At, p.Span = pl.At, pl.Span
	}
	only := o.Collection
	if only == "" {
		return nil
	}
	found := false
	for k := range p.Collections {
		if p.Collections[k].Name == only {
			found = true
		} else {
			p.Collections[k].RefOnly = true
		}
	}
	if !found {
		names := make([]string, len(p.Collections))
		for k, cs := range p.Collections {
			names[k] = cs.Name
		}
		return optionErrorf(SettingCollection, strconv.Quote(only), "plan %q has no such collection; expected one of %s", o.Plan, strings.Join(names, ", "))
	}
	return nil
}

// isBuiltinPlan reports whether s names a built-in plan and no file.
func isBuiltinPlan(s string) bool {
	for _, b := range BuiltinPlans() {
		if s == b {
			if _, err := os.Stat(s); errors.Is(err, os.ErrNotExist) {
				return true
			}
		}
	}
	return false
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

// fromKind sets the one collection of p from the kind or template of o.
func (o PlanOptions) fromKind(p *Plan, n int64) error {
	plain, per, err := ParseIDSetting(o.ID)
	if err != nil {
		return optionErrorf(SettingID, strconv.Quote(o.ID), "%v", err)
	}
	id, err := ParseIDStrategy(plain)
	if len(per) > 0 {
		id, err = IDStrategy{}, nil
	}
	if err != nil {
		return optionErrorf(SettingID, strconv.Quote(o.ID), "%v%s", err, idStrategyHint(o.ID))
	}
	cs := CollectionSpec{Count: n, ID: id, IDStart: o.IDStart}
	if o.Template != "" {
		t, err := LoadTemplate(o.Template)
		if err != nil {
			return optionErrorf(SettingTemplate, strconv.Quote(o.Template), "%v", err)
		}
		cs.Template = t
	} else {
		cs.Kind = KindUser
		if o.Kind != "" {
			if cs.Kind, err = ParseKind(o.Kind); err != nil {
				return optionError(SettingKind, strconv.Quote(o.Kind), err)
			}
		}
	}
	cs.Name = o.Collection
	if cs.Name == "" {
		cs.Name = DefaultCollectionName(cs.Kind, cs.Template)
	}
	for _, e := range per {
		if e.Collection != cs.Name {
			return optionErrorf(SettingID, strconv.Quote(o.ID), "collection %q: this run writes only %q; expected %s=STRATEGY, or the strategy alone", e.Collection, cs.Name, cs.Name)
		}
		if cs.ID, err = ParseIDStrategy(e.Strategy); err != nil {
			return optionErrorf(SettingID, strconv.Quote(o.ID), "%s: %v%s", e.Collection, err, idStrategyHint(e.Strategy))
		}
	}
	p.Collections = []CollectionSpec{cs}
	if cs.Kind == KindOrder {
		// Orders alone refer to the users and products that a kind user
		// of n and a kind product of n/10 write with the same seed, time
		// base and span.
		p.Collections = append(p.Collections, OrderRefs(n)...)
	}
	return nil
}

// ParseKind is the built-in kind s names: the kind (user) or its plural
// (users, which is also its default collection name). Anything else is
// refused as typed, with the nearest of those names.
func ParseKind(s string) (string, error) {
	var names []string
	for _, k := range Kinds() {
		plural := DefaultCollectionName(k, nil)
		if s == k || s == plural {
			return k, nil
		}
		names = append(names, k, plural)
	}
	return "", fmt.Errorf("expected a kind: %s, or its plural%s", strings.Join(Kinds(), ", "), suggest.DidYouMean(s, names))
}

// DefaultCollectionName is the collection a kind or template goes to when
// none is named: the plural of the kind ("users"), or the template file's
// base name without extension.
func DefaultCollectionName(kind string, t *Template) string {
	if t != nil {
		base := filepath.Base(t.Name())
		if ext := filepath.Ext(base); ext != "" {
			base = strings.TrimSuffix(base, ext)
		}
		if base == "" || base == "." {
			return "documents"
		}
		return base
	}
	if kind == "" {
		return "documents"
	}
	return kind + "s"
}

// OrderRefs are the collections that n orders seeded alone refer to: n
// users and n/10 products (at least one), the ratio of the shop plan, as
// reference targets only (RefOnly), so that orders point at the documents
// a plan of that many users, or products, with the same seed, time base
// and span writes.
func OrderRefs(n int64) []CollectionSpec {
	return []CollectionSpec{
		{Name: "users", Kind: KindUser, Count: max(n, 1), RefOnly: true},
		{Name: "products", Kind: KindProduct, Count: shopProducts(n), RefOnly: true},
	}
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
