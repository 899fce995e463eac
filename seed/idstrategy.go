package seed

import (
	"errors"
	"fmt"
	"strings"
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
