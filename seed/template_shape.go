package seed

// Shape objects: template values that describe a distribution rather than
// one value. They are JSON objects whose first key starts with $ (which a
// plain template refuses), so no template that parsed before means
// anything else now:
//
//	{"$mix": [V1, V2, {"$missing": true}], "$weights": [90, 5, 5]}
//	    one of the template values V1, V2, ... with those weights; the
//	    option {"$missing": true} leaves the field out of the document
//	{"$number": [Q0, ..., Qn], "$type": "int"|"long"|"double"|"cents"}
//	    a number from the quantile function through Q0..Qn (equally
//	    spaced probabilities, linear in between): int32, int64, float64,
//	    or float64 in whole cents
//	{"$date": ["2023-01-01T00:00:00Z", ..., "2024-01-01T00:00:00Z"]}
//	    a date from the quantile function through those instants
//	{"$objectid": ["2023-01-01T00:00:00Z", ...]}
//	    an ObjectID whose time is drawn from those quantiles
//	{"$string": "email", "$lengths": [Q0, ..., Qn], "$unique": true}
//	    an ASCII string of that semantic type (email, text, letters, hex,
//	    digits, phone, url, name, uuid) whose length follows the
//	    quantiles; with $unique the document number is part of the value,
//	    so no two documents share it (usable as field:NAME and in a unique
//	    index)
//	{"$array": ELEMENT, "$lengths": [0, 1, 2], "$weights": [1, 5, 2]}
//	    an array of that many values of the template value ELEMENT

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/oidkit/oidkit/oid"
)

const (
	shapeMix      = "$mix"
	shapeNumber   = "$number"
	shapeDate     = "$date"
	shapeObjectID = "$objectid"
	shapeString   = "$string"
	shapeArray    = "$array"
	shapeMissing  = "$missing"
)

// StringKinds lists the semantic types of a {"$string": ...} shape.
func StringKinds() []string {
	return []string{"email", "text", "letters", "hex", "digits", "phone", "url", "name", "uuid"}
}

// NumberTypes lists the types of a {"$number": ...} shape.
func NumberTypes() []string { return []string{"int", "long", "double", "cents"} }

// missingValue is what an option {"$missing": true} builds: the enclosing
// document leaves the field out.
type missingValue struct{}

type tshape struct {
	op      string
	raw     []byte // the shape's JSON text, kept for manifests
	options []*tnode
	missing []bool
	cum     []float64
	q       []float64 // quantiles: numbers, ms since the epoch, lengths
	typ     string    // $number type, $string kind
	unique  bool
	elem    *tnode
	lengths []int
	pool    *pool // a $pool's values
}

func isShapeKey(key string) bool {
	switch key {
	case shapeMix, shapeNumber, shapeDate, shapeObjectID, shapeString, shapeArray, shapePool, shapeMissing:
		return true
	}
	return false
}

// shape parses the rest of an object whose first key, first, is a shape
// key; the decoder stands before that key's value.
func (p *tparser) shape(path, first string) (*tnode, error) {
	fields := map[string]json.RawMessage{}
	key := first
	for {
		var raw json.RawMessage
		if err := p.dec.Decode(&raw); err != nil {
			return nil, p.errf(path+"."+key, "%v", err)
		}
		if _, dup := fields[key]; dup {
			return nil, p.errf(path+"."+key, "duplicate key %q", key)
		}
		fields[key] = raw
		if !p.dec.More() {
			break
		}
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.errf(path, "%v", err)
		}
		key, _ = tok.(string)
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, p.errf(path, "%v", err)
	}
	s, err := p.buildShape(path, first, fields)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	_ = json.Compact(&buf, mustJSON(fields, first))
	s.raw = buf.Bytes()
	return &tnode{kind: tShape, shape: s}, nil
}

// mustJSON writes fields back as one object, first key first, the others
// sorted: the manifest's copy of the shape.
func mustJSON(fields map[string]json.RawMessage, first string) []byte {
	keys := []string{first}
	for k := range fields {
		if k != first {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys[1:])
	b := []byte{'{'}
	for k, key := range keys {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, key)
		b = append(b, ':')
		b = append(b, fields[key]...)
	}
	return append(b, '}')
}

