package web

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

var inlineScript = regexp.MustCompile(`(?s)<script>.*?</script>`)

// "Save a copy for offline use" downloads one HTML file that works from
// disk: no file beside it, a fresh page that generates, decodes and
// switches language.
func TestPageOfflineCopy(t *testing.T) {
	ctx := openPage(t, "")
	dir := allowDownloads(t, ctx)
	do(t, ctx, "pressing Save a copy", chromedp.Click(chromedp.ID("save-offline")))
	path := filepath.Join(dir, "oidkit-objectid.html")
	html := string(waitFile(t, path))
	// The markup, not the inlined scripts (offline.js names these to remove them).
	markup := inlineScript.ReplaceAllString(html, "")
	want := strings.Count(string(NewHandler().files["/"].body), "<script src=")
	if n := strings.Count(html, "<script>"); n != want || want == 0 {
		t.Errorf("the offline copy has %d inline scripts, want the page's %d", n, want)
	}
	for _, bad := range []string{" src=", `rel="stylesheet"`, `rel="icon"`} {
		if strings.Contains(markup, bad) {
			t.Errorf("the offline copy still refers to another file: %q", bad)
		}
	}

	do(t, ctx, "opening the copy from disk", chromedp.Navigate("file://"+path))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.documentElement.dataset.ready === "true"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the offline copy's script did not start: %v", err)
	}
	typeInto(t, ctx, "count", "5"+kb.Enter)
	waitListLen(t, ctx, 5)
	typeInto(t, ctx, "decode-input", "507f1f77bcf86cd799439011")
	if got := eval[decoded](t, ctx, readDecodedJS); !got.Shown || got.UTC != "2012-10-17T21:13:27Z" {
		t.Errorf("the offline copy decodes to %+v", got)
	}
	if id := eval[string](t, ctx, `document.getElementById("build-id").textContent`); id != "6553f1003f2a91c8d4003039" {
		t.Errorf("the offline copy builds %q", id)
	}
	setLang(t, ctx, "tr")
	if got := visible(t, ctx, "h1"); got != "MongoDB ObjectID oluşturucu ve çözücü" {
		t.Errorf("the offline copy in Turkish: heading %q", got)
	}
	if shown := eval[bool](t, ctx, `!document.getElementById("save-offline").closest("[hidden]")`); shown {
		t.Error("the offline copy offers to save itself again")
	}
	if probs := eval[[]string](t, ctx, `window.__problems || []`); len(probs) > 0 {
		t.Errorf("the offline copy: %v", probs)
	}
}
