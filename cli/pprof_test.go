package cli

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serve --pprof serves Go's profiles on a loopback address of its own, apart
// from the API, and refuses any other address before opening the store.
func TestServePprof(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"MNEMON_DB": filepath.Join(t.TempDir(), "m.db")}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code, _, errs := runEnv(t, ctx, vars, "", "serve", "--addr", "127.0.0.1:0", "--pprof", "0.0.0.0:6060")
	oneLine(t, code, errs, 2, "--pprof")
	if !strings.Contains(errs, "loopback") {
		t.Fatalf("refusal does not say why: %s", errs)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	paddr := ln.Addr().String()
	ln.Close()
	s := startServe(t, vars, "--addr", "127.0.0.1:0", "--pprof", paddr, "--log-level", "error")
	defer s.stop(t)
	if code, body := call(t, "GET", "http://"+paddr+"/debug/pprof/", nil); code != http.StatusOK || !strings.Contains(string(body), "goroutine") {
		t.Fatalf("pprof index: %d %.200s", code, body)
	}
	if code, body := call(t, "GET", "http://"+paddr+"/debug/pprof/heap?debug=1", nil); code != http.StatusOK || !strings.Contains(string(body), "heap profile") {
		t.Fatalf("heap profile: %d %.200s", code, body)
	}
	// The mutex profile samples while it serves (at the default fraction
	// of zero it would always be empty).
	if code, body := call(t, "GET", "http://"+paddr+"/debug/pprof/mutex?debug=1", nil); code != http.StatusOK ||
		!strings.Contains(string(body), "sampling period="+strconv.Itoa(pprofMutexFraction)) {
		t.Fatalf("mutex profile: %d %.200s", code, body)
	}
	// The API's own address does not serve them.
	if code, _ := call(t, "GET", s.url+"/debug/pprof/", nil); code == http.StatusOK {
		t.Fatal("the API address serves profiles")
	}
}
