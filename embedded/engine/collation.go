package engine

// Collation: string comparison by a locale's rules, as a command's
// collation option (or its collection's default) asks. Queries, sorts,
// distinct and the matching of updates and deletes compare strings with
// it; a query with a collation reads the collection rather than an index,
// whose keys are in binary order.

import (
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/oidkit/oidkit/embedded/mongoerr"
)

// collator compares values under a collation; nil is the simple binary
// collation.
type collator struct {
	mu   sync.Mutex // a collate.Collator keeps buffers: one comparison at a time
	c    *collate.Collator
	spec bsoncore.Document
}

// parseCollation reads a collation document: nil for none or for locale
// "simple"; an error naming the field for what MongoDB refuses or oidkit's
// server cannot do.
func parseCollation(v bsoncore.Value) (*collator, error) {
	switch v.Type {
	case 0, bsoncore.TypeNull:
		return nil, nil
	case bsoncore.TypeEmbeddedDocument:
	default:
		return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'collation' is the wrong type '%s', expected type 'object'", typeName(v.Type))
	}
	doc := bsoncore.Document(v.Data)
	loc, err := doc.LookupErr("locale")
	if err != nil || loc.Type != bsoncore.TypeString {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Missing expected field \"locale\"")
	}
	if loc.StringValue() == "simple" {
		if len(elements(doc)) > 1 {
			return nil, mongoerr.New(mongoerr.BadValue, "If \"locale\" is set to \"simple\", then no other fields may be set, collation: %s", shell(v))
		}
		return nil, nil
	}
	tag, err := language.Parse(strings.ReplaceAll(loc.StringValue(), "_", "-"))
	if err != nil || loc.StringValue() == "" {
		return nil, mongoerr.New(mongoerr.BadValue, "Field 'locale' is invalid in: %s", shell(v))
	}
	var ext []string // Unicode locale extension keys, as x/text reads them
	for _, e := range elements(doc) {
		k, a := e.Key(), e.Value()
		switch k {
		case "locale", "normalization", "version":
		case "strength":
			n := int(numberFloat(a))
			if !isNumber(a) || n < 1 || n > 5 || float64(n) != numberFloat(a) {
				return nil, mongoerr.New(mongoerr.BadValue, "Field 'strength' must be an integer 1 through 5. Got: %s", shell(a))
			}
			ext = append(ext, "ks-"+[]string{"level1", "level2", "level3", "level4", "identic"}[n-1])
		case "caseLevel", "numericOrdering", "backwards":
			if a.Type != bsoncore.TypeBoolean {
				return nil, mongoerr.New(mongoerr.TypeMismatch, "BSON field 'collation.%s' is the wrong type '%s', expected type 'bool'", k, typeName(a.Type))
			}
			key := map[string]string{"caseLevel": "kc", "numericOrdering": "kn", "backwards": "kb"}[k]
			if a.Boolean() {
				ext = append(ext, key+"-true")
			}
		case "caseFirst":
			if a.Type != bsoncore.TypeString || (a.StringValue() != "off" && a.StringValue() != "upper" && a.StringValue() != "lower") {
				return nil, mongoerr.New(mongoerr.BadValue, "Field 'caseFirst' must be 'upper', 'lower' or 'off'. Got: %s", shell(a))
			}
			if a.StringValue() != "off" {
				return nil, mongoerr.New(mongoerr.NotImplemented, "collation caseFirst '%s' is not supported by oidkit's server (only 'off' is)", a.StringValue())
			}
		case "alternate":
			if a.Type != bsoncore.TypeString || (a.StringValue() != "non-ignorable" && a.StringValue() != "shifted") {
				return nil, mongoerr.New(mongoerr.BadValue, "Field 'alternate' must be 'non-ignorable' or 'shifted'. Got: %s", shell(a))
			}
			if a.StringValue() == "shifted" {
				ext = append(ext, "ka-shifted")
			}
		case "maxVariable":
			if a.Type != bsoncore.TypeString || (a.StringValue() != "punct" && a.StringValue() != "space") {
				return nil, mongoerr.New(mongoerr.BadValue, "Field 'maxVariable' must be 'punct' or 'space'. Got: %s", shell(a))
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
			return nil, mongoerr.New(mongoerr.BadValue, "Field 'locale' is invalid in: %s", shell(v))
		}
	}
	return &collator{c: collate.New(tag, collate.OptionsFromTag(tag)), spec: doc}, nil
}

