package web

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/oidkit/oidkit/oid"
)

// waitFile waits for a finished download (Chromium writes name.crdownload
// first and renames it when done).
func waitFile(t *testing.T, path string) []byte {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return b
		}
		time.Sleep(50 * time.Millisecond)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	t.Fatalf("no download at %s within 15s (directory has %v)", path, names)
	return nil
}

// The three download buttons write the listed IDs as text, as an Extended
// JSON array and as NDJSON; each file reads back as the same IDs.
func TestPageDownloads(t *testing.T) {
	ctx := openPage(t, "")
	dir := allowDownloads(t, ctx)
	typeInto(t, ctx, "count", "25"+kb.Enter)
	waitListLen(t, ctx, 25)
	ids := listedIDs(t, ctx)

	do(t, ctx, "downloading text", chromedp.Click(chromedp.ID("download-txt")))
	txt := string(waitFile(t, filepath.Join(dir, "objectids.txt")))
	if want := strings.Join(ids, "\n") + "\n"; txt != want {
		t.Errorf("objectids.txt:\n%q\nwant\n%q", txt, want)
	}

	do(t, ctx, "downloading Extended JSON", chromedp.Click(chromedp.ID("download-json")))
	raw := waitFile(t, filepath.Join(dir, "objectids.json"))
	var arr []map[string]string
	if err := json.Unmarshal(raw, &arr); err != nil {
		t.Fatalf("objectids.json is not a JSON array: %v\n%s", err, raw)
	}
	if len(arr) != len(ids) {
		t.Fatalf("objectids.json has %d entries, want %d", len(arr), len(ids))
	}
	for i, m := range arr {
		if len(m) != 1 || m["$oid"] != ids[i] {
			t.Errorf("objectids.json entry %d: %v, want {\"$oid\":%q}", i, m, ids[i])
		}
		if _, err := oid.Parse(m["$oid"]); err != nil {
			t.Error(err)
		}
	}
	if !strings.HasPrefix(string(raw), `[{"$oid":"`+ids[0]+`"},{"$oid":`) {
		t.Errorf("objectids.json is not compact canonical Extended JSON: %.60s", raw)
	}

	do(t, ctx, "downloading NDJSON", chromedp.Click(chromedp.ID("download-ndjson")))
	nd := waitFile(t, filepath.Join(dir, "objectids.ndjson"))
	sc := bufio.NewScanner(strings.NewReader(string(nd)))
	n := 0
	for sc.Scan() {
		var m map[string]string
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || len(m) != 1 || n >= len(ids) || m["$oid"] != ids[n] {
			t.Errorf("objectids.ndjson line %d: %q (%v)", n+1, sc.Text(), err)
		}
		n++
	}
	if n != len(ids) || !strings.HasSuffix(string(nd), "\n") {
		t.Errorf("objectids.ndjson has %d lines, want %d, each ending in a newline", n, len(ids))
	}
}

// Copy buttons put the IDs on the clipboard, through the asynchronous
// clipboard and through the fallback for pages that lack it.
func TestPageCopy(t *testing.T) {
	ctx := openPage(t, "")
	grantClipboard(t, ctx)
	typeInto(t, ctx, "count", "12"+kb.Enter)
	waitListLen(t, ctx, 12)
	ids := listedIDs(t, ctx)
	readClipboard := func() string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(window.__realClipboard || navigator.clipboard).readText()`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("reading the clipboard: %v", err)
		}
		return s
	}
	waitStatus := func(want string) {
		t.Helper()
		js := `document.getElementById("gen-status").textContent === ` + jsString(want)
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
			got := eval[string](t, ctx, `document.getElementById("gen-status").textContent`)
			t.Fatalf("status %q, want %q: %v", got, want, err)
		}
	}

	do(t, ctx, "pressing Copy all", chromedp.Click(chromedp.ID("copy-all")))
	waitStatus("Copied 12 IDs.")
	if got, want := readClipboard(), strings.Join(ids, "\n")+"\n"; got != want {
		t.Errorf("clipboard after Copy all:\n%q\nwant\n%q", got, want)
	}

	do(t, ctx, "pressing the third Copy", chromedp.Click(chromedp.CSS("#ids li:nth-child(3) button")))
	waitStatus("Copied " + ids[2] + ".")
	if got := readClipboard(); got != ids[2] {
		t.Errorf("clipboard after copying ID 3: %q, want %q", got, ids[2])
	}

	// Without the asynchronous clipboard the fallback copies the same text.
	do(t, ctx, "hiding navigator.clipboard", chromedp.Evaluate[chromedp.Void](
		`window.__realClipboard = navigator.clipboard; Object.defineProperty(navigator, "clipboard", {value: undefined, configurable: true})`))
	do(t, ctx, "pressing the fifth Copy", chromedp.Click(chromedp.CSS("#ids li:nth-child(5) button")))
	waitStatus("Copied " + ids[4] + ".")
	if got := readClipboard(); got != ids[4] {
		t.Errorf("clipboard after the fallback copy: %q, want %q", got, ids[4])
	}
}

// allowDownloads makes the tab save downloads into a new temporary
// directory, which it returns.
func allowDownloads(t *testing.T, ctx context.Context) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir,
	}); err != nil {
		t.Fatalf("allowing downloads: %v", err)
	}
	t.Cleanup(func() {
		_, _ = chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorDefault})
	})
	return dir
}

// grantClipboard lets the page read and write the clipboard, so a test can
// check what a copy button put there.
func grantClipboard(t *testing.T, ctx context.Context) {
	t.Helper()
	origin := eval[string](t, ctx, `location.origin`)
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted, Origin: origin,
		}); err != nil {
			t.Fatalf("granting %s: %v", name, err)
		}
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
