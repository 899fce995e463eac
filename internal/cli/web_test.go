package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oidkit/oidkit/internal/web"
)

var webURLPattern = regexp.MustCompile(`serving on (http://\S+/) `)

// startWeb runs "oidkit web args..." in the background and returns the
// page's URL once the command has said it serves, a func that stops it as a
// signal to main would (by cancelling its context), and a func that waits
// for the exit code and the output so far.
func startWeb(t *testing.T, args ...string) (url string, stop context.CancelFunc, wait func() (int, string, string)) {
	t.Helper()
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	app := NewApp(strings.NewReader(""), pw, &errb)
	ctx, stop := context.WithCancel(t.Context())
	t.Cleanup(stop)
	done := make(chan int, 1)
	go func() {
		code := app.RunContext(ctx, append([]string{"oidkit", "web"}, args...))
		pw.Close()
		done <- code
	}()

	var mu sync.Mutex
	var out strings.Builder
	lines := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			mu.Lock()
			out.WriteString(sc.Text() + "\n")
			mu.Unlock()
			lines <- sc.Text()
		}
		close(lines)
	}()
	output := func() string { mu.Lock(); defer mu.Unlock(); return out.String() }

	select {
	case line, ok := <-lines:
		if !ok {
			code := <-done
			t.Fatalf("oidkit web exited with %d before serving; stderr: %s", code, errb.String())
		}
		m := webURLPattern.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("first line %q does not name the URL", line)
		}
		url = m[1]
	case <-time.After(10 * time.Second):
		t.Fatal("oidkit web printed nothing within 10s")
	}
	drained := make(chan struct{})
	go func() {
		for range lines { // keep the pipe drained until the command closes it
		}
		close(drained)
	}()
	return url, stop, func() (int, string, string) {
		select {
		case code := <-done:
			<-drained // every line is in out
			return code, output(), errb.String()
		case <-time.After(10 * time.Second):
			t.Fatal("oidkit web did not stop within 10s")
			return 0, "", ""
		}
	}
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp, string(b)
}

// The page is served, and the command stops cleanly when its context is
// cancelled, as main cancels it on SIGINT and SIGTERM.
func TestWebServesAndStops(t *testing.T) {
	url, stop, wait := startWeb(t, "--listen", "127.0.0.1:0")
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("URL %q, want http://127.0.0.1:PORT/", url)
	}
	resp, body := get(t, url)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		!strings.Contains(body, "ObjectID") {
		t.Errorf("GET %s: %d %q %.80q", url, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); csp != web.ContentSecurityPolicy {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if resp, _ := get(t, url+"oid.js"); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Errorf("GET oid.js: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp, _ := get(t, url+"no-such-page"); resp.StatusCode != 404 {
		t.Errorf("GET an unknown path: %d, want 404", resp.StatusCode)
	}

	stop()
	code, out, errs := wait()
	if code != ExitOK {
		t.Errorf("exit code %d after cancel, want 0; stderr: %s", code, errs)
	}
	if !strings.Contains(out, "oidkit web: stopped") {
		t.Errorf("output %q does not say it stopped", out)
	}
	c := &http.Client{Timeout: 2 * time.Second}
	if resp, err := c.Get(url); err == nil {
		resp.Body.Close()
		t.Errorf("GET %s after the stop answered %d", url, resp.StatusCode)
	}
}

func TestWebListenFromEnvironment(t *testing.T) {
	t.Setenv("OIDKIT_WEB_LISTEN", "127.0.0.1:0")
	url, stop, wait := startWeb(t)
	if resp, _ := get(t, url); resp.StatusCode != 200 {
		t.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	stop()
	if code, _, errs := wait(); code != ExitOK {
		t.Errorf("exit code %d, stderr %s", code, errs)
	}
}

func TestWebBadUsage(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()

	for _, tt := range []struct {
		args     []string
		code     int
		errorHas string
	}{
		{[]string{"--listen", "nonsense"}, ExitUsage, `web: --listen "nonsense": expected HOST:PORT`},
		{[]string{"--listen", "127.0.0.1:99999"}, ExitUsage, `port "99999": expected a number from 0 to 65535`},
		{[]string{"--listen", "127.0.0.1:no-such-service"}, ExitUsage, `port "no-such-service"`},
		{[]string{"--listen", "127.0.0.1:0", "extra"}, ExitUsage, `unexpected argument "extra"`},
		{[]string{"--listen"}, ExitUsage, "web: --listen: expected a value after it"},
		{[]string{"--listen", busy.Addr().String()}, ExitFailure, "address already in use"},
	} {
		out, errOut, code := runApp(t, t.Context(), "", append([]string{"web"}, tt.args...)...)
		if code != tt.code || !strings.Contains(errOut, tt.errorHas) {
			t.Errorf("web %v: exit %d, stderr %q; want exit %d and %q", tt.args, code, errOut, tt.code, tt.errorHas)
		}
		if strings.Contains(out, "serving on") {
			t.Errorf("web %v: says it serves: %q", tt.args, out)
		}
	}
}

func TestWebHelp(t *testing.T) {
	out, errOut, code := runApp(t, t.Context(), "", "web", "--help")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"--listen", "OIDKIT_WEB_LISTEN", "127.0.0.1:8080"} {
		if !strings.Contains(out, want) {
			t.Errorf("help does not mention %s:\n%s", want, out)
		}
	}
}

func TestPageURL(t *testing.T) {
	for _, tt := range []struct {
		addr *net.TCPAddr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, "http://127.0.0.1:8080/"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 80}, "http://localhost:80/"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}, "http://localhost:8080/"},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 9}, "http://[::1]:9/"},
	} {
		if got := web.PageURL(tt.addr); got != tt.want {
			t.Errorf("web.PageURL(%v) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}

// checkListenAddr never panics, and what it accepts net.Listen can parse.
func FuzzWebListenAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8080", ":0", "[::1]:80", "nonsense", "127.0.0.1:99999", "host:http", "::1", "[::1]:", ":-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := checkListenAddr("web: ", s, "HOST:PORT"); err != nil {
			if exitCode(err) != ExitUsage || !strings.Contains(err.Error(), "--listen") {
				t.Errorf("checkListenAddr(%q) = %v (exit %d), want a usage error naming --listen", s, err, exitCode(err))
			}
			return
		}
		if _, _, err := net.SplitHostPort(s); err != nil {
			t.Errorf("checkListenAddr(%q) accepted an address SplitHostPort refuses: %v", s, err)
		}
	})
}
