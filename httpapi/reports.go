package httpapi

import (
	"net/http"
	"sync"
	"time"

	"github.com/mnemon-dev/mnemon/httpapi/wire"
)

// reportKeeper holds the last maintenance report of each kind per
// namespace, in this process only: the inspector shows what was run from it
// (or by anyone through the API) without a table for it. A restart forgets
// them; the store is the record of what changed.
type reportKeeper struct {
	mu sync.Mutex
	by map[string]*wire.Reports // namespace → its last reports
}

// keep applies set to ns's reports under the lock.
func (k *reportKeeper) keep(ns string, set func(*wire.Reports)) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.by == nil {
		k.by = map[string]*wire.Reports{}
	}
	r := k.by[ns]
	if r == nil {
		r = &wire.Reports{}
		k.by[ns] = r
	}
	set(r)
}

// get returns a copy of ns's reports (the zero value: none yet). The
// reports themselves are never changed once kept, so sharing them is safe.
func (k *reportKeeper) get(ns string) wire.Reports {
	k.mu.Lock()
	defer k.mu.Unlock()
	if r := k.by[ns]; r != nil {
		return *r
	}
	return wire.Reports{}
}

func (s *Server) lastReports(w http.ResponseWriter, r *request) error {
	return writeJSON(w, http.StatusOK, s.reports.get(r.caller.ns))
}

func (s *Server) now() time.Time { return time.Now().UTC() }
