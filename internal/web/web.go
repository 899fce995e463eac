// Package web serves the oidkit browser page: an ObjectID generator, decoder,
// "created between" helper and build-from-parts form, with sections that
// explain ObjectIDs, in English and Turkish, written in plain HTML, CSS and
// JavaScript. The page can save itself as one self-contained HTML file.
//
// The assets are embedded in the binary, so the page works offline and needs
// no database. IDs are generated in the browser by assets/oid.js with the
// same rules as package oid; the server only hands out files.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed assets
var assets embed.FS

// ContentSecurityPolicy lets the page load only its own files: no inline
// script or style, no other origin, no framing, no form posts.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
}

type asset struct {
	name        string
	contentType string
	etag        string
	body        []byte
}

// Handler serves the page at / and its files by name. Only GET and HEAD are
// allowed; any other path is 404.
type Handler struct {
	files map[string]asset // keyed by URL path
}

var _ http.Handler = (*Handler)(nil)

// NewHandler builds the handler from the embedded assets.
func NewHandler() *Handler {
	h := &Handler{files: map[string]asset{}}
	err := fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := assets.ReadFile(p)
		if err != nil {
			return err
		}
		ct, ok := contentTypes[path.Ext(p)]
		if !ok {
			ct = "application/octet-stream"
		}
		sum := sha256.Sum256(body)
		urlPath := "/" + strings.TrimPrefix(p, "assets/")
		a := asset{name: path.Base(p), contentType: ct, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, body: body}
		h.files[urlPath] = a
		if urlPath == "/index.html" {
			h.files["/"] = a
		}
		return nil
	})
	if err != nil {
		// The embedded tree is fixed at build time; failing to read it is a
		// broken build, which the handler tests catch.
		panic("web: reading embedded assets: " + err.Error())
	}
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", ContentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("X-Frame-Options", "DENY")

	a, ok := h.files[r.URL.Path]
	if !ok {
		http.Error(w, "404 page not found: "+r.URL.Path, http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed: "+r.Method, http.StatusMethodNotAllowed)
		return
	}
	hd.Set("Content-Type", a.contentType)
	hd.Set("Cache-Control", "no-cache")
	hd.Set("ETag", a.etag)
	http.ServeContent(w, r, a.name, time.Time{}, bytes.NewReader(a.body))
}
