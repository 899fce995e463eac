package bsonval

// Collation: string comparison by a locale's rules, as a command's
// collation option (or its collection's default) asks. Queries, sorts,
// distinct and the matching of updates and deletes compare strings with
// it.

import (
	"cmp"
	"encoding/binary"
	"math"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// Collator compares values under a collation; nil is the simple binary
// collation.
type Collator struct {
	mu   sync.Mutex // a collate.Collator keeps buffers: one comparison at a time
	c    *collate.Collator
	spec bsoncore.Document
}

// ParseCollation reads a collation document: nil for none or for locale
// "simple"; an error naming the field for what MongoDB refuses or oidkit's
// server cannot do.
func ParseCollation(v bsoncore.Value) (*Collator, error) {
	switch v.Type {
	case 0, bsoncore.TypeNull:
		return nil, nil
	case bsoncore.TypeEmbeddedDocument:
	default:
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'collation' is the wrong type '%s', expected type 'object'", TypeName(v.Type))
	}
	doc := bsoncore.Document(v.Data)
	loc, err := doc.LookupErr("locale")
	if err != nil || loc.Type != bsoncore.TypeString {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Missing expected field \"locale\"")
	}
	if loc.StringValue() == "simple" {
		if len(Elements(doc)) > 1 {
			return nil, mongoerr.New(mongoerr.BadValue, "If \"locale\" is set to \"simple\", then no other fields may be set, collation: %s", Shell(v))
		}
		return nil, nil
	}
	tag, err := language.Parse(strings.ReplaceAll(loc.StringValue(), "_", "-"))
	if err != nil || loc.StringValue() == "" {
		return nil, mongoerr.New(mongoerr.BadValue, "Field 'locale' is invalid in: %s", Shell(v))
	}
	var ext []string // Unicode locale extension keys, as x/text reads them
	for _, e := range Elements(doc) {
		k, a := e.Key(), e.Value()
		switch k {
		case "locale", "normalization", "version":
		case "strength":
			n := int(NumberFloat(a))
			if !IsNumber(a) || n < 1 || n > 5 || float64(n) != NumberFloat(a) {
				return nil, mongoerr.New(mongoerr.BadValue, "Field 'strength' must be an integer 1 through 5. Got: %s", Shell(a))
			}
			ext = append(ext, "ks-"+[]string{"level1", "level2", "level3", "level4", "identic"}[n-1])
		case "caseLevel", "numericOrdering", "backwards":
			if a.Type != bsoncore.TypeBoolean {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'collation.%s' is the wrong type '%s', expected type 'bool'", k, TypeName(a.Type))
			}
			key := map[string]string{"caseLevel": "kc", "numericOrdering": "kn", "backwards": "kb"}[k]
			if a.Boolean() {
				ext = append(ext, key+"-true")
			}
		case "caseFirst":
			if a.Type != bsoncore.TypeString || (a.StringValue() != "off" && a.StringValue() != "upper" && a.StringValue() != "lower") {
				return nil, mongoerr.New(mongoerr.BadValue, "Field 'caseFirst' must be 'upper', 'lower' or 'off'. Got: %s", Shell(a))
			}
			if a.StringValue() != "off" {
				return nil, mongoerr.New(mongoerr.NotImplemented, "collation caseFirst '%s' is not supported by oidkit's server (only 'off' is)", a.StringValue())
			}
		case "alternate":
			if a.Type != bsoncore.TypeString || (a.StringValue() != "non-ignorable" && a.StringValue() != "shifted") {
				return nil, mongoerr.New(mongoerr.BadValue, "Field 'alternate' must be 'non-ignorable' or 'shifted'. Got: %s", Shell(a))
			}
			if a.StringValue() == "shifted" {
				ext = append(ext, "ka-shifted")
			}
		case "maxVariable":
			if a.Type != bsoncore.TypeString || (a.StringValue() != "punct" && a.StringValue() != "space") {
				return nil, mongoerr.New(mongoerr.BadValue, "Field 'maxVariable' must be 'punct' or 'space'. Got: %s", Shell(a))
			}
		default:
			return nil, mongoerr.New(mongoerr.Location(40415), "BSON field 'collation.%s' is an unknown field.", k)
		}
	}
	if len(ext) > 0 {
		base, _ := tag.Base()
		region, _ := tag.Region()
		s := base.String()
		if region.String() != "ZZ" {
			s += "-" + region.String()
		}
		if tag, err = language.Parse(s + "-u-" + strings.Join(ext, "-")); err != nil {
			return nil, mongoerr.New(mongoerr.BadValue, "Field 'locale' is invalid in: %s", Shell(v))
		}
	}
	return &Collator{c: collate.New(tag, collate.OptionsFromTag(tag)), spec: doc}, nil
}

