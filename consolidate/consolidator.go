// Package consolidate owns what happens to a namespace's sessions after
// they end: summarising a session into one memory (summarise.go), forgetting
// and later purging the raw episodes a summary covers once their retention
// falls (consolidate.go), and folding old session summaries into one digest
// a month (fold.go). It writes through the store and keeps the search index
// current; the engine runs it (Engine.ConsolidateSession, ConsolidateDue).
package consolidate

import (
	"context"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/internal/tokens"
	"github.com/mnemon-dev/mnemon/memory"
)

// Config is what a Consolidator works with. Every field is required.
type Config struct {
	Store    memory.Store
	Index    *index.Set // the engine's: summaries are indexed as they commit
	Clock    clock.Clock
	Embedder embed.Embedder // embeds summaries and digests
	Counter  *tokens.Counter
	Settings Consolidation // with defaults applied (WithDefaults)
	// Trust is the engine's trust of a version, stored on each version
	// written.
	Trust func(v *memory.Version, now time.Time) float64
	// Traces flushes retrievals not yet written: retention counts the
	// accesses the stored traces record.
	Traces interface{ Flush() }
}

// Consolidator runs consolidation over one store and its index. It is safe
// for concurrent use: each run takes the namespace's writer lock.
type Consolidator struct {
	store         memory.Store
	index         *index.Set
	clock         clock.Clock
	embedder      embed.Embedder
	counter       *tokens.Counter
	consolidation Consolidation
	trustOf       func(*memory.Version, time.Time) float64
	traces        interface{ Flush() }
}

// New returns a Consolidator over cfg.
func New(cfg Config) *Consolidator {
	return &Consolidator{
		store: cfg.Store, index: cfg.Index, clock: cfg.Clock, embedder: cfg.Embedder,
		counter: cfg.Counter, consolidation: cfg.Settings, trustOf: cfg.Trust, traces: cfg.Traces,
	}
}

// lockNamespace takes the writer lock of ns (see index.Set.Lock).
func (e *Consolidator) lockNamespace(ctx context.Context, ns string) (*index.Namespace, func(), error) {
	return e.index.Lock(ctx, ns)
}

func checkNamespace(ns string) (string, error) {
	ns = memory.NormalizeNamespace(ns)
	if err := memory.ValidateNamespace(ns); err != nil {
		return "", err
	}
	return ns, nil
}

// factScope is the scope of a memory drawn from a session: the session's
// owners, not the session (as the engine scopes extracted facts).
func factScope(s memory.Scope) memory.Scope {
	s.SessionID = ""
	return s
}

// fromMemory reports whether an event carries text retrieved from mnemon
// (clients mark it with metadata source=mnemon), as the engine reads it.
func fromMemory(meta map[string]string) bool {
	return meta["source"] == "mnemon"
}

func timePtr(t time.Time) *time.Time { return &t }

// normValue is a sentence as the engine compares values: lower case, outer
// punctuation and a leading article trimmed, spaces collapsed.
func normValue(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.Trim(s, " .,!?;:'\"`()[]")
	for _, p := range []string{"the ", "a ", "an "} {
		s = strings.TrimPrefix(s, p)
	}
	return strings.Join(strings.Fields(s), " ")
}
