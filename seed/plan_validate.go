package seed

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/oidkit/oidkit/oid"
	"github.com/oidkit/oidkit/rules"
)

// Validate checks the whole plan: names, counts, kinds and templates, _id
// strategies (field:NAME must be a field the kind or template produces and
// that is unique by construction), references and the time window. It also
// fills defaults (DB, the references of the order kind). Every error is a
// *PlanError.
func (p *Plan) Validate() error {
	return p.validate(TimeBase(p.At, p.Seeded))
}

// validate is Validate with the time base resolved, so that Build checks the
// window it then uses.
func (p *Plan) validate(base time.Time) error {
	if p.DB == "" {
		p.DB = DefaultDB
	}
	if err := rules.CheckDatabaseName(p.DB); err != nil {
		return &PlanError{Setting: SettingDB, Value: p.DB, Err: err}
	}
	if len(p.Collections) == 0 {
		return planErrorf("", SettingFile, "", "no collections")
	}
	if p.Span < 0 && p.Span != NoSpan {
		return planErrorf("", SettingSpan, p.Span.String(), "span %v: expected a duration >= 0", p.Span)
	}
	if !p.At.IsZero() {
		if err := oid.CheckTime(p.At); err != nil {
			return planErrorf("", SettingAt, p.At.Format(time.RFC3339), "at %s: %w", p.At.Format(time.RFC3339), err)
		}
	}
	if err := oid.CheckTime(base.Add(-p.window(base))); err != nil {
		return planErrorf("", SettingSpan, p.Span.String(), "span %v before %s starts before the ObjectID epoch: %w", p.Span, base.Format(time.RFC3339), err)
	}
	names := map[string]int{}
	for k := range p.Collections {
		if err := p.validateCollection(k, names); err != nil {
			return err
		}
	}
	for k := range p.Collections {
		if err := p.validateRefs(&p.Collections[k], names); err != nil {
			return err
		}
	}
	return nil
}

// validateCollection checks collection k and records its name in names.
func (p *Plan) validateCollection(k int, names map[string]int) error {
	cs := &p.Collections[k]
	bad := func(s Setting, value, format string, args ...any) error {
		return planErrorf(cs.Name, s, value, format, args...)
	}
	if err := rules.CheckCollectionName(cs.Name); err != nil {
		return &PlanError{Collection: cs.Name, Setting: SettingCollection, Value: cs.Name, Err: err, where: fmt.Sprintf("collections[%d]", k)}
	}
	if _, dup := names[cs.Name]; dup {
		e := bad(SettingCollection, cs.Name, "appears twice; expected unique collection names")
		e.(*PlanError).where = fmt.Sprintf("collection %q", cs.Name)
		return e
	}
	names[cs.Name] = k
	count := strconv.FormatInt(cs.Count, 10)
	if cs.Count < 0 || cs.Count > MaxCount {
		return bad(SettingCount, count, "count %d: expected 0..%d", cs.Count, MaxCount)
	}
	if err := checkQuantiles(cs.Times); err != nil {
		return bad(SettingTimes, fmt.Sprint(cs.Times), "times %v: %v", cs.Times, err)
	}
	var fields, unique []string
	switch {
	case cs.Kind != "" && cs.Template != nil:
		return bad(SettingKind, cs.Kind, "has both kind %q and a template; expected one", cs.Kind)
	case cs.Template != nil:
		if p.Seeded && len(cs.Template.unstable) > 0 {
			return bad(SettingTemplate, cs.Template.Name(), "template %s: %s gives different values for the same seed (it reads the clock), so a seeded run could not be reproduced; use {date}, {year} or a fixed value", cs.Template.Name(), cs.Template.unstable[0])
		}
		fields = cs.Template.topFields()
		for f := range cs.Template.indexed {
			unique = append(unique, f)
		}
	case cs.Kind != "":
		kd, ok := kindByName(cs.Kind)
		if !ok {
			return bad(SettingKind, cs.Kind, "kind %q: expected one of %s", cs.Kind, strings.Join(Kinds(), ", "))
		}
		fields, unique = kd.fields(), kd.unique()
		// The kind's own references default to the usual collections.
		for _, kr := range kd.refs() {
			if findRef(cs.Refs, kr.Field) < 0 {
				cs.Refs = append(cs.Refs, kr)
			}
		}
	default:
		return bad(SettingKind, "", "expected a kind (%s) or a template", strings.Join(Kinds(), ", "))
	}
	if err := checkIDs(cs, fields, unique); err != nil {
		return err
	}
	return checkIndexes(cs, fields, unique)
}

