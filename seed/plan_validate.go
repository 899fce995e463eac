package seed

// The validation of a plan: Validate and every check it makes, on the
// time window, each collection (names, counts, kind or template, _id
// settings, indexes) and the references; and the two look-ups its checks
// share with the plan options and the build: a built-in kind by name
// (kindByName) and a reference by field (findRef).

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/oidkit/oidkit/indexes"
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

// TimeBase is the time base of a plan with time base at (zero: none given),
// seeded or not: at itself, else DefaultBase for a seeded plan, else the
// clock; always whole seconds in UTC, since ObjectID timestamps are.
func TimeBase(at time.Time, seeded bool) time.Time {
	switch {
	case !at.IsZero():
	case seeded:
		at = DefaultBase
	default:
		at = time.Now()
	}
	return time.Unix(at.Unix(), 0).UTC()
}

// window is the span p's timestamps spread over from base: the one rule
// for a zero Span and NoSpan.
func (p *Plan) window(base time.Time) time.Duration {
	switch p.Span {
	case NoSpan:
		return 0
	case 0:
		return max(0, min(DefaultSpan, base.Sub(time.Unix(0, 0))))
	}
	return p.Span
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

// checkIDMix checks the idMix of a collection whose own strategy is id:
// objectid, int or uuid strategies other than id, each once, with shares in
// (0, 1) that sum to below 1 (the rest of the documents use id), and id not
// field:NAME.
func checkIDMix(id IDStrategy, mix []IDShare) error {
	if len(mix) == 0 {
		return nil
	}
	if id.Kind == IDField {
		return fmt.Errorf("idMix with id %s: expected id objectid, int or uuid (a natural key cannot share the _ids with other strategies)", id)
	}
	seen := map[IDKind]bool{}
	sum := 0.0
	for _, s := range mix {
		switch {
		case s.ID.Kind == IDField:
			return fmt.Errorf("idMix %q: expected objectid, int or uuid (not a natural key)", s.ID)
		case s.ID.Kind == id.Kind:
			return fmt.Errorf("idMix %q: it is the collection's own id; expected another strategy (the documents not in idMix use id %s)", s.ID, id)
		case seen[s.ID.Kind]:
			return fmt.Errorf("idMix %q: appears twice; expected each strategy once", s.ID)
		case !(s.Share > 0 && s.Share < 1):
			return fmt.Errorf("idMix %q: share %v: expected a share above 0 and below 1", s.ID, s.Share)
		}
		seen[s.ID.Kind] = true
		sum += s.Share
	}
	if !(sum < 1) {
		return fmt.Errorf("idMix %s: shares sum to %v: expected a sum below 1 (the rest use id %s)", idMixText(mix), sum, id)
	}
	return nil
}

// maxIDQuantile bounds the values of IDQuantiles: integers a float64 holds
// exactly, far from int64's ends.
const maxIDQuantile = 1 << 53

// checkIDQuantiles checks a plan's idQuantiles.
func checkIDQuantiles(q []float64, step int64) error {
	if len(q) == 0 {
		return nil
	}
	if step > 1 {
		return errors.New("expected idQuantiles or idStep, not both")
	}
	for _, x := range q {
		if math.IsNaN(x) || math.Abs(x) > maxIDQuantile {
			return fmt.Errorf("quantile %v: expected a number within ±2^53", x)
		}
	}
	if !slices.IsSorted(q) {
		return errors.New("expected ascending quantiles")
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

// checkIndexes checks the indexes of cs: each valid, every key field one
// the documents have (a dotted path into a template's nested documents),
// and a unique index only on a key holding a field unique by construction
// (the rule of field:NAME _ids, or _id): a seeded unique field must never
// collide.
func checkIndexes(cs *CollectionSpec, fields, unique []string) error {
	bad := func(j int, value string, err error) error {
		e := &PlanError{Collection: cs.Name, Setting: SettingIndexes, Value: value, Err: err}
		e.where = fmt.Sprintf("collection %q: indexes[%d]", cs.Name, j)
		return e
	}
	if err := indexes.ValidateList(cs.Indexes); err != nil {
		var ie *indexes.Error
		j := 0
		if errors.As(err, &ie) {
			for k, ix := range cs.Indexes {
				if ix.NameOrDefault() == ie.Index {
					j = k
				}
			}
		}
		return bad(j, cs.Indexes[j].String(), err)
	}
	for j, ix := range cs.Indexes {
		name := ix.NameOrDefault()
		for _, f := range ix.Fields() {
			if f == "_id" {
				continue
			}
			top, _, nested := strings.Cut(f, ".")
			switch {
			case !slices.Contains(fields, top):
				return bad(j, f, fmt.Errorf("index %q: the documents have no field %q; expected _id or one of %s", name, top, strings.Join(fields, ", ")))
			case nested && cs.Template != nil && !cs.Template.hasPath(f):
				return bad(j, f, fmt.Errorf("index %q: the documents have no field %q (template %s); expected a dotted path to a field of a nested document", name, f, cs.Template.Name()))
			}
		}
		if !ix.Unique {
			continue
		}
		ok := false
		for _, f := range ix.Fields() {
			ok = ok || f == "_id" || slices.Contains(unique, f)
		}
		if ok {
			continue
		}
		hint := "expected a key with _id or one of " + strings.Join(unique, ", ")
		if cs.Template != nil {
			hint = "expected a key with _id or a field whose template value holds {index} between literal text, e.g. \"user{index}@example.com\""
		}
		return bad(j, ix.String(), fmt.Errorf("index %q: unique on %s, which is not unique by construction: a seeded unique field must never collide; %s", name, strings.Join(ix.Fields(), ", "), hint))
	}
	return nil
}

// hasPath reports whether the documents have the dotted path: object keys,
// through arrays into the objects they hold.
func (t *Template) hasPath(path string) bool {
	nodes := []*tnode{t.root}
	for _, part := range strings.Split(path, ".") {
		var next []*tnode
		for len(nodes) > 0 {
			n := nodes[0]
			nodes = nodes[1:]
			switch n.kind {
			case tObject:
				for k, key := range n.keys {
					if key == part {
						next = append(next, n.children[k])
					}
				}
			case tArray:
				nodes = append(nodes, n.children...)
			case tShape:
				nodes = append(nodes, n.shape.nodes()...)
			}
		}
		if len(next) == 0 {
			return false
		}
		nodes = next
	}
	return true
}

// nodes are the template values inside the shape, for hasPath.
func (s *tshape) nodes() []*tnode {
	var out []*tnode
	for k, o := range s.options {
		if !s.missing[k] {
			out = append(out, o)
		}
	}
	if s.elem != nil {
		out = append(out, s.elem)
	}
	return out
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

// kindByName is the built-in kind of a Kind setting, false for none.
func kindByName(name string) (kind, bool) {
	switch name {
	case KindUser:
		return userKind{}, true
	case KindEmployee:
		return employeeKind{}, true
	case KindProduct:
		return productKind{}, true
	case KindOrder:
		return orderKind{}, true
	}
	return nil, false
}

// findRef is the index of the reference of field in refs, -1 for none.
func findRef(refs []Ref, field string) int {
	for i, r := range refs {
		if r.Field == field {
			return i
		}
	}
	return -1
}

// checkStoredRef checks a stored reference against the plan's collections
// (names): it may not point at a collection the plan writes, whose
// documents are not stored yet when the _ids are read.
func (p *Plan) checkStoredRef(r Ref, names map[string]int) error {
	if err := rules.CheckCollectionName(r.To); err != nil {
		return fmt.Errorf("to %q: %w", r.To, err)
	}
	if j, ok := names[r.To]; ok && !p.Collections[j].RefOnly {
		return fmt.Errorf("refers to the stored documents of %q, which this plan writes; expected a collection the target already holds (or a reference without \"stored\")", r.To)
	}
	if r.Unresolved != 0 {
		return fmt.Errorf("unresolved %v: a stored reference points at the documents that are there; expected 0", r.Unresolved)
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
