// Package webui is the inspector: a small web front end (plain HTML, CSS
// and JavaScript, no framework, nothing fetched from elsewhere) that
// `mnemon serve` serves at /ui/ from files embedded in the binary. It
// reads and acts only through the /v1 API, with the key the user enters
// (kept in the browser tab's sessionStorage), so it can do nothing the key
// could not do with curl.
//
// Assets are served under content-hashed names (app.3f2a9c1e.js) with a
// year's immutable caching, pre-compressed with gzip once at start; the
// page itself is never cached, so a new binary's assets load at once.
// Every response carries a strict Content-Security-Policy: scripts,
// styles, images and requests from this origin only, no inline code.
package webui

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
)

//go:embed assets
var files embed.FS

// CSP is the Content-Security-Policy of every /ui/ response.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// asset is one file as served.
type asset struct {
	name   string // the served name (hashed, except index.html)
	ctype  string
	raw    []byte
	gz     []byte // nil when gzip does not make it smaller
	etag   string
	cached bool // immutable: the name changes with the content
}

// Handler serves the inspector under prefix (such as "/ui/").
type Handler struct {
	prefix string
	byName map[string]*asset
	index  *asset
}

// New builds the handler: hashes, rewrites index.html to the hashed names
// and compresses each asset once.
func New(prefix string) (*Handler, error) {
	h := &Handler{prefix: prefix, byName: map[string]*asset{}}
	rename := map[string]string{} // original name -> hashed name
	var html []byte
	err := fs.WalkDir(files, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "assets/")
		if name == "index.html" {
			html = b
			return nil
		}
		sum := sha256.Sum256(b)
		ext := path.Ext(name)
		hashed := strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:4]) + ext
		rename[name] = hashed
		h.byName[hashed] = newAsset(hashed, b, true)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("webui: %w", err)
	}
	if html == nil {
		return nil, fmt.Errorf("webui: index.html is missing")
	}
	for from, to := range rename {
		html = bytes.ReplaceAll(html, []byte(`"`+from+`"`), []byte(`"`+to+`"`))
	}
	h.index = newAsset("index.html", html, false)
	return h, nil
}

func newAsset(name string, b []byte, cached bool) *asset {
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	sum := sha256.Sum256(b)
	a := &asset{name: name, ctype: ct, raw: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, cached: cached}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	if buf.Len() < len(b) {
		a.gz = buf.Bytes()
	}
	return a
}

// ServeHTTP serves index.html at the prefix and the assets below it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, h.prefix)
	if !ok {
		http.Redirect(w, r, h.prefix, http.StatusMovedPermanently)
		return
	}
	a := h.index
	if rest != "" && rest != "index.html" {
		if a = h.byName[rest]; a == nil {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
	}
	h.write(w, r, a)
}

func (h *Handler) write(w http.ResponseWriter, r *http.Request, a *asset) {
	hd := w.Header()
	hd.Set("Content-Type", a.ctype)
	hd.Set("ETag", a.etag)
	hd.Add("Vary", "Accept-Encoding")
	if a.cached {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hd.Set("Cache-Control", "no-cache")
	}
	if match := r.Header.Get("If-None-Match"); match != "" && strings.Contains(match, a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.raw
	if a.gz != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		hd.Set("Content-Encoding", "gzip")
		body = a.gz
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// acceptsGzip reads Accept-Encoding enough for browsers and curl: gzip
// listed without q=0.
func acceptsGzip(ae string) bool {
	for _, part := range strings.Split(ae, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			q := strings.ReplaceAll(params, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}

// Assets lists the served asset names with their sizes (raw and gzip),
// index.html first: what the first load transfers.
func (h *Handler) Assets() []AssetSize {
	out := []AssetSize{{Name: h.index.name, Raw: len(h.index.raw), Gzip: gzLen(h.index)}}
	for _, a := range h.byName {
		out = append(out, AssetSize{Name: a.name, Raw: len(a.raw), Gzip: gzLen(a)})
	}
	return out
}

func gzLen(a *asset) int {
	if a.gz == nil {
		return len(a.raw)
	}
	return len(a.gz)
}

// AssetSize is one asset's size as stored and as sent gzip-compressed.
type AssetSize struct {
	Name      string
	Raw, Gzip int
}
