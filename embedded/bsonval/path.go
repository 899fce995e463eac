package bsonval

import (
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Candidate is one value a query path reaches in a document (Value), and
// the index of the first array the path went through to reach it (Pos, -1
// if none).
type Candidate struct {
	Value bsoncore.Value
	Pos   int
}

// Candidates is what path reaches in doc as a query sees it: through arrays
// of documents element by element, numeric parts as array indexes, and a
// missing value where the path ends early.
func Candidates(doc bsoncore.Document, path string) []Candidate {
	var out []Candidate
	walk(Doc(doc), strings.Split(path, "."), -1, &out)
	return out
}

// walk appends to out the values parts reach from v, as Candidates does;
// pos is the array index already taken (-1 if none).
func walk(v bsoncore.Value, parts []string, pos int, out *[]Candidate) {
	if len(parts) == 0 {
		*out = append(*out, Candidate{v, pos})
		return
	}
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		f, err := bsoncore.Document(v.Data).LookupErr(parts[0])
		if err != nil {
			*out = append(*out, Candidate{Missing, pos})
			return
		}
		walk(f, parts[1:], pos, out)
	case bsoncore.TypeArray:
		vals := ArrayValues(v)
		if i, err := strconv.Atoi(parts[0]); err == nil && i >= 0 {
			if i < len(vals) {
				walk(vals[i], parts[1:], pos, out)
			} else {
				*out = append(*out, Candidate{Missing, pos})
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
			*out = append(*out, Candidate{Missing, pos})
		}
	default:
		*out = append(*out, Candidate{Missing, pos})
	}
}

// Lookup is the value at a dotted path without fanning out through arrays
// (numeric parts index arrays); Missing if there is none.
func Lookup(doc bsoncore.Document, path string) bsoncore.Value {
	v := Doc(doc)
	for _, p := range strings.Split(path, ".") {
		switch v.Type {
		case bsoncore.TypeEmbeddedDocument:
			f, err := bsoncore.Document(v.Data).LookupErr(p)
			if err != nil {
				return Missing
			}
			v = f
		case bsoncore.TypeArray:
			i, err := strconv.Atoi(p)
			vals := ArrayValues(v)
			if err != nil || i < 0 || i >= len(vals) {
				return Missing
			}
			v = vals[i]
		default:
			return Missing
		}
	}
	return v
}

// FanValues is every value path reaches, with arrays at the end expanded
// into their elements, as a multikey index or a sort sees them.
func FanValues(doc bsoncore.Document, path string) []bsoncore.Value {
	var out []bsoncore.Value
	for _, c := range Candidates(doc, path) {
		if c.Value.Type == bsoncore.TypeArray {
			vals := ArrayValues(c.Value)
			if len(vals) == 0 {
				out = append(out, Missing)
			}
			out = append(out, vals...)
			continue
		}
		out = append(out, c.Value)
	}
	return out
}

// SortKey is the value a sort on path uses: the least element of arrays
// ascending, the greatest descending.
func SortKey(doc bsoncore.Document, path string, desc bool) bsoncore.Value {
	// A top-level field that is not an array is its own key: a sort
	// compares keys millions of times, and most sort by such a field.
	if strings.IndexByte(path, '.') < 0 {
		v, err := doc.LookupErr(path)
		if err != nil {
			return Missing
		}
		if v.Type != bsoncore.TypeArray {
			return v
		}
	}
	vals := FanValues(doc, path)
	best := Missing
	for i, v := range vals {
		if i == 0 {
			best = v
			continue
		}
		c := Compare(v, best)
		if (!desc && c < 0) || (desc && c > 0) {
			best = v
		}
	}
	return best
}