var shapeUsage = map[string]string{
	shapeMix:      `{"$mix": [V1, V2, {"$missing": true}], "$weights": [90, 5, 5]}`,
	shapeNumber:   `{"$number": [Q0, ..., Qn], "$type": "int"|"long"|"double"|"cents"}`,
	shapeDate:     `{"$date": ["2023-01-01T00:00:00Z", ..., "2024-01-01T00:00:00Z"]}`,
	shapeObjectID: `{"$objectid": ["2023-01-01T00:00:00Z", ..., "2024-01-01T00:00:00Z"]}`,
	shapeString:   `{"$string": "email", "$lengths": [Q0, ..., Qn], "$unique": true}`,
	shapeArray:    `{"$array": ELEMENT, "$lengths": [0, 1, 2], "$weights": [1, 5, 2]}`,
	shapePool:     `{"$pool": ELEMENT, "$size": 100, "$weights": [W1, ..., Wn]}`,
	shapeMissing:  `{"$missing": true}, as an option of $mix`,
}

func (p *tparser) buildShape(path, op string, fields map[string]json.RawMessage) (*tshape, error) {
	bad := func(format string, args ...any) error {
		return p.errf(path, "%s: %s (expected %s)", op, fmt.Sprintf(format, args...), shapeUsage[op])
	}
	allowed := map[string][]string{
		shapeMix: {"$weights"}, shapeNumber: {"$type"}, shapeString: {"$lengths", "$unique"},
		shapeArray: {"$lengths", "$weights"}, shapePool: {"$size", "$weights"},
	}[op]
	for k := range fields {
		if k != op && !slices.Contains(allowed, k) {
			return nil, bad("unknown key %q", k)
		}
	}
	s := &tshape{op: op}
	var err error
	switch op {
	case shapeMissing:
		return nil, bad("only an option of $mix can be missing")
	case shapeMix:
		err = p.parseMix(path, s, fields, bad)
	case shapeNumber:
		err = parseNumberShape(s, fields, bad)
	case shapeDate, shapeObjectID:
		err = parseInstants(s, fields, bad)
	case shapeString:
		err = parseStringShape(s, fields, bad)
	case shapePool:
		err = p.parsePool(path, s, fields, bad)
	case shapeArray:
		err = p.parseArray(path, s, fields, bad)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// parseMix reads the options of $mix, and their $weights, into s.
func (p *tparser) parseMix(path string, s *tshape, fields map[string]json.RawMessage, bad func(string, ...any) error) error {
	var opts []json.RawMessage
	if err := json.Unmarshal(fields[shapeMix], &opts); err != nil || len(opts) == 0 {
		return bad("expected a non-empty list of values")
	}
	var err error
	if s.cum, err = shapeWeights(fields["$weights"], len(opts)); err != nil {
		return bad("%v", err)
	}
	for k, o := range opts {
		if bytes.Equal(bytes.Join(bytes.Fields(o), nil), []byte(`{"$missing":true}`)) {
			s.options, s.missing = append(s.options, nil), append(s.missing, true)
			continue
		}
		n, err := p.sub(fmt.Sprintf("%s.$mix[%d]", path, k), o)
		if err != nil {
			return err
		}
		s.options, s.missing = append(s.options, n), append(s.missing, false)
	}
	return nil
}

// parseNumberShape reads the quantiles of $number and its $type into s.
func parseNumberShape(s *tshape, fields map[string]json.RawMessage, bad func(string, ...any) error) error {
	if err := json.Unmarshal(fields["$type"], &s.typ); err != nil || !slices.Contains(NumberTypes(), s.typ) {
		return bad("$type %s: expected one of %s", fields["$type"], strings.Join(NumberTypes(), ", "))
	}
	var err error
	if s.q, err = shapeQuantiles(fields[shapeNumber]); err != nil {
		return bad("%v", err)
	}
	if s.typ == "int" && (s.q[0] < math.MinInt32 || s.q[len(s.q)-1] > math.MaxInt32) {
		return bad("quantiles outside int32: expected $type long")
	}
	if (s.typ == "long" || s.typ == "int") && math.Max(-s.q[0], s.q[len(s.q)-1]) > maxExact {
		return bad("quantiles beyond 2^53")
	}
	return nil
}

// parseInstants reads the instants of $date or $objectId into s, in
// milliseconds.
func parseInstants(s *tshape, fields map[string]json.RawMessage, bad func(string, ...any) error) error {
	var texts []string
	if err := json.Unmarshal(fields[s.op], &texts); err != nil || len(texts) == 0 {
		return bad("expected a non-empty list of RFC 3339 instants")
	}
	for _, t := range texts {
		tm, err := time.Parse(time.RFC3339Nano, t)
		if err != nil {
			return bad("%q: expected an RFC 3339 instant", t)
		}
		if s.op == shapeObjectID {
			if err := oid.CheckTime(tm); err != nil {
				return bad("%q: %v", t, err)
			}
		}
		s.q = append(s.q, float64(tm.UnixMilli()))
	}
	if !slices.IsSorted(s.q) {
		return bad("instants out of order: expected them ascending")
	}
	return nil
}

// parseStringShape reads the kind of $string, its $unique and its
// $lengths into s.
func parseStringShape(s *tshape, fields map[string]json.RawMessage, bad func(string, ...any) error) error {
	if err := json.Unmarshal(fields[shapeString], &s.typ); err != nil || !slices.Contains(StringKinds(), s.typ) {
		return bad("%s: expected one of %s", fields[shapeString], strings.Join(StringKinds(), ", "))
	}
	if raw, ok := fields["$unique"]; ok {
		if err := json.Unmarshal(raw, &s.unique); err != nil {
			return bad("$unique %s: expected true or false", raw)
		}
	}
	s.q = []float64{8, 16}
	if raw, ok := fields["$lengths"]; ok {
		var err error
		if s.q, err = shapeQuantiles(raw); err != nil {
			return bad("$lengths: %v", err)
		}
		if s.q[0] < 0 || s.q[len(s.q)-1] > 1<<20 {
			return bad("$lengths: expected lengths from 0 to %d", 1<<20)
		}
	}
	return nil
}

// parseArray reads the element of $array, its $lengths and their
// $weights into s.
func (p *tparser) parseArray(path string, s *tshape, fields map[string]json.RawMessage, bad func(string, ...any) error) error {
	n, err := p.sub(path+".$array", fields[shapeArray])
	if err != nil {
		return err
	}
	s.elem = n
	if err := json.Unmarshal(fields["$lengths"], &s.lengths); err != nil || len(s.lengths) == 0 {
		return bad("$lengths: expected a non-empty list of lengths")
	}
	for _, l := range s.lengths {
		if l < 0 || l > 100000 {
			return bad("$lengths: length %d: expected 0 to 100000", l)
		}
	}
	if s.cum, err = shapeWeights(fields["$weights"], len(s.lengths)); err != nil {
		return bad("%v", err)
	}
	return nil
}

// sub parses one template value held in raw, as part of the same file.
func (p *tparser) sub(path string, raw json.RawMessage) (*tnode, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	sp := &tparser{dec: dec, name: p.name, probe: p.probe}
	n, err := sp.value(path)
	if err != nil {
		return nil, err
	}
	p.unstable = append(p.unstable, sp.unstable...)
	p.paths = append(p.paths, sp.paths...)
	return n, nil
}

func shapeWeights(raw json.RawMessage, n int) ([]float64, error) {
	var ws []float64
	if raw == nil {
		return nil, fmt.Errorf("$weights: missing")
	}
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, fmt.Errorf("$weights %s: expected a list of numbers", raw)
	}
	if len(ws) != n {
		return nil, fmt.Errorf("%d options but %d weights: expected one weight per option", n, len(ws))
	}
	var cum []float64
	total := 0.0
	for _, w := range ws {
		if !(w > 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("weight %v: expected a finite number above 0", w)
		}
		total += w
		cum = append(cum, total)
	}
	return cum, nil
}

func shapeQuantiles(raw json.RawMessage) ([]float64, error) {
	var q []float64
	if err := json.Unmarshal(raw, &q); err != nil || len(q) == 0 {
		return nil, errors.New("expected a non-empty list of numbers (quantiles)")
	}
	for _, v := range q {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("quantile %v: expected a finite number", v)
		}
	}
	if !slices.IsSorted(q) {
		return nil, errors.New("quantiles out of order: expected them ascending")
	}
	return q, nil
}

