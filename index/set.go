package index

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// Store is what the index reads of the store: the versions of a namespace
// to build from, and the change log to follow.
type Store interface {
	ScanVersions(ctx context.Context, p memory.ScanParams, fn func(*memory.Version) error) error
	ListVersions(ctx context.Context, p memory.ListVersionsParams) ([]*memory.Version, error)
	Stats(ctx context.Context, p memory.StatsParams) (*memory.Stats, error)
	ListChanges(ctx context.Context, p memory.ListChangesParams) ([]memory.Change, error)
	LastChange(ctx context.Context, p memory.ScanParams) (int64, error)
}

// Config says how a Set reads and analyses versions. Store, Embedder and
// Analyzer are required.
type Config struct {
	Store    Store
	Embedder embed.Embedder // its Dim and dense tail lay out the vector index
	Analyzer *search.Analyzer
	// Shape, when set, is computed once per indexed version and kept on
	// its entry (Entry.Shape) for the read path.
	Shape  func(*memory.Version) uint16
	Logger *slog.Logger // default: discard
	// MemoryCap bounds the estimated bytes of the held indexes; 0 or less:
	// no bound (see memcap.go).
	MemoryCap int64
}

func (c *Config) shapeOf(v *memory.Version) uint16 {
	if c == nil || c.Shape == nil {
		return 0
	}
	return c.Shape(v)
}

// Set holds the loaded index of every namespace in use. It is safe for
// concurrent use.
type Set struct {
	cfg Config

	mu  sync.Mutex
	nss map[string]*Namespace

	evictions atomic.Int64
}

// New returns an empty set: each namespace is loaded on first use.
func New(cfg Config) *Set {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Set{cfg: cfg, nss: make(map[string]*Namespace)}
}

// Doc builds the search document of a version from its stored fields, as
// Put indexes it: build it before taking the writer's transaction, so the
// analysis holds no lock.
func (s *Set) Doc(v *memory.Version) (search.Doc, error) {
	return docOf(s.cfg.Analyzer, v)
}

// Namespace returns the loaded index of ns, building it from the store on
// first use. A failed load is retried on the next call.
func (s *Set) Namespace(ctx context.Context, ns string) (*Namespace, error) {
	s.mu.Lock()
	st, ok := s.nss[ns]
	if !ok {
		st = newNSState(ns)
		st.cfg = &s.cfg
		s.nss[ns] = st
	}
	s.mu.Unlock()
	st.touch()
	loaded, err := st.load(ctx)
	if err != nil {
		return nil, err
	}
	if loaded {
		s.enforceCap(st)
	}
	return st, nil
}

// Loaded returns the index of ns if it is held in memory, without loading
// it.
func (s *Set) Loaded(ns string) (*Namespace, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.nss[ns]
	return st, ok
}

// Sizes returns how many versions each held namespace index holds.
func (s *Set) Sizes() map[string]int {
	sts := s.held()
	out := make(map[string]int, len(sts))
	for _, st := range sts {
		out[st.name] = st.Size()
	}
	return out
}

func (s *Set) held() []*Namespace {
	s.mu.Lock()
	defer s.mu.Unlock()
	sts := make([]*Namespace, 0, len(s.nss))
	for _, st := range s.nss {
		sts = append(sts, st)
	}
	return sts
}

// Lock takes the writer lock of ns's current index: writes are reconciled
// one at a time per namespace, and applied to the index under this lock. A
// Rebuild may replace the index while a writer waits; the writer then
// moves to the new one, so no write is applied to an index that is no
// longer served. Call the returned func to unlock.
func (s *Set) Lock(ctx context.Context, ns string) (*Namespace, func(), error) {
	for {
		st, err := s.Namespace(ctx, ns)
		if err != nil {
			return nil, nil, err
		}
		st.writeMu.Lock()
		if s.current(st) {
			return st, st.writeMu.Unlock, nil
		}
		st.writeMu.Unlock()
	}
}

func (s *Set) current(st *Namespace) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nss[st.name] == st
}

// Rebuild drops the index of ns and builds it again from the store. It
// waits for the namespace's writer, so no write lands on the old index.
func (s *Set) Rebuild(ctx context.Context, ns string) error {
	old, unlock, err := s.Lock(ctx, ns)
	if err != nil {
		return err
	}
	defer unlock()
	s.evict(old)
	_, err = s.Namespace(ctx, ns)
	return err
}

// Evict forgets the index of ns once its writer is done, so its memory is
// freed and the next use reads it from the store again. A namespace not
// held is left alone (it is not loaded to be dropped).
func (s *Set) Evict(ns string) {
	st, ok := s.Loaded(ns)
	if !ok {
		return
	}
	st.writeMu.Lock()
	defer st.writeMu.Unlock()
	s.evict(st)
}

func (s *Set) evict(st *Namespace) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nss[st.name] == st {
		delete(s.nss, st.name)
	}
}
