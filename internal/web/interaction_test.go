package web

import (
	"github.com/chromedp/cdproto/emulation"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/oidkit/oidkit/oid"
)

// While the user types an ID the decoder says nothing; the error comes at 24
// characters, on blur or on submit. Its result is a polite live region.
func TestPageDecoderWaitsForTheWholeID(t *testing.T) {
	ctx := openPage(t, "")
	errShown := func() (bool, string) {
		t.Helper()
		got := eval[map[string]any](t, ctx, `({
			shown: !document.getElementById("decode-error").hidden,
			invalid: document.getElementById("decode-input").getAttribute("aria-invalid") || "",
		})`)
		return got["shown"].(bool), got["invalid"].(string)
	}

	typeInto(t, ctx, "decode-input", "507f1f77bcf") // 11 characters
	if shown, inv := errShown(); shown || inv != "" {
		t.Errorf("after typing 11 characters: error shown %v, aria-invalid %q; want no error yet", shown, inv)
	}
	do(t, ctx, "leaving the field", chromedp.Evaluate[chromedp.Void](`document.getElementById("decode-input").blur()`))
	if shown, inv := errShown(); !shown || inv != "true" {
		t.Errorf("after blur with 11 characters: error shown %v, aria-invalid %q; want the error", shown, inv)
	}

	typeInto(t, ctx, "decode-input", "507f1f77bcf86cd79943901") // 23
	if shown, _ := errShown(); shown {
		t.Error("after typing 23 characters the error shows")
	}
	do(t, ctx, "pressing Enter", chromedp.KeyEvent(kb.Enter))
	if shown, _ := errShown(); !shown {
		t.Error("after submitting 23 characters no error shows")
	}

	typeInto(t, ctx, "decode-input", "507f1f77bcf86cd79943901z") // 24, bad
	if shown, _ := errShown(); !shown {
		t.Error("after typing 24 characters with a bad one no error shows")
	}

	live := eval[string](t, ctx, `(document.getElementById("decode-result").closest("[aria-live]") || {getAttribute: () => ""}).getAttribute("aria-live")`)
	if live != "polite" {
		t.Errorf("the decoded result is in a live region %q, want polite", live)
	}
}