const (
	lowerLetters = "abcdefghijklmnopqrstuvwxyz"
	hexDigits    = "0123456789abcdef"
	decDigits    = "0123456789"
	emailDomain  = "@example.com"
	urlPrefix    = "https://example.com/"
)

// text is a string of kind s.typ and n bytes (ASCII); a uuid keeps its own
// 36. With s.unique the document number ends the value before any fixed
// suffix, after a non-digit, so it can be read back.
func (s *tshape) text(f *gofakeit.Faker, i int64, n int) string {
	n = max(n, 0)
	rnd := func(alphabet string, k int) string {
		b := make([]byte, max(k, 0))
		for j := range b {
			b[j] = alphabet[f.IntN(len(alphabet))]
		}
		return string(b)
	}
	fit := func(base string, k int) string {
		k = max(k, 0)
		if len(base) >= k {
			return base[:k]
		}
		return base + rnd(lowerLetters, k-len(base))
	}
	var prefix, body, suffix string
	switch s.typ {
	case "uuid":
		u := f.UUID()
		if s.unique {
			return u[:24] + fmt.Sprintf("%012x", i)
		}
		return u
	case "email":
		suffix = emailDomain
	case "url":
		prefix = urlPrefix
	}
	num := ""
	if s.unique {
		num = "-" + strconv.FormatInt(i, 10)
	}
	k := n - len(prefix) - len(suffix) - len(num)
	switch s.typ {
	case "text":
		var b strings.Builder
		for b.Len() < k {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strings.ToLower(f.Word()))
		}
		body = fit(b.String(), k)
		if strings.HasSuffix(body, " ") {
			body = body[:len(body)-1] + "e"
		}
	case "hex":
		body = rnd(hexDigits, k)
	case "digits", "phone":
		body = rnd(decDigits, k)
	case "name":
		body = fit(f.FirstName()+" "+f.LastName(), k)
	case "email":
		body = fit(strings.ToLower(f.FirstName())+"."+strings.ToLower(f.LastName()), k)
		if body == "" && num == "" {
			body = "x"
		}
	default:
		body = rnd(lowerLetters, k)
	}
	if num != "" && (body == "" && prefix == "") {
		num = "u" + num[1:]
	}
	return prefix + body + num + suffix
}

// skeleton is a neutral value of the shape's type (see CheckShape).
func (s *tshape) skeleton() any {
	switch s.op {
	case shapeMix:
		for k, o := range s.options {
			if !s.missing[k] {
				return o.skeleton()
			}
		}
		return ""
	case shapeNumber:
		if s.typ == "int" {
			return int32(0)
		}
		if s.typ == "long" {
			return int64(0)
		}
		return 0.5
	case shapeDate:
		return bson.DateTime(0)
	case shapeObjectID:
		return bson.ObjectID{}
	case shapeArray:
		return bson.A{s.elem.skeleton()}
	case shapePool:
		return s.elem.skeleton()
	}
	return ""
}

// owns reports whether the template has the top-level field key, present
// or (a $mix option) left out.
func (t *Template) owns(key string) bool { return slices.Contains(t.fields, key) }

// uniqueShape reports whether n gives every document its own value.
func uniqueShape(n *tnode) bool {
	return n.kind == tShape && n.shape.op == shapeString && n.shape.unique
}
