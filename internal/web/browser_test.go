package web

// Browser tests: the page driven by a real headless Chromium through the
// DevTools protocol. Without Chromium they skip, naming what is missing; with
// CI=true they fail instead, so CI cannot skip them silently.

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// browserTestTimeout bounds each browser test, including page loads.
const browserTestTimeout = 60 * time.Second

// chromiumNames are the executables tried, in order. Debian's package is
// "chromium"; the others are the same browser under other distributions' names.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

var shared struct {
	once   sync.Once
	ctx    context.Context // the browser; tabs are made from it
	cancel context.CancelFunc
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.cancel != nil {
		shared.cancel()
	}
	os.Exit(code)
}

func findChromium() (string, error) {
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found in PATH (looked for chromium, chromium-browser, google-chrome, google-chrome-stable); install it with: apt-get install chromium")
}

func startBrowser(path string) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // root in a container has no usable sandbox
		chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(allocCtx)
	shared.ctx = ctx
	shared.cancel = func() { cancelBrowser(); cancelAlloc() }
	// Start the browser under a deadline, without binding its life to it.
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(ctx) }()
	select {
	case shared.err = <-done:
	case <-time.After(browserTestTimeout):
		shared.err = errors.New("chromium did not start within " + browserTestTimeout.String())
	}
}

// newTab opens a tab of the shared browser for one test and returns a
// context that ends after browserTestTimeout.
func newTab(t *testing.T) context.Context {
	t.Helper()
	path, err := findChromium()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the browser tests cannot run: %v", err)
		}
		t.Skipf("skipping browser test: %v", err)
	}
	shared.once.Do(func() { startBrowser(path) })
	if shared.err != nil {
		t.Fatalf("starting %s: %v", path, shared.err)
	}
	tab, cancelTab := chromedp.NewContext(shared.ctx)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(tab); err != nil { // open the tab with no deadline on its life
		t.Fatalf("opening a tab: %v", err)
	}
	ctx, cancel := context.WithTimeout(tab, browserTestTimeout)
	t.Cleanup(cancel)
	return ctx
}

// violationsJS records Content-Security-Policy violations and uncaught errors
// so a test can check that the page runs under its own policy.
const violationsJS = `window.__problems = [];
document.addEventListener("securitypolicyviolation", (e) => window.__problems.push("CSP " + e.violatedDirective + " " + e.blockedURI));
window.addEventListener("error", (e) => window.__problems.push("error " + e.message));`

// openPage serves the handler, opens it in a new tab, optionally in a given
// time zone, and waits until the page's script has run.
func openPage(t *testing.T, timezone string) context.Context {
	t.Helper()
	ctx := newTab(t)
	srv := httptest.NewServer(NewHandler())
	t.Cleanup(srv.Close)
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: violationsJS}); err != nil {
		t.Fatalf("adding the violation recorder: %v", err)
	}
	if timezone != "" {
		if _, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: timezone}); err != nil {
			t.Fatalf("setting the time zone %s: %v", timezone, err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.documentElement.dataset.ready === "true"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the page's script did not start: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		probs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__problems`))
		if err != nil {
			t.Errorf("reading the page's problems: %v", err)
			return
		}
		for _, p := range probs {
			t.Errorf("page problem: %s", p)
		}
	})
	return ctx
}

// eval runs a JavaScript expression in the page and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

func do(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// Without Chromium a browser test skips and names what is missing, unless
// CI=true, where it fails. The test binary runs itself with an empty PATH.
func TestBrowserTestsSkipOnlyOutsideCI(t *testing.T) {
	if os.Getenv("OIDKIT_WEB_CHILD") == "1" {
		t.Skip("running as the child of TestBrowserTestsSkipOnlyOutsideCI")
	}
	for _, ci := range []string{"", "true"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPageDecodes$", "-test.v", "-test.count=1")
		cmd.Env = []string{"PATH=" + t.TempDir(), "OIDKIT_WEB_CHILD=1", "CI=" + ci, "HOME=" + t.TempDir()}
		out, err := cmd.CombinedOutput()
		text := string(out)
		if ci == "" {
			if err != nil || !strings.Contains(text, "--- SKIP: TestPageDecodes") || !strings.Contains(text, "no Chromium found in PATH") {
				t.Errorf("CI unset, no Chromium: want a skip naming what is missing; err %v, output:\n%s", err, text)
			}
		} else {
			if err == nil || !strings.Contains(text, "--- FAIL: TestPageDecodes") || !strings.Contains(text, "CI=true and the browser tests cannot run") {
				t.Errorf("CI=true, no Chromium: want a failure; err %v, output:\n%s", err, text)
			}
		}
	}
}
