package webui_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/webui"
)

func TestHandler(t *testing.T) {
	t.Parallel()
	h, err := webui.New("/ui/")
	if err != nil {
		t.Fatal(err)
	}
	get := func(path, ae, inm string) *http.Response {
		r := httptest.NewRequest("GET", path, nil)
		if ae != "" {
			r.Header.Set("Accept-Encoding", ae)
		}
		if inm != "" {
			r.Header.Set("If-None-Match", inm)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Result()
	}
	page := get("/ui/", "", "")
	body, _ := io.ReadAll(page.Body)
	if page.StatusCode != 200 || page.Header.Get("Cache-Control") != "no-cache" || !strings.Contains(page.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("/ui/: %d %v", page.StatusCode, page.Header)
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe") {
		t.Errorf("CSP %q", csp)
	}
	// The page names its assets by content hash; no inline script or style.
	names := regexp.MustCompile(`"(app\.[0-9a-f]{8}\.(?:js|css))"`).FindAllStringSubmatch(string(body), -1)
	if len(names) != 2 {
		t.Fatalf("index.html names %v, want app.<hash>.js and app.<hash>.css", names)
	}
	if strings.Contains(string(body), "<style") || regexp.MustCompile(`<script>`).MatchString(string(body)) || strings.Contains(string(body), "style=") {
		t.Error("index.html has inline script or style, which the CSP refuses")
	}
	for _, n := range names {
		plain := get("/ui/"+n[1], "", "")
		raw, _ := io.ReadAll(plain.Body)
		if plain.StatusCode != 200 || !strings.Contains(plain.Header.Get("Cache-Control"), "immutable") || plain.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: %d %v", n[1], plain.StatusCode, plain.Header)
		}
		zipped := get("/ui/"+n[1], "br, gzip;q=0.9", "")
		if zipped.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: not gzipped for Accept-Encoding gzip", n[1])
			continue
		}
		zr, err := gzip.NewReader(zipped.Body)
		if err != nil {
			t.Fatal(err)
		}
		unz, _ := io.ReadAll(zr)
		if string(unz) != string(raw) || zipped.ContentLength >= int64(len(raw)) {
			t.Errorf("%s: gzip body (%d bytes) is not the asset (%d bytes) compressed", n[1], zipped.ContentLength, len(raw))
		}
		if get("/ui/"+n[1], "gzip;q=0", "").Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: gzipped though refused", n[1])
		}
		if nm := get("/ui/"+n[1], "", plain.Header.Get("ETag")); nm.StatusCode != http.StatusNotModified {
			t.Errorf("%s with its ETag: %d, want 304", n[1], nm.StatusCode)
		}
	}
	for path, want := range map[string]int{"/ui/app.js": 404, "/ui/nope.00000000.js": 404, "/ui": 301, "/ui/index.html": 200} {
		if got := get(path, "", "").StatusCode; got != want {
			t.Errorf("%s: %d, want %d", path, got, want)
		}
	}
	r := httptest.NewRequest("POST", "/ui/", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /ui/: %d", w.Code)
	}
	// What the first load costs, compressed (the browser test measures it
	// on the wire).
	total := 0
	for _, a := range h.Assets() {
		total += a.Gzip
	}
	if total > 300<<10 {
		t.Errorf("assets are %d bytes compressed; the first load must stay under 300 KiB", total)
	}
}
