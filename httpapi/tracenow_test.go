package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/mnemon-dev/mnemon/httpapi/wire"
)

// TestE2ETraceReadableAtOnce checks the trace guarantee under concurrent
// clients: eight clients each retrieve and, the moment the answer is in,
// read its trace by id (GET /v1/retrievals/{id}), before the trace writer's
// batch can have reached the database. Every trace is there, holds the
// query and the answer's items as its packed ones in order, and is not
// readable from another namespace.
func TestE2ETraceReadableAtOnce(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	notes := []string{
		"The lighthouse camera uploads its snapshots every ten minutes.",
		"Our quilting circle moved its meetings to the library annex.",
		"The canal boat needs a new bilge pump before the autumn trip.",
		"Grandma's rye starter lives in the blue crock on the top shelf.",
		"The orchard sprayer schedule skips weeks with rain in the forecast.",
		"The lighthouse keeper's log mentions a broken lens in March.",
	}
	for _, n := range notes {
		f.e2eRemember(t, map[string]any{"text": n}, "X-Mnemon-Namespace", "alpha")
	}
	queries := []string{"lighthouse", "bilge pump", "rye starter", "quilting library", "orchard sprayer rain", "lens"}
	client := f.srv.Client()
	call := func(method, path, ns string, body any) (int, []byte, error) {
		var rd io.Reader
		if body != nil {
			data, err := json.Marshal(body)
			if err != nil {
				return 0, nil, err
			}
			rd = bytes.NewReader(data)
		}
		req, err := http.NewRequest(method, f.srv.URL+path, rd)
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Mnemon-Namespace", ns)
		res, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer res.Body.Close()
		data, err := io.ReadAll(res.Body)
		return res.StatusCode, data, err
	}
	check := func(q string) error {
		code, body, err := call("POST", "/v1/memories/retrieve", "alpha", map[string]any{"query": q, "limit": 3})
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("retrieve %q: %d %v %s", q, code, err, body)
		}
		var res wire.RetrieveResponse
		if err := json.Unmarshal(body, &res); err != nil {
			return err
		}
		code, body, err = call("GET", "/v1/retrievals/"+res.RetrievalID, "alpha", nil)
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("trace of %q read at once: %d %v %s", q, code, err, body)
		}
		var tr wire.Trace
		if err := json.Unmarshal(body, &tr); err != nil {
			return err
		}
		var packed []string
		for _, it := range tr.Items {
			if it.Packed {
				packed = append(packed, it.VersionID)
			}
		}
		var served []string
		for _, it := range res.Items {
			served = append(served, it.VersionID)
		}
		if tr.ID != res.RetrievalID || tr.Query != q || fmt.Sprint(packed) != fmt.Sprint(served) || len(served) == 0 {
			return fmt.Errorf("trace of %q: id %s query %q packed %v, the answer served %v", q, tr.ID, tr.Query, packed, served)
		}
		if code, body, err = call("GET", "/v1/retrievals/"+res.RetrievalID, "beta", nil); err != nil || code != http.StatusNotFound {
			return fmt.Errorf("trace of %q from another namespace: %d %v %s", q, code, err, body)
		}
		return nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*3*len(queries))
	for c := range 8 {
		wg.Go(func() {
			for i := range 3 * len(queries) {
				if err := check(queries[(i+c)%len(queries)]); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
