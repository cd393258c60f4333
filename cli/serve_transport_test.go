package cli

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeTransportDefaults runs mnemon serve as a user starts it and
// checks its defaults at the HTTP edge: oversized headers are a problem,
// not net/http's text, and one client sending request after request meets
// no rate limit, in open mode on loopback or with a key; a configured
// rate still applies, and open mode's 429 speaks of the client.
func TestServeTransportDefaults(t *testing.T) {
	t.Parallel()
	get := func(t *testing.T, url string, header ...string) (int, string, []byte) {
		t.Helper()
		req, err := http.NewRequest("GET", url, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body json.RawMessage
		_ = json.NewDecoder(res.Body).Decode(&body)
		return res.StatusCode, res.Header.Get("Content-Type"), body
	}
	burst := func(t *testing.T, url string, n int, header ...string) {
		t.Helper()
		for i := range n {
			if code, _, body := get(t, url+"/v1/nope", header...); code != http.StatusNotFound {
				t.Fatalf("request %d: %d %s", i+1, code, body)
			}
		}
	}

	t.Run("open mode on loopback", func(t *testing.T) {
		t.Parallel()
		s := startServe(t, map[string]string{"MNEMON_DB": migratedDB(t, filepath.Join(t.TempDir(), "m.db")), "MNEMON_LOG_LEVEL": "error"}, "--addr", "127.0.0.1:0")
		code, ctype, body := get(t, s.url+"/v1/memories", "X-Padding", strings.Repeat("x", 100<<10))
		if code != http.StatusRequestHeaderFieldsTooLarge || ctype != "application/problem+json" || !strings.Contains(string(body), `"code":"headers_too_large"`) {
			t.Fatalf("100 KiB of headers: %d %s %s", code, ctype, body)
		}
		// The old default (100/s, burst 200) refused the 201st.
		burst(t, s.url, 400)
		s.stop(t)
	})
	t.Run("a configured rate applies in open mode too", func(t *testing.T) {
		t.Parallel()
		s := startServe(t, map[string]string{"MNEMON_DB": migratedDB(t, filepath.Join(t.TempDir(), "m.db")), "MNEMON_LOG_LEVEL": "error",
			"MNEMON_RATE_PER_SECOND": "0.001", "MNEMON_RATE_BURST": "2"}, "--addr", "127.0.0.1:0")
		burst(t, s.url, 2)
		code, _, body := get(t, s.url+"/v1/nope")
		if code != http.StatusTooManyRequests || !strings.Contains(string(body), "for this client") {
			t.Fatalf("third request at 0.001/s, burst 2: %d %s", code, body)
		}
		s.stop(t)
	})
	t.Run("with a key", func(t *testing.T) {
		t.Parallel()
		db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
		key := strings.SplitN(mustRun(t, db, "keys", "create", "--namespace", "acme", "--role", "reader"), "\n", 2)[0]
		s := startServe(t, map[string]string{"MNEMON_DB": db, "MNEMON_LOG_LEVEL": "error"}, "--addr", "127.0.0.1:0")
		burst(t, s.url, 400, "Authorization", "Bearer "+key)
		s.stop(t)
	})
}
