package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(NewHandler())
	defer srv.Close()

	tests := []struct {
		method, path string
		status       int
		contentType  string
		bodyHas      string
	}{
		{"GET", "/", 200, "text/html; charset=utf-8", `<script src="oid.js"`},
		{"GET", "/index.html", 200, "text/html; charset=utf-8", "<title>oidkit"},
		{"GET", "/oid.js", 200, "text/javascript; charset=utf-8", "window.oidkit"},
		{"GET", "/app.js", 200, "text/javascript; charset=utf-8", "gen-form"},
		{"GET", "/i18n.js", 200, "text/javascript; charset=utf-8", "oidkitI18n"},
		{"GET", "/style.css", 200, "text/css; charset=utf-8", ".part-ts"},
		{"GET", "/favicon.svg", 200, "image/svg+xml", "<svg"},
		{"HEAD", "/", 200, "text/html; charset=utf-8", ""},
		{"GET", "/nope", 404, "text/plain; charset=utf-8", "404 page not found"},
		{"GET", "/favicon.ico", 404, "text/plain; charset=utf-8", ""},
		{"GET", "/assets/index.html", 404, "text/plain; charset=utf-8", ""},
		{"GET", "/oid.js/", 404, "text/plain; charset=utf-8", ""},
		{"POST", "/", 405, "text/plain; charset=utf-8", "method not allowed"},
		{"DELETE", "/app.js", 405, "text/plain; charset=utf-8", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d (body %q)", resp.StatusCode, tt.status, body)
			}
			if got := resp.Header.Get("Content-Type"); got != tt.contentType {
				t.Errorf("Content-Type %q, want %q", got, tt.contentType)
			}
			if got := resp.Header.Get("Content-Security-Policy"); got != ContentSecurityPolicy {
				t.Errorf("Content-Security-Policy %q, want %q", got, ContentSecurityPolicy)
			}
			if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q, want nosniff", got)
			}
			if tt.method == "HEAD" && len(body) != 0 {
				t.Errorf("HEAD returned a body of %d bytes", len(body))
			}
			if tt.bodyHas != "" && !strings.Contains(string(body), tt.bodyHas) {
				t.Errorf("body does not contain %q:\n%.300s", tt.bodyHas, body)
			}
			if tt.status == 405 && resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow %q, want %q", resp.Header.Get("Allow"), "GET, HEAD")
			}
		})
	}
}

func TestHandlerConditionalGet(t *testing.T) {
	h := NewHandler()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/app.js", nil))
	etag := rec.Header().Get("ETag")
	if rec.Code != 200 || etag == "" {
		t.Fatalf("GET /app.js: status %d, ETag %q", rec.Code, etag)
	}
	req := httptest.NewRequest("GET", "/app.js", nil)
	req.Header.Set("If-None-Match", etag)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified {
		t.Errorf("GET with If-None-Match %s: status %d, want 304", etag, rec.Code)
	}
}

// referenceLink is a plain link to another site, which the page never fetches.
var referenceLink = regexp.MustCompile(`<a href="https://[^"<>]+">`)

// The policy must not allow inline code or another origin, and the page must
// not need it: no inline script, style attribute or remote URL in the HTML.
func TestPageIsSelfContained(t *testing.T) {
	for _, bad := range []string{"'unsafe-inline'", "'unsafe-eval'", "*", "http:", "https:", "data:"} {
		if strings.Contains(ContentSecurityPolicy, bad) {
			t.Errorf("Content-Security-Policy allows %s: %s", bad, ContentSecurityPolicy)
		}
	}
	h := NewHandler()
	for p, a := range h.files {
		// The SVG namespace is a name, not a request.
		body := strings.ReplaceAll(string(a.body), `xmlns="http://www.w3.org/2000/svg"`, "")
		// A reference link is followed only when clicked, so it is allowed.
		body = referenceLink.ReplaceAllString(body, "<a>")
		for _, bad := range []string{"http://", "https://", "//cdn", "style=\"", "onclick=", "onload=", "<script>"} {
			if strings.Contains(body, bad) {
				t.Errorf("%s contains %q; the page must work offline under its policy", p, bad)
			}
		}
	}
}
