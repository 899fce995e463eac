package seed

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
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

// OptionError is a setting of PlanOptions that NewPlan cannot use: the
// setting, its value as a message shows it (quoted, or a number) and what
// is wrong with it. It wraps the *PlanError behind it, if any.
type OptionError struct {
	Setting Setting
	Value   string
	Err     error
}

func (e *OptionError) Error() string { return fmt.Sprintf("%s %s: %v", e.Setting, e.Value, e.Err) }
func (e *OptionError) Unwrap() error { return e.Err }

func optionError(s Setting, value string, err error) *OptionError {
	return &OptionError{Setting: s, Value: value, Err: err}
}

func optionErrorf(s Setting, value, format string, args ...any) *OptionError {
	return optionError(s, value, fmt.Errorf(format, args...))
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

// Blame is err, an error of the plan o describes (NewPlan, or Build of it),
// as an *OptionError naming the setting behind it: with a plan every
// setting comes from the plan (or its file); otherwise the *PlanError's
// Setting says which. An error of no setting is returned as it is.
func (o PlanOptions) Blame(err error) error {
	if o.Plan != "" {
		return optionErrorf(SettingFile, strconv.Quote(o.Plan), "%w%s", err, PlanHint(err))
	}
	var pe *PlanError
	if !errors.As(err, &pe) {
		return err
	}
	if hint := PlanHint(err); hint != "" {
		err = fmt.Errorf("%w%s", err, hint)
	}
	switch pe.Setting {
	case SettingIDStart:
		return optionError(pe.Setting, strconv.FormatInt(o.IDStart, 10), err)
	case SettingCount:
		return optionError(pe.Setting, strconv.FormatInt(o.Count, 10), err)
	case SettingID, SettingSpan, SettingAt, SettingTemplate, SettingKind, SettingCollection, SettingDB:
		return optionError(pe.Setting, strconv.Quote(o.text(pe.Setting)), err)
	}
	return err
}

// text is the text of setting s.
func (o PlanOptions) text(s Setting) string {
	return map[Setting]string{SettingID: o.ID, SettingSpan: o.Span, SettingAt: o.At, SettingTemplate: o.Template, SettingKind: o.Kind, SettingCollection: o.Collection, SettingDB: o.DB}[s]
}

// PlanHint is the did-you-mean of a plan error: the nearest kind for an
// unknown kind, _id strategy for an unknown one, built-in plan for a plan
// file that does not exist; "" when none is near.
func PlanHint(err error) string {
	var pe *PlanError
	if !errors.As(err, &pe) {
		return ""
	}
	switch pe.Setting {
	case SettingKind:
		if !slices.Contains(Kinds(), pe.Value) {
			return suggest.DidYouMean(pe.Value, Kinds())
		}
	case SettingID:
		return idStrategyHint(pe.Value)
	case SettingFile:
		if errors.Is(err, fs.ErrNotExist) {
			return suggest.DidYouMean(pe.Value, BuiltinPlans())
		}
	}
	return ""
}

// idStrategyHint is the did-you-mean of an unknown _id strategy: the
// nearest of objectid, int and uuid, or field:NAME for a misspelt field:.
func idStrategyHint(v string) string {
	t := strings.TrimSpace(v)
	if _, name, ok := strings.Cut(t, ":"); ok {
		return suggest.DidYouMean(t, []string{IDStrategy{Kind: IDField, Field: name}.String()})
	}
	var names []string
	for _, k := range []IDKind{IDObjectID, IDInt, IDUUID} {
		names = append(names, IDStrategy{Kind: k}.String())
	}
	return suggest.DidYouMean(t, names)
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
