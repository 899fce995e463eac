package web

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

func setLang(t *testing.T, ctx context.Context, lang string) {
	t.Helper()
	do(t, ctx, "choosing "+lang, chromedp.Evaluate[chromedp.Void](`(() => {
		const s = document.getElementById("lang");
		s.value = `+jsString(lang)+`;
		s.dispatchEvent(new Event("change"));
	})()`))
}

// visible is the text of an element as shown: the other language's half is
// not displayed, so innerText leaves it out.
func visible(t *testing.T, ctx context.Context, selector string) string {
	t.Helper()
	return strings.TrimSpace(eval[string](t, ctx, `document.querySelector(`+jsString(selector)+`).innerText`))
}

// The page switches between English and Turkish: static text, the strings
// the script writes, and dates in the chosen locale; the choice survives a
// reload.
func TestPageLanguageSwitch(t *testing.T) {
	ctx := openPage(t, "Asia/Tokyo")
	if lang := eval[string](t, ctx, `document.documentElement.lang`); lang != "en" {
		t.Fatalf("an English browser gets lang %q", lang)
	}
	typeInto(t, ctx, "decode-input", "507f1f77bcf86cd799439011")
	checkLang := func(lang, h1, words, copyBtn, status, hi string) {
		t.Helper()
		if got := visible(t, ctx, "h1"); got != h1 {
			t.Errorf("%s: heading %q, want %q", lang, got, h1)
		}
		if got := eval[string](t, ctx, `document.getElementById("decode-words").textContent`); !strings.Contains(got, words) {
			t.Errorf("%s: the decoded date in words is %q, want it to contain %q", lang, got, words)
		}
		typeInto(t, ctx, "count", "3"+kb.Enter)
		waitListLen(t, ctx, 3)
		if got := visible(t, ctx, "#ids li button"); got != copyBtn {
			t.Errorf("%s: the copy button says %q, want %q", lang, got, copyBtn)
		}
		if got := eval[string](t, ctx, `document.getElementById("gen-status").textContent`); got != status {
			t.Errorf("%s: status %q, want %q", lang, got, status)
		}
		typeInto(t, ctx, "range-from", "1700000000")
		typeInto(t, ctx, "range-to", "1700086400")
		if got := eval[string](t, ctx, `document.getElementById("range-hi").textContent`); !strings.Contains(got, hi) {
			t.Errorf("%s: upper bound %q, want it to contain %q", lang, got, hi)
		}
	}
	checkLang("en", "MongoDB ObjectID generator and decoder", "18 October 2012", "Copy", "Generated 3 IDs.", "exclusive: $lt")
	setLang(t, ctx, "tr")
	if lang := eval[string](t, ctx, `document.documentElement.lang`); lang != "tr" {
		t.Fatalf("after choosing Türkçe, lang %q", lang)
	}
	checkLang("tr", "MongoDB ObjectID oluşturucu ve çözücü", "18 Ekim 2012 Perşembe", "Kopyala", "3 kimlik oluşturuldu.", "hariç: $lt")
	if title := eval[string](t, ctx, `document.title`); !strings.Contains(title, "oluşturucu") {
		t.Errorf("Turkish title %q", title)
	}

	// Remembered across a reload.
	do(t, ctx, "reloading", chromedp.Reload())
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.documentElement.dataset.ready === "true"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the page did not start after a reload: %v", err)
	}
	if lang := eval[string](t, ctx, `document.documentElement.lang + " " + document.getElementById("lang").value`); lang != "tr tr" {
		t.Errorf("after a reload, lang and switch %q, want tr tr", lang)
	}
	setLang(t, ctx, "en")
	if got := visible(t, ctx, "h1"); got != "MongoDB ObjectID generator and decoder" {
		t.Errorf("back in English the heading is %q", got)
	}
}

// A browser whose first language is Turkish gets the page in Turkish.
func TestPageLanguageFollowsTheBrowser(t *testing.T) {
	ctx := newTab(t)
	srv := httptest.NewServer(NewHandler())
	t.Cleanup(srv.Close)
	if _, err := chromedp.Call(ctx, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{
		UserAgent: "Mozilla/5.0", AcceptLanguage: "tr-TR",
	}); err != nil {
		t.Fatalf("setting the browser's language: %v", err)
	}
	do(t, ctx, "loading the page", chromedp.Navigate(srv.URL+"/"))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.documentElement.dataset.ready === "true"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the page's script did not start: %v", err)
	}
	if got := eval[string](t, ctx, `navigator.language + " " + document.documentElement.lang`); got != "tr-TR tr" {
		t.Errorf("navigator.language and page lang %q, want tr-TR tr", got)
	}
}

// In Turkish the decode, window and build errors are in Turkish too, the
// quoted input unchanged; in English they are the command line's.
func TestPageMessagesInTurkish(t *testing.T) {
	ctx := openPage(t, "")
	shownError := func(id string) string {
		return eval[string](t, ctx, `document.getElementById(`+jsString(id)+`).hidden ? "" : document.getElementById(`+jsString(id)+`).textContent`)
	}
	setLang(t, ctx, "tr")
	for _, tt := range []struct{ in, want string }{
		{"abc", `geçersiz ObjectID "abc": uzunluk 3, 24 onaltılık karakter bekleniyordu`},
		{"507f1f77bcf86cd79943901z", `geçersiz ObjectID "507f1f77bcf86cd79943901z": 23. konumda geçersiz karakter 'z'; 0-9, a-f ya da A-F bekleniyordu`},
	} {
		typeInto(t, ctx, "decode-input", tt.in+kb.Enter)
		if got := shownError("decode-error"); got != tt.want {
			t.Errorf("decode %q in Turkish: %q, want %q", tt.in, got, tt.want)
		}
	}
	typeInto(t, ctx, "range-from", "1700000000")
	typeInto(t, ctx, "range-to", "1699999999"+kb.Enter)
	if got := shownError("range-error"); !strings.HasPrefix(got, `bitiş "1699999999": başlangıç "1700000000" sonrasında bir zaman bekleniyordu`) {
		t.Errorf("range error in Turkish: %q", got)
	}
	typeInto(t, ctx, "build-time", "dün")
	if got := shownError("build-error"); !strings.HasPrefix(got, `zaman "dün": RFC 3339 (`) {
		t.Errorf("build error in Turkish: %q", got)
	}
	// Switching back rewrites the shown error in English.
	setLang(t, ctx, "en")
	if got := shownError("range-error"); !strings.HasPrefix(got, `to "1699999999": expected a time after from "1700000000"`) {
		t.Errorf("range error back in English: %q", got)
	}
}
