package web

import (
	"strings"
	"testing"
)

// The "build from parts" form makes the seed's worked example and the ID
// after it, from a date or Unix seconds and a decimal or hex counter.
func TestPageBuildFromParts(t *testing.T) {
	ctx := openPage(t, "")
	built := func() (string, string) {
		t.Helper()
		got := eval[[]string](t, ctx, `[document.getElementById("build-id").textContent, document.getElementById("build-next").textContent,
			document.getElementById("build-error").hidden ? "" : document.getElementById("build-error").textContent]`)
		if got[2] != "" {
			t.Errorf("build error %q", got[2])
		}
		return got[0], got[1]
	}
	for _, tt := range [][3]string{
		{"1700000000", "3f2a91c8d4", "12345"},
		{"2023-11-14T22:13:20Z", "3F2A91C8D4", "0x3039"},
		{"2023-11-15T01:13:20+03:00", "3f2a91c8d4", "0x003039"},
	} {
		typeInto(t, ctx, "build-time", tt[0])
		typeInto(t, ctx, "build-random", tt[1])
		typeInto(t, ctx, "build-counter", tt[2])
		id, next := built()
		if id != "6553f1003f2a91c8d4003039" || next != "6553f1003f2a91c8d400303a" {
			t.Errorf("built from %v: %s then %s, want 6553f1003f2a91c8d4003039 then 6553f1003f2a91c8d400303a", tt, id, next)
		}
	}
	typeInto(t, ctx, "build-counter", "16777216")
	msg := eval[string](t, ctx, `document.getElementById("build-error").hidden ? "" : document.getElementById("build-error").textContent`)
	if !strings.Contains(msg, `counter "16777216"`) {
		t.Errorf("an out-of-range counter: error %q", msg)
	}
}

// The decoder shows the mongosh getTimestamp() call beside its result, and
// the content sections are there in both languages.
func TestPageTeaches(t *testing.T) {
	ctx := openPage(t, "")
	typeInto(t, ctx, "decode-input", "507f1f77bcf86cd799439011")
	shell := eval[string](t, ctx, `document.getElementById("decode-shell").textContent + " → " + document.getElementById("decode-iso").textContent`)
	if shell != `ObjectId("507f1f77bcf86cd799439011").getTimestamp() → ISODate("2012-10-17T21:13:27.000Z")` {
		t.Errorf("mongosh call beside the result: %q", shell)
	}
	for _, lang := range []string{"en", "tr"} {
		setLang(t, ctx, lang)
		for _, sel := range []string{"#what-title", "#custom-title", "#timestamp-title", "#layout-title", "#history-title", "#uuid-title", "#faq-title", "#refs-title"} {
			if visible(t, ctx, sel) == "" {
				t.Errorf("%s: %s shows nothing", lang, sel)
			}
		}
		faq := visible(t, ctx, "#faq-section")
		if n := strings.Count(faq, "?"); n < 6 {
			t.Errorf("%s: the FAQ shows %d questions, want 6", lang, n)
		}
		if body := visible(t, ctx, "#custom-section"); !strings.Contains(body, `db.Employee.insert({_id: 10, "EmployeeName": "Smith"})`) {
			t.Errorf("%s: the custom _id example is missing", lang)
		}
	}
	if trFAQ, enFAQ := visible(t, ctx, "#faq-section"), "Can two ObjectIDs collide?"; strings.Contains(trFAQ, enFAQ) {
		t.Error("in Turkish the English FAQ shows too")
	}
	// The links are only links: nothing the page loaded came from elsewhere.
	if other := eval[[]string](t, ctx, `performance.getEntriesByType("resource").map((e) => e.name).filter((u) => !u.startsWith(location.origin + "/"))`); len(other) > 0 {
		t.Errorf("the page requested other origins: %v", other)
	}
	links := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#refs-section a")).map((a) => a.href)`)
	for _, want := range []string{"https://www.mongodb.com/docs/manual/reference/method/ObjectId/", "https://github.com/mongodb/specifications/blob/master/source/bson-objectid/objectid.md", "https://bsonspec.org/spec.html"} {
		if !strings.Contains(strings.Join(links, " "), want) {
			t.Errorf("reference %s missing from %v", want, links)
		}
	}
}
