package indexes

// Reading an index from JSON (a plan file) or a document (listIndexes, a
// sidecar): the strict and the lenient form.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// mode says which fields a document may hold besides the modelled ones.
type mode int

const (
	strict  mode = iota // a plan file: the modelled fields only
	lenient             // a sidecar or listIndexes: v, ns, background ignored, the rest in Other
)

var planFields = "key, name, unique, sparse, expireAfterSeconds, partialFilterExpression"

// ParseJSON reads one index as a plan file writes it: a JSON object with
// key and optionally name, unique, sparse, expireAfterSeconds and
// partialFilterExpression, whose values are Extended JSON ({"$date": ...}).
// Any other field is an error. The result is validated.
func ParseJSON(data []byte) (Index, error) {
	d, err := unmarshalOne(data)
	if err != nil {
		return Index{}, &Error{Err: fmt.Errorf("%v; expected an object such as {\"key\": {\"email\": 1}, \"unique\": true}", err)}
	}
	ix, err := fromDoc(d, strict)
	if err != nil {
		return Index{}, err
	}
	return ix, ix.Validate()
}

// unmarshalOne reads one Extended JSON object, and nothing after it.
func unmarshalOne(data []byte) (bson.D, error) {
	if !utf8.Valid(data) {
		// Extended JSON would write the bytes back as U+FFFD.
		return nil, errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the object")
	}
	var d bson.D
	if err := bson.UnmarshalExtJSON(raw, false, &d); err != nil {
		return nil, err
	}
	return d, nil
}

// FromDocument reads an index document as listIndexes or a sidecar gives
// it: the modelled fields, v, ns and background (ignored), any other option
// kept in Other. The result is not validated.
func FromDocument(d bson.D) (Index, error) { return fromDoc(d, lenient) }

func fromDoc(d bson.D, m mode) (Index, error) {
	var ix Index
	name := ""
	for _, e := range d {
		if e.Key == "name" {
			if s, ok := e.Value.(string); ok {
				name = s
			}
		}
	}
	bad := func(setting, value, format string, args ...any) error {
		if name == "" && ix.Key != nil {
			name = DefaultName(ix.Key)
		}
		return &Error{Index: name, Setting: setting, Value: value, Err: fmt.Errorf(format, args...)}
	}
	seen := map[string]bool{}
	hasKey := false
	for _, e := range d {
		if seen[e.Key] {
			return Index{}, bad(e.Key, "", "appears twice; expected it once")
		}
		seen[e.Key] = true
		if err := ix.readSetting(e, m, bad); err != nil {
			return Index{}, err
		}
		if e.Key == "key" {
			hasKey = true
		}
	}
	if !hasKey {
		return Index{}, bad("key", "", "missing; expected a document of fields, such as {\"key\": {\"email\": 1}}")
	}
	if ix.PartialFilterExpression == nil && seen["partialFilterExpression"] {
		ix.PartialFilterExpression = bson.D{}
	}
	return ix, nil
}

// readSetting reads the setting e of an index document into ix; bad makes
// its errors.
func (ix *Index) readSetting(e bson.E, m mode, bad func(setting, value, format string, args ...any) error) error {
	switch e.Key {
	case "key":
		key, ok := e.Value.(bson.D)
		if !ok {
			return bad("key", valueText(e.Value), "expected a document of fields, such as {\"email\": 1}")
		}
		nk, err := normalKey(key, m)
		if err != nil {
			return bad(err.setting, err.value, "%s", err.msg)
		}
		ix.Key = nk
	case "name":
		s, ok := e.Value.(string)
		if !ok {
			return bad("name", valueText(e.Value), "expected a string")
		}
		if s == "" {
			return bad("name", `""`, "expected a non-empty name, or no name for the generated one")
		}
		ix.Name = s
	case "unique", "sparse":
		b, ok := flag(e.Value, m)
		if !ok {
			return bad(e.Key, valueText(e.Value), "expected true or false")
		}
		if e.Key == "unique" {
			ix.Unique = b
		} else {
			ix.Sparse = b
		}
	case "expireAfterSeconds":
		n, ok := wholeInt32(e.Value)
		if !ok {
			return bad("expireAfterSeconds", valueText(e.Value), "expected a whole number of seconds from 0 to %d", math.MaxInt32)
		}
		ix.ExpireAfterSeconds = &n
	case "partialFilterExpression":
		f, ok := e.Value.(bson.D)
		if !ok {
			return bad("partialFilterExpression", valueText(e.Value), "expected a document, such as {\"status\": {\"$eq\": \"paid\"}}")
		}
		ix.PartialFilterExpression = f
	default:
		if m == strict {
			return bad(strconv.Quote(e.Key), "", "unknown setting; expected %s", planFields)
		}
		switch e.Key {
		case "v", "ns", "background":
		default:
			ix.Other = append(ix.Other, e)
		}
	}
	return nil
}

// valueText is one value as relaxed Extended JSON.
func valueText(v any) string {
	s := extJSON(bson.D{{Key: "v", Value: v}})
	if strings.HasPrefix(s, `{"v":`) && strings.HasSuffix(s, "}") {
		return s[5 : len(s)-1]
	}
	return s
}

type keyError struct{ setting, value, msg string }

// normalKey turns numeric directions equal to 1 or -1 into int32; in
// lenient mode (what a server lists: MongoDB takes any positive number as
// ascending, any negative one as descending) every non-zero number.
func normalKey(key bson.D, m mode) (bson.D, *keyError) {
	if len(key) == 0 {
		return nil, &keyError{"key", "{}", "expected at least one field, such as {\"email\": 1}"}
	}
	out := make(bson.D, len(key))
	for k, e := range key {
		out[k] = e
		switch v := e.Value.(type) {
		case int32, int64, float64:
			f := toFloat(v)
			if m == lenient && f > 0 {
				f = 1
			} else if m == lenient && f < 0 {
				f = -1
			}
			if f != 1 && f != -1 {
				return nil, &keyError{"key." + e.Key, valueText(v), directionExpected}
			}
			out[k].Value = int32(f)
		case string:
		default:
			return nil, &keyError{"key." + e.Key, valueText(v), directionExpected}
		}
	}
	return out, nil
}

func toFloat(v any) float64 {
	switch v := v.(type) {
	case int32:
		return float64(v)
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return math.NaN()
}

func flag(v any, m mode) (bool, bool) {
	switch v := v.(type) {
	case bool:
		return v, true
	case int32, int64, float64:
		if m == lenient {
			return toFloat(v) != 0, true
		}
	}
	return false, false
}

func wholeInt32(v any) (int32, bool) {
	f := toFloat(v)
	if math.IsNaN(f) || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
		return 0, false
	}
	return int32(f), true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