// Compare orders a and b as the package's Compare does, strings (also inside
// documents and arrays) by the collation.
func (k *Collator) Compare(a, b bsoncore.Value) int {
	if k == nil {
		return Compare(a, b)
	}
	ta, tb := TypeOrder(a.Type), TypeOrder(b.Type)
	if ta != tb {
		return cmp.Compare(ta, tb)
	}
	switch ta {
	case 4:
		k.mu.Lock()
		defer k.mu.Unlock()
		return k.c.Compare(stringBytes(a), stringBytes(b))
	case 5, 6:
		ea, _ := bsoncore.Document(a.Data).Elements()
		eb, _ := bsoncore.Document(b.Data).Elements()
		for i := 0; i < len(ea) && i < len(eb); i++ {
			va, vb := ea[i].Value(), eb[i].Value()
			if c := cmp.Compare(TypeOrder(va.Type), TypeOrder(vb.Type)); c != 0 {
				return c
			}
			if ta == 5 {
				if c := strings.Compare(ea[i].Key(), eb[i].Key()); c != 0 {
					return c
				}
			}
			if c := k.Compare(va, vb); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(ea), len(eb))
	}
	return Compare(a, b)
}

// Equal is the package's Equal under the collation.
func (k *Collator) Equal(a, b bsoncore.Value) bool {
	if k == nil {
		return Equal(a, b)
	}
	return TypeOrder(a.Type) == TypeOrder(b.Type) && k.Compare(a, b) == 0
}

// AppendKey appends to dst a key that buckets values that may be equal
// under the collation, as AppendGroupKey does for the simple one: a
// string by its collation key; a document or an array (whose strings the
// key would have to reach) in one bucket of its type.
func (k *Collator) AppendKey(dst []byte, v bsoncore.Value) []byte {
	switch {
	case k == nil:
		return AppendGroupKey(dst, v)
	case TypeOrder(v.Type) == 4:
		k.mu.Lock()
		defer k.mu.Unlock()
		var buf collate.Buffer
		return append(append(dst, 's'), k.c.Key(&buf, stringBytes(v))...)
	case v.Type == bsoncore.TypeEmbeddedDocument || v.Type == bsoncore.TypeArray:
		return append(dst, 'd')
	}
	return AppendGroupKey(dst, v)
}

// AppendGroupKey appends to dst a key that buckets values that may be
// equal: numbers of every type by their float value (the bucket's values
// are then compared exactly), documents and arrays by their rendering,
// others by type and bytes.
func AppendGroupKey(dst []byte, v bsoncore.Value) []byte {
	switch {
	case IsNumber(v):
		f := NumberFloat(v)
		switch {
		case f == 0:
			f = 0 // -0 too
		case math.IsNaN(f):
			f = math.NaN()
		}
		return binary.BigEndian.AppendUint64(append(dst, 'n'), math.Float64bits(f))
	case v.Type == bsoncore.TypeEmbeddedDocument || v.Type == bsoncore.TypeArray:
		return append(append(dst, 'd'), Shell(v)...)
	}
	return append(append(dst, byte(v.Type)), v.Data...)
}
