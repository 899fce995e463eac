package audit

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Kind is the type of an _id value as the report groups them.
type Kind int

// The kinds, in report order.
const (
	KindObjectID Kind = iota
	KindInt
	KindString
	KindUUID
	KindOther
	numKinds
)

var kindNames = [numKinds]string{"objectId", "int", "string", "uuid", "other"}

// String is the kind's name in reports.
func (k Kind) String() string {
	if k < 0 || k >= numKinds {
		return "Kind(" + strconv.Itoa(int(k)) + ")"
	}
	return kindNames[k]
}

// MarshalText writes the kind's name, so JSON reports carry names.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name, so JSON reports read back.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("audit: unknown kind %q; expected one of %v", b, kindNames)
}

// KindOf classifies a BSON value: int covers int32 and int64, uuid is binary
// of subtype 4 (or the legacy subtype 3) and 16 bytes.
func KindOf(v bson.RawValue) Kind {
	switch v.Type {
	case bson.TypeObjectID:
		return KindObjectID
	case bson.TypeInt32, bson.TypeInt64:
		return KindInt
	case bson.TypeString:
		return KindString
	case bson.TypeBinary:
		if sub, b, ok := v.BinaryOK(); ok && (sub == 4 || sub == 3) && len(b) == 16 {
			return KindUUID
		}
	}
	return KindOther
}

// valueText is a short Extended JSON rendering of v for examples.
func valueText(v bson.RawValue) string {
	s := v.String()
	if s == "" {
		b, _ := json.Marshal(v.Type.String())
		s = string(b)
	}
	const max = 60
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// examples keeps the first few examples of a finding.
type examples []string

func (e *examples) add(max int, s string) { *e = appendExample(*e, max, s) }

// appendExample appends s to ex unless ex already holds max examples.
func appendExample(ex []string, max int, s string) []string {
	if len(ex) < max {
		ex = append(ex, s)
	}
	return ex
}

// finding is a count with its first examples.
type finding struct {
	n  int64
	ex examples
}

func (f *finding) add(max int, s string) {
	f.n++
	f.ex.add(max, s)
}

// ValidPath reports whether p is a field name or dotted path (Fields)
// without empty parts or a leading $.
func ValidPath(p string) bool {
	for _, part := range strings.Split(p, ".") {
		if part == "" || strings.HasPrefix(part, "$") {
			return false
		}
	}
	return true
}