// validateRefs checks the references of cs against the collections in names.
func (p *Plan) validateRefs(cs *CollectionSpec, names map[string]int) error {
	seen := map[string]bool{}
	for _, r := range cs.Refs {
		bad := func(format string, args ...any) error {
			e := planErrorf(cs.Name, SettingRef, r.Field, format, args...)
			e.where = fmt.Sprintf("collection %q: ref %q", cs.Name, r.Field)
			return e
		}
		if r.Field == "" || r.Field == "_id" || strings.ContainsAny(r.Field, ".$\x00") {
			return bad("expected a top-level field name other than _id")
		}
		if seen[r.Field] {
			return bad("field referenced twice")
		}
		seen[r.Field] = true
		if r.Stored {
			if err := p.checkStoredRef(r, names); err != nil {
				return bad("%v", err)
			}
		} else if j, ok := names[r.To]; !ok {
			return bad("refers to collection %q, which is not in the plan; expected one of %s (or \"stored\": true for the documents the target holds)", r.To, strings.Join(sortedNames(p), ", "))
		} else if p.Collections[j].Count == 0 && cs.Count > 0 {
			return bad("refers to collection %q, which has no documents", r.To)
		}
		if r.Min < 0 || r.Max < 0 || r.Max > 1000 || (r.Max > 0 && r.Min > r.Max) || (r.Max == 0 && r.Min != 0) {
			return bad("min %d max %d: expected 0 <= min <= max <= 1000 (max 0 for a single reference)", r.Min, r.Max)
		}
		if !(r.Unresolved >= 0 && r.Unresolved < 1) {
			return bad("unresolved %v: expected a share from 0 to below 1", r.Unresolved)
		}
		if err := checkShares(r.PerTarget); err != nil {
			return bad("perTarget %v: %v", r.PerTarget, err)
		}
		if err := r.checkLengths(); err != nil {
			return bad("%v", err)
		}
	}
	if cs.Kind == KindOrder {
		if i := findRef(cs.Refs, "productIds"); i >= 0 && cs.Refs[i].Max == 0 {
			return planErrorf(cs.Name, SettingRef, "productIds", "ref \"productIds\": expected max >= 1 (an array of products)")
		}
		if i := findRef(cs.Refs, "userId"); i >= 0 && cs.Refs[i].Max != 0 {
			return planErrorf(cs.Name, SettingRef, "userId", "ref \"userId\": expected a single reference (max 0)")
		}
	}
	return nil
}

// checkQuantiles checks a quantile function of fractions given as points:
// none, or at least two, ascending, from 0 to 1.
func checkQuantiles(q []float64) error {
	if len(q) == 0 {
		return nil
	}
	if len(q) < 2 {
		return errors.New("expected at least two points")
	}
	for k, x := range q {
		if math.IsNaN(x) || x < 0 || x > 1 || (k > 0 && x < q[k-1]) {
			return fmt.Errorf("point %d (%v): expected ascending fractions of the window, from 0 to 1", k, x)
		}
	}
	return nil
}

// checkShares checks weights: none, or finite numbers >= 0, not all 0.
func checkShares(w []float64) error {
	sum := 0.0
	for k, x := range w {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return fmt.Errorf("part %d (%v): expected a number >= 0", k, x)
		}
		sum += x
	}
	if len(w) > 0 && sum == 0 {
		return errors.New("expected at least one part above 0")
	}
	return nil
}

// checkLengths checks Lengths and Weights.
func (r Ref) checkLengths() error {
	if len(r.Lengths) == 0 && len(r.Weights) == 0 {
		return nil
	}
	if r.Max == 0 || len(r.Lengths) != len(r.Weights) {
		return fmt.Errorf("lengths %v weights %v: expected as many weights as lengths, of an array reference (max >= 1)", r.Lengths, r.Weights)
	}
	total := 0.0
	for k, l := range r.Lengths {
		if l < r.Min || l > r.Max {
			return fmt.Errorf("lengths %v: length %d: expected each within min %d and max %d", r.Lengths, l, r.Min, r.Max)
		}
		if w := r.Weights[k]; !(w >= 0) || math.IsInf(w, 0) {
			return fmt.Errorf("weights %v: weight %v: expected a finite number >= 0", r.Weights, w)
		}
		total += r.Weights[k]
	}
	if !(total > 0) {
		return fmt.Errorf("weights %v: expected at least one above 0", r.Weights)
	}
	return nil
}

func sortedNames(p *Plan) []string {
	var out []string
	for _, c := range p.Collections {
		out = append(out, fmt.Sprintf("%q", c.Name))
	}
	return out
}
