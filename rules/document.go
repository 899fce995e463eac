package rules

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Check returns nil if the target stores doc as it is, or a *Violation for
// the first field it refuses (in document order, parents before children).
// It checks every rule in one walk over doc and allocates only to describe a
// violation (and, for a document with more than dupScanLimit keys, to find
// duplicates).
func (p Profile) Check(doc bson.Raw) error {
	if v := p.check(doc); v != nil {
		return v
	}
	return nil
}

func (p *Profile) check(doc []byte) *Violation {
	if len(doc) > p.maxSize {
		return p.violation(nil, TooLarge, fmt.Sprintf("%d bytes (at most %d)", len(doc), p.maxSize))
	}
	var path keyPath
	return p.walk(doc, &path, 1, false, false)
}

// maxLevels bounds the nesting level a profile may allow: the path to the
// element being checked is a fixed array on the stack (a linked list of
// nodes would escape to the heap).
const maxLevels = 128

// keyPath is the keys leading to the element being checked: keys[:n].
type keyPath struct {
	keys [maxLevels + 1][]byte
	n    int
}

func (k *keyPath) String() string {
	if k == nil {
		return ""
	}
	var b strings.Builder
	for i, key := range k.keys[:k.n] {
		if i > 0 {
			b.WriteByte('.')
		}
		b.Write(key)
	}
	return b.String()
}

func (k *keyPath) last() []byte { return k.keys[k.n-1] }

// dupScanLimit is how many keys of one document are compared pairwise before
// a map takes over.
const dupScanLimit = 32

// walk checks the document (or array, when inArray) d whose elements are at
// nesting level; inID is set below a top-level _id.
// path holds the keys down to d (level-1 of them).
func (p *Profile) walk(d []byte, path *keyPath, level int, inArray, inID bool) *Violation {
	length, rem, ok := bsoncore.ReadLength(d)
	if !ok || length < 5 || int(length) != len(d) || d[len(d)-1] != 0 {
		return p.violation(path, Malformed, fmt.Sprintf("%d bytes with length prefix %d", len(d), length))
	}
	body := rem[:len(rem)-1]
	rem = body
	var seen map[string]struct{}
	var prev [dupScanLimit][]byte // the keys before, while there are few
	for n := 0; len(rem) > 0; n++ {
		elem, next, ok := bsoncore.ReadElement(rem)
		if !ok {
			return p.violation(path, Malformed, fmt.Sprintf("element at byte %d", len(d)-len(rem)-1))
		}
		start := len(body) - len(rem)
		rem = next
		end := bytes.IndexByte(elem[1:], 0) + 1
		key := elem[1:end]
		path.keys[level-1], path.n = key, level
		val := bsoncore.Value{Type: bsoncore.Type(elem[0]), Data: elem[end+1:]}
		if level > min(p.maxDepth, maxLevels) {
			return p.violation(path, TooDeep, fmt.Sprintf("level %d (at most %d)", level, p.maxDepth))
		}
		if !inArray {
			if v := p.checkKey(path, level, inID); v != nil {
				return v
			}
			if n < dupScanLimit {
				for _, k := range prev[:n] {
					if bytes.Equal(k, key) {
						return p.violation(path, DuplicateKey, strconv.Quote(string(key)))
					}
				}
				prev[n] = key
			} else {
				if seen == nil {
					seen = keySet(body[:start])
				}
				if _, dup := seen[string(key)]; dup {
					return p.violation(path, DuplicateKey, strconv.Quote(string(key)))
				}
				seen[string(key)] = struct{}{}
			}
		}
		isID := level == 1 && string(key) == "_id"
		if v := p.checkValue(path, val, inArray, isID); v != nil {
			return v
		}
		switch val.Type {
		case bsoncore.TypeEmbeddedDocument:
			if v := p.walk(val.Data, path, level+1, false, inID || isID); v != nil {
				return v
			}
		case bsoncore.TypeArray:
			if v := p.walk(val.Data, path, level+1, true, inID); v != nil {
				return v
			}
		}
	}
	return nil
}

// checkKey applies the key rules to the last key of path.
func (p *Profile) checkKey(path *keyPath, level int, inID bool) *Violation {
	key := path.last()
	if !utf8.Valid(key) {
		return p.violation(path, KeyNotUTF8, strconv.Quote(string(key)))
	}
	if len(key) > 0 && key[0] == '$' &&
		(inID || p.dollarKeys == dollarAnywhere || p.dollarKeys == dollarTopLevel && level == 1) {
		return p.violation(path, DollarKey, strconv.Quote(string(key)))
	}
	if p.dottedKeys && bytes.IndexByte(key, '.') >= 0 {
		return p.violation(path, DottedKey, strconv.Quote(string(key)))
	}
	return nil
}

// checkValue applies the value rules (not those of nested elements).
func (p *Profile) checkValue(path *keyPath, val bsoncore.Value, inArray, isID bool) *Violation {
	t := val.Type
	switch {
	case p.types&typeBit(t) != 0:
		return p.violation(path, UnsupportedType, render(val))
	case isID && (t == bsoncore.TypeArray || t == bsoncore.TypeRegex || t == bsoncore.TypeUndefined):
		return p.violation(path, IDType, render(val))
	case inArray && t == bsoncore.TypeArray && p.nestedArrays:
		return p.violation(path, NestedArray, render(val))
	case t == bsoncore.TypeDouble:
		f := math.Float64frombits(binary.LittleEndian.Uint64(val.Data))
		if p.nonFinite && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return p.violation(path, NotFinite, render(val))
		}
		if p.negZero && f == 0 && math.Signbit(f) {
			return p.violation(path, NegativeZero, "-0.0")
		}
	case t == bsoncore.TypeString && p.stringUTF8:
		// ReadElement checked the length prefix and the terminating zero.
		if !utf8.Valid(val.Data[4 : len(val.Data)-1]) {
			return p.violation(path, StringNotUTF8, render(val))
		}
	}
	return nil
}

// keySet is the set of keys of the elements in body.
func keySet(body []byte) map[string]struct{} {
	seen := make(map[string]struct{}, 2*dupScanLimit)
	for len(body) > 0 {
		elem, next, _ := bsoncore.ReadElement(body)
		seen[string(elem.KeyBytes())] = struct{}{}
		body = next
	}
	return seen
}

// maxRender is the longest rendering of a value in a Violation.
const maxRender = 60

// render is a short Extended JSON rendering of val.
func render(val bsoncore.Value) string {
	s := val.String()
	if len(s) > maxRender {
		cut := maxRender
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

func (p *Profile) violation(path *keyPath, r Reason, value string) *Violation {
	return &Violation{Profile: p.name, Path: path.String(), Reason: r, Value: value}
}
