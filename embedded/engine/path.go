package engine

import (
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// cand is one value a query path reaches in a document, and the index of
// the first array the path went through to reach it (-1 if none).
type cand struct {
	v   bsoncore.Value
	pos int
}

// candidates is what path reaches in doc as a query sees it: through arrays
// of documents element by element, numeric parts as array indexes, and a
// missing value where the path ends early.
func candidates(doc bsoncore.Document, path string) []cand {
	var out []cand
	walk(vDoc(doc), strings.Split(path, "."), -1, &out)
	return out
}

func walk(v bsoncore.Value, parts []string, pos int, out *[]cand) {
	if len(parts) == 0 {
		*out = append(*out, cand{v, pos})
		return
	}
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		f, err := bsoncore.Document(v.Data).LookupErr(parts[0])
		if err != nil {
			*out = append(*out, cand{missing, pos})
			return
		}
		walk(f, parts[1:], pos, out)
	case bsoncore.TypeArray:
		vals := arrayValues(v)
		if i, err := strconv.Atoi(parts[0]); err == nil && i >= 0 {
			if i < len(vals) {
				walk(vals[i], parts[1:], pos, out)
			} else {
				*out = append(*out, cand{missing, pos})
			}
		}
		found := false
		for i, e := range vals {
			if e.Type == bsoncore.TypeEmbeddedDocument || e.Type == bsoncore.TypeArray && false {
				p := pos
				if p < 0 {
					p = i
				}
				walk(e, parts, p, out)
				found = true
			}
		}
		if !found {
			*out = append(*out, cand{missing, pos})
		}
	default:
		*out = append(*out, cand{missing, pos})
	}
}

// lookup is the value at a dotted path without fanning out through arrays
// (numeric parts index arrays); missing if there is none.
func lookup(doc bsoncore.Document, path string) bsoncore.Value {
	v := vDoc(doc)
	for _, p := range strings.Split(path, ".") {
		switch v.Type {
		case bsoncore.TypeEmbeddedDocument:
			f, err := bsoncore.Document(v.Data).LookupErr(p)
			if err != nil {
				return missing
			}
			v = f
		case bsoncore.TypeArray:
			i, err := strconv.Atoi(p)
			vals := arrayValues(v)
			if err != nil || i < 0 || i >= len(vals) {
				return missing
			}
			v = vals[i]
		default:
			return missing
		}
	}
	return v
}

// fanValues is every value path reaches, with arrays at the end expanded
// into their elements, as a multikey index or a sort sees them.
func fanValues(doc bsoncore.Document, path string) []bsoncore.Value {
	var out []bsoncore.Value
	for _, c := range candidates(doc, path) {
		if c.v.Type == bsoncore.TypeArray {
			vals := arrayValues(c.v)
			if len(vals) == 0 {
				out = append(out, missing)
			}
			out = append(out, vals...)
			continue
		}
		out = append(out, c.v)
	}
	return out
}

// sortKey is the value a sort on path uses: the least element of arrays
// ascending, the greatest descending.
func sortKey(doc bsoncore.Document, path string, desc bool) bsoncore.Value {
	// A top-level field that is not an array is its own key: a sort
	// compares keys millions of times, and most sort by such a field.
	if strings.IndexByte(path, '.') < 0 {
		v, err := doc.LookupErr(path)
		if err != nil {
			return missing
		}
		if v.Type != bsoncore.TypeArray {
			return v
		}
	}
	vals := fanValues(doc, path)
	best := missing
	for i, v := range vals {
		if i == 0 {
			best = v
			continue
		}
		c := compareValues(v, best)
		if (!desc && c < 0) || (desc && c > 0) {
			best = v
		}
	}
	return best
}