// "Created between" follows its fields: every edit and "Now" recompute the
// bounds, filter and mongosh text, and a copy never copies a filter for
// times no longer shown.
func TestPageCreatedBetweenFollowsItsFields(t *testing.T) {
	ctx := openPage(t, "")
	grantClipboard(t, ctx)
	at := func(s int64) string { id, _ := oid.FromTime(time.Unix(s, 0)); return id.Hex() }
	filter := func() string { return eval[string](t, ctx, `document.getElementById("range-filter").value`) }

	typeInto(t, ctx, "range-from", "1700000000")
	typeInto(t, ctx, "range-to", "1700086400")
	want := `{"_id":{"$gte":{"$oid":"` + at(1700000000) + `"},"$lt":{"$oid":"` + at(1700086400) + `"}}}`
	if got := filter(); got != want {
		t.Errorf("after typing, without pressing the button, filter\n got %s\nwant %s", got, want)
	}
	if sh := eval[string](t, ctx, `document.getElementById("range-shell").value`); !strings.Contains(sh, at(1700086400)) {
		t.Errorf("mongosh text %q does not follow the edit", sh)
	}

	before := time.Now().Unix()
	do(t, ctx, "pressing Now", chromedp.Click(chromedp.ID("range-now")))
	after := time.Now().Unix() + 1
	hi := eval[string](t, ctx, `document.getElementById("range-hi").textContent`)
	if id, err := oid.Parse(strings.Fields(hi + " ")[0]); err != nil || id.Unix() < before || id.Unix() > after {
		t.Errorf("after Now the upper bound is %q, want one from about %d", hi, before)
	}
	if f := filter(); strings.Contains(f, at(1700086400)) {
		t.Errorf("after Now the filter still has the old upper bound: %s", f)
	}

	// Copy a good filter, then break the field: copying must not copy it.
	do(t, ctx, "pressing Copy filter", chromedp.Click(chromedp.ID("range-copy")))
	good := filter()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("range-status").textContent === "Copied the filter."`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Fatalf("copying the filter: %v", err)
	}
	typeInto(t, ctx, "range-from", "next week")
	quiet := eval[map[string]any](t, ctx, `({result: !document.getElementById("range-result").hidden, error: !document.getElementById("range-error").hidden})`)
	if quiet["result"] == true || quiet["error"] == true {
		t.Errorf("while typing an invalid From: %v; want the result hidden and no error yet", quiet)
	}
	do(t, ctx, "leaving the field", chromedp.Evaluate[chromedp.Void](`document.getElementById("range-from").blur()`))
	got := eval[map[string]any](t, ctx, `({
		result: !document.getElementById("range-result").hidden,
		error: document.getElementById("range-error").hidden ? "" : document.getElementById("range-error").textContent,
	})`)
	if got["result"] == true || !strings.Contains(got["error"].(string), `from "next week"`) {
		t.Errorf("after an invalid edit: %v; want the result hidden and the error shown", got)
	}
	do(t, ctx, "clearing the clipboard", chromedp.Evaluate[chromedp.Void](`navigator.clipboard.writeText("sentinel")`, chromedp.EvalAwaitPromise))
	do(t, ctx, "clicking the hidden Copy filter", chromedp.Evaluate[chromedp.Void](`document.getElementById("range-copy").click()`))
	clip, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("reading the clipboard: %v", err)
	}
	if clip != "sentinel" {
		t.Errorf("copying with an invalid From put %q on the clipboard (the last good filter was %s)", clip, good)
	}
}

// The decoder takes an ID as articles and shells print it: ObjectId(...)
// without quotes, curly quotes, a BOM and surrounding white space.
func TestPageDecodeAcceptsPastedForms(t *testing.T) {
	ctx := openPage(t, "")
	const id = "507f1f77bcf86cd799439011"
	for _, in := range []string{
		"ObjectId(" + id + ")",
		"ObjectId(\u201c" + id + "\u201d)",
		"new ObjectId( '" + id + "' )",
		"\u2018" + id + "\u2019",
		"\ufeff" + id + "\n",
		"\t ObjectID(\"" + id + "\") \r\n",
	} {
		got := eval[map[string]any](t, ctx, `oidkit.decode(`+jsString(in)+`)`)
		if got["ok"] != true || got["id"] != id {
			t.Errorf("decode %q = %v, want %s", in, got, id)
		}
	}
	typeInto(t, ctx, "decode-input", "ObjectId(\u201c"+id+"\u201d)")
	if got := eval[decoded](t, ctx, readDecodedJS); !got.Shown || got.UTC != "2012-10-17T21:13:27Z" {
		t.Errorf("typing ObjectId(“…”): %+v", got)
	}
	// Still refused: mismatched quotes and a wrapper around nothing valid.
	for _, in := range []string{"\"" + id + "'", "ObjectId(" + id[:23] + ")"} {
		if got := eval[map[string]any](t, ctx, `oidkit.decode(`+jsString(in)+`)`); got["ok"] == true {
			t.Errorf("decode %q accepted it", in)
		}
	}
}

// On phones each ID sits on one line with its two buttons, the list is not a
// scroll box, and the filter and query boxes show all their text.
func TestPagePhoneLayout(t *testing.T) {
	for _, width := range []int64{320, 390} {
		ctx := openPage(t, "")
		do(t, ctx, "emulating a phone", chromedp.EmulateViewport(width, 740, chromedp.EmulateMobile))
		for _, lang := range []string{"en", "tr"} {
			setLang(t, ctx, lang)
			typeInto(t, ctx, "count", "100"+kb.Enter)
			waitListLen(t, ctx, 100)
			got := eval[map[string]any](t, ctx, `(() => {
				const lines = Array.from(document.querySelectorAll("#ids li")).filter((li) => {
					const [code, a, b] = li.querySelectorAll("code, button");
					const mid = (e) => { const r = e.getBoundingClientRect(); return r.top + r.height / 2; };
					return Math.abs(mid(code) - mid(a)) > 4 || Math.abs(mid(code) - mid(b)) > 4;
				}).length;
				const list = document.getElementById("ids");
				const boxes = ["range-filter", "range-shell"].map((id) => document.getElementById(id))
					.filter((ta) => ta.scrollHeight > ta.clientHeight + 1).map((ta) => ta.id);
				return {wrapped: lines, listScrolls: list.scrollHeight > list.clientHeight + 1,
					sideways: document.documentElement.scrollWidth > window.innerWidth, boxes: boxes.join(" ")};
			})()`)
			if got["wrapped"] != float64(0) || got["listScrolls"] == true || got["sideways"] == true || got["boxes"] != "" {
				t.Errorf("%d px, %s: %v; want no wrapped ID line, no list scroll box, no sideways scroll, no box with hidden text", width, lang, got)
			}
		}
	}
}

// Without JavaScript the page says what it needs and where else to go.
func TestPageWithoutJavaScript(t *testing.T) {
	ctx := newTab(t)
	srv := httptest.NewServer(NewHandler())
	t.Cleanup(srv.Close)
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatalf("disabling JavaScript: %v", err)
	}
	do(t, ctx, "loading the page", chromedp.Navigate(srv.URL+"/"))
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	if !strings.Contains(text, "This page needs JavaScript") {
		t.Errorf("without JavaScript the page does not say so; it shows:\n%.300s", text)
	}
}
