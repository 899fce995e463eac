package seed

// _id strategies: their spellings (ParseIDStrategy, with a did-you-mean),
// the _id setting of one strategy or one per collection (ParseIDSetting),
// and the shares of other strategies (IDMix).

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/oidkit/oidkit/internal/suggest"
)

// IDKind is how a collection's `_id` values are made.
type IDKind int

const (
	// IDObjectID is a spec-exact ObjectID (the default).
	IDObjectID IDKind = iota
	// IDInt is a sequential integer starting at the collection's IDStart.
	IDInt
	// IDUUID is a version 4 UUID stored as BSON binary subtype 4.
	IDUUID
	// IDField takes the value of a field of the document (a natural key).
	IDField
)

// ErrIDStrategy is wrapped by every error of ParseIDStrategy.
var ErrIDStrategy = errors.New("invalid _id strategy")

// IDStrategy is how a collection makes its _id values (see ParseIDStrategy).
type IDStrategy struct {
	Kind  IDKind
	Field string // for IDField: the top-level field whose value becomes the _id
}

// ParseIDStrategy reads "objectid", "int", "uuid" or "field:NAME". The empty
// string means objectid.
func ParseIDStrategy(s string) (IDStrategy, error) {
	switch t := strings.TrimSpace(s); {
	case t == "" || t == "objectid" || t == "oid":
		return IDStrategy{Kind: IDObjectID}, nil
	case t == "int":
		return IDStrategy{Kind: IDInt}, nil
	case t == "uuid":
		return IDStrategy{Kind: IDUUID}, nil
	case strings.HasPrefix(t, "field:"):
		name := strings.TrimPrefix(t, "field:")
		if name == "" {
			return IDStrategy{}, fmt.Errorf("%w: %q: expected a field name after field:, e.g. field:email", ErrIDStrategy, s)
		}
		if name == "_id" || strings.ContainsAny(name, ".$\x00") {
			return IDStrategy{}, fmt.Errorf("%w: %q: expected a top-level field name (no '.', '$' or _id)", ErrIDStrategy, s)
		}
		return IDStrategy{Kind: IDField, Field: name}, nil
	default:
		return IDStrategy{}, fmt.Errorf("%w: %q: expected objectid, int, uuid or field:NAME", ErrIDStrategy, s)
	}
}

// String is the spelling ParseIDStrategy reads.
func (s IDStrategy) String() string {
	switch s.Kind {
	case IDInt:
		return "int"
	case IDUUID:
		return "uuid"
	case IDField:
		return "field:" + s.Field
	default:
		return "objectid"
	}
}

// MarshalText writes the spelling ParseIDStrategy reads.
func (s IDStrategy) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads what ParseIDStrategy reads.
func (s *IDStrategy) UnmarshalText(b []byte) error {
	v, err := ParseIDStrategy(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
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

// IDShare is a share of a collection's documents whose _id a strategy
// other than the collection's own makes (CollectionSpec.IDMix).
type IDShare struct {
	ID    IDStrategy
	Share float64 // in (0, 1)
}

// ParseIDMix reads an idMix setting: strategy spellings (objectid, int,
// uuid; no field:NAME) with their shares. The result is in the order of
// the strategies' kinds, whatever the order of m, so that a plan means the
// same documents however its JSON object is ordered. The shares are
// checked by checkIDMix.
func ParseIDMix(m map[string]float64) ([]IDShare, error) {
	names := make([]string, 0, len(m))
	for s := range m {
		names = append(names, s)
	}
	slices.Sort(names)
	var mix []IDShare
	for _, s := range names {
		id, err := ParseIDStrategy(s)
		if err != nil || id.Kind == IDField {
			return nil, fmt.Errorf("%w: idMix %q: expected objectid, int or uuid", ErrIDStrategy, s)
		}
		mix = append(mix, IDShare{ID: id, Share: m[s]})
	}
	slices.SortStableFunc(mix, func(a, b IDShare) int { return int(a.ID.Kind) - int(b.ID.Kind) })
	return mix, nil
}