// compare orders a and b as compareValues does, strings (also inside
// documents and arrays) by the collation.
func (k *collator) compare(a, b bsoncore.Value) int {
	if k == nil {
		return compareValues(a, b)
	}
	ta, tb := typeOrder(a.Type), typeOrder(b.Type)
	if ta != tb {
		return cmpInt(ta, tb)
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
			if c := cmpInt(typeOrder(va.Type), typeOrder(vb.Type)); c != 0 {
				return c
			}
			if ta == 5 {
				if c := strings.Compare(ea[i].Key(), eb[i].Key()); c != 0 {
					return c
				}
			}
			if c := k.compare(va, vb); c != 0 {
				return c
			}
		}
		return cmpInt(len(ea), len(eb))
	}
	return compareValues(a, b)
}

// equal is valuesEqual under the collation.
func (k *collator) equal(a, b bsoncore.Value) bool {
	if k == nil {
		return valuesEqual(a, b)
	}
	return typeOrder(a.Type) == typeOrder(b.Type) && k.compare(a, b) == 0
}

// appendKey appends to dst a key that buckets values that may be equal
// under the collation, as appendGroupKey does for the simple one: a
// string by its collation key; a document or an array (whose strings the
// key would have to reach) in one bucket of its type.
func (k *collator) appendKey(dst []byte, v bsoncore.Value) []byte {
	switch {
	case k == nil:
		return appendGroupKey(dst, v)
	case typeOrder(v.Type) == 4:
		k.mu.Lock()
		defer k.mu.Unlock()
		var buf collate.Buffer
		return append(append(dst, 's'), k.c.Key(&buf, stringBytes(v))...)
	case v.Type == bsoncore.TypeEmbeddedDocument || v.Type == bsoncore.TypeArray:
		return append(dst, 'd')
	}
	return appendGroupKey(dst, v)
}

// commandCollation is the collation a command's operation uses: its own
// collation option, else its collection's default.
func commandCollation(arg bsoncore.Value, col *collection) (*collator, error) {
	if arg.Type != 0 {
		return parseCollation(arg)
	}
	if col == nil {
		return nil, nil
	}
	v, err := col.opts.LookupErr("collation")
	if err != nil {
		return nil, nil
	}
	return parseCollation(v)
}

// withCollation is vars with the collation of one statement of a write
// command (its own collation field, else its collection's default).
func withCollation(vars *exprVars, stmt bsoncore.Document, col *collection) (*exprVars, error) {
	k, err := commandCollation(lookupOr(stmt, "collation"), col)
	if err != nil || k == nil {
		return vars, err
	}
	cp := exprVars{now: vars.now, coll: k}
	if vars != nil {
		cp.vars = vars.vars
	}
	return &cp, nil
}

// checkIndexCollation refuses what an index's keys cannot hold: keys in a
// collation's order (the index's collation option), and a unique index
// that would inherit its collection's default collation (its uniqueness
// would be by that collation). Queries with a collation read the
// collection, so other indexes of such a collection answer rightly.
func checkIndexCollation(c *collection, ix *index, spec bsoncore.Document) error {
	k, err := parseCollation(lookupOr(spec, "collation"))
	if err != nil {
		return err
	}
	if k != nil {
		return mongoerr.New(mongoerr.NotImplemented, "index %s: an index with a collation other than simple is not supported by oidkit's server", ix.name)
	}
	if _, explicit := spec.LookupErr("collation"); explicit == nil || !ix.unique {
		return nil
	}
	if k, _ := commandCollation(missing, c); k != nil {
		return mongoerr.New(mongoerr.NotImplemented, "index %s: a unique index on a collection with a default collation is not supported by oidkit's server (give the index collation {locale: \"simple\"})", ix.name)
	}
	return nil
}
