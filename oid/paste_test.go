package oid

import (
	"errors"
	"strings"
	"testing"
)

func TestParsePasted(t *testing.T) {
	const h = "507f1f77bcf86cd799439011"
	want := MustParse(h)
	for _, in := range []string{h, strings.ToUpper(h), `ObjectId("` + h + `")`, `ObjectID("` + h + `")`, `new ObjectId("` + h + `")`,
		`ObjectId(` + h + `)`, `ObjectId('` + h + `')`, "ObjectId(\u201c" + h + "\u201d)", "ObjectId(\u2018" + h + "\u2019)",
		`{"$oid":"` + h + `"}`, `{ "$oid" : "` + h + `" }`, `"` + h + `"`, `'` + h + `'`, "\ufeff" + h, " \ufeffObjectId(\"" + h + "\") "} {
		id, err := ParsePasted(in)
		if err != nil || id != want {
			t.Errorf("ParsePasted(%q) = %v, %v", in, id, err)
		}
	}
}

func TestParsePastedErrors(t *testing.T) {
	for _, c := range []struct {
		in, reason string
		is         error
	}{
		{"bad", "length 3, expected 24 hex characters", ErrInvalidLength},
		{`ObjectId("507f1f77bcf86cd79943901z")`, "invalid character 'z' at position 23, expected 0-9, a-f or A-F", ErrInvalidChar},
		{"507f1f77bcf86cd79943901é", "invalid character 'é' at position 23, expected 0-9, a-f or A-F", ErrInvalidChar},
		{`{"$oid":"507f"}`, `expected 24 hex characters, ObjectId("...") or {"$oid":"..."}`, ErrInvalidHex},
		{`{"x":1}`, `expected 24 hex characters, ObjectId("...") or {"$oid":"..."}`, ErrInvalidJSON},
		{`"507f1f77bcf86cd799439011'`, "length 26, expected 24 hex characters", ErrInvalidLength},
		{"", "length 0, expected 24 hex characters", ErrInvalidLength},
	} {
		_, err := ParsePasted(c.in)
		var pe *PasteError
		if !errors.As(err, &pe) || pe.Input != c.in || pe.Reason() != c.reason || !errors.Is(err, c.is) {
			t.Errorf("ParsePasted(%q) = %v; want reason %q matching %v", c.in, err, c.reason, c.is)
			continue
		}
		if !strings.HasSuffix(err.Error(), ": "+c.reason) {
			t.Errorf("ParsePasted(%q): message %q", c.in, err)
		}
	}
	// The position of a bad letter outside ASCII is also given in bytes of
	// the hex, by the *ParseError underneath.
	_, err := ParsePasted("ObjectId(\"ab\u00e9\")")
	var inner *ParseError
	if !errors.As(err, &inner) || inner.Input != "ab\u00e9" || inner.Pos != 2 {
		t.Errorf("inner error of a non-ASCII letter: %#v", err)
	}
}

// ParsePasted never panics, and whatever it accepts is an ID that its own
// hex reads back to, in every pasted form.
func FuzzParsePasted(f *testing.F) {
	for _, s := range []string{"507f1f77bcf86cd799439011", `ObjectId("507f1f77bcf86cd799439011")`, "ObjectId(\u201c507f1f77bcf86cd799439011\u201d)",
		"\ufeff507f1f77bcf86cd799439011", `{"$oid":"507f1f77bcf86cd799439011"}`, "ObjectId(", "\ufeff", `"'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParsePasted(s)
		if err != nil {
			var pe *PasteError
			if !errors.As(err, &pe) || pe.Input != s || pe.Reason() == "" {
				t.Fatalf("%q: %#v", s, err)
			}
			return
		}
		h := id.String()
		for _, form := range []string{h, `ObjectId("` + h + `")`, "ObjectId(" + h + ")", "ObjectId(\u201c" + h + "\u201d)", "\ufeff" + h, `{"$oid":"` + h + `"}`} {
			back, err := ParsePasted(form)
			if err != nil || back != id {
				t.Fatalf("%q -> %s; %q -> %v, %v", s, h, form, back, err)
			}
		}
	})
}
