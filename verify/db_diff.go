package verify

import (
	"bytes"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// maxDiffs is how many field differences one message lists.
const maxDiffs = 3

// diffDocs lists where stored differs from expected, as "path: stored X,
// expected Y" lines, descending into embedded documents and arrays. It
// returns at most maxDiffs lines and the total number of differences found.
func diffDocs(stored, expected bson.Raw) ([]string, int) {
	var d differ
	d.doc("", stored, expected, false)
	if d.n == 0 && !bytes.Equal(stored, expected) {
		d.add("document bytes differ (same fields and values: check the encoding)")
	}
	return d.out, d.n
}

type differ struct {
	out []string
	n   int
}

func (d *differ) add(s string) {
	d.n++
	if len(d.out) < maxDiffs {
		d.out = append(d.out, s)
	}
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func (d *differ) doc(prefix string, stored, expected bson.Raw, array bool) {
	se, err1 := stored.Elements()
	ee, err2 := expected.Elements()
	if err1 != nil || err2 != nil {
		d.add(orDoc(prefix) + ": malformed BSON")
		return
	}
	skeys := make([]string, len(se))
	for k, e := range se {
		skeys[k] = e.Key()
	}
	ekeys := make([]string, len(ee))
	for k, e := range ee {
		ekeys[k] = e.Key()
	}
	find := func(elems []bson.RawElement, key string) (bson.RawValue, bool) {
		for _, e := range elems {
			if e.Key() == key {
				return e.Value(), true
			}
		}
		return bson.RawValue{}, false
	}
	if array && len(se) != len(ee) {
		d.add(orDoc(prefix) + ": stored " + strconv.Itoa(len(se)) + " elements, expected " + strconv.Itoa(len(ee)))
	}
	for _, e := range ee {
		key, want := e.Key(), e.Value()
		got, ok := find(se, key)
		path := join(prefix, key)
		if !ok {
			if !array {
				d.add(path + ": missing, expected " + show(want))
			}
			continue
		}
		d.value(path, got, want)
	}
	for _, e := range se {
		if _, ok := find(ee, e.Key()); !ok && !array {
			d.add(join(prefix, e.Key()) + ": not expected, stored " + show(e.Value()))
		}
	}
	if d.n == 0 && !array && sameSet(skeys, ekeys) && strings.Join(skeys, "\x00") != strings.Join(ekeys, "\x00") {
		d.add(orDoc(prefix) + ": fields in another order: stored [" + strings.Join(skeys, ", ") + "], expected [" + strings.Join(ekeys, ", ") + "]")
	}
}

func (d *differ) value(path string, got, want bson.RawValue) {
	if got.Type == want.Type && bytes.Equal(got.Value, want.Value) {
		return
	}
	if got.Type == want.Type && (got.Type == bson.TypeEmbeddedDocument || got.Type == bson.TypeArray) {
		before := d.n
		d.doc(path, got.Value, want.Value, got.Type == bson.TypeArray)
		if d.n > before {
			return
		}
	}
	if got.Type != want.Type {
		d.add(path + ": stored " + showTyped(got) + ", expected " + showTyped(want))
		return
	}
	d.add(path + ": stored " + show(got) + ", expected " + show(want))
}

func orDoc(prefix string) string {
	if prefix == "" {
		return "document"
	}
	return prefix
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := make(map[string]int, len(a))
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
		if m[s] < 0 {
			return false
		}
	}
	return true
}
