package memory

import (
	"context"
	"time"
)

// Store is mnemon's source of truth: everything a backend implements, and
// what store/storetest (the conformance suite every backend must pass)
// checks. It is composed of small roles, one per concern, so a consumer
// can take only the role it uses:
//
//   - Records: episodes, memories and their versions, the rows retrieval
//     reads and the engine writes.
//   - AdmissionLog, TraceLog, FeedbackLog, ChangeLog: the append-only logs
//     of what was admitted, retrieved, judged and written.
//   - ExtractionBacklog: the episodes a capture stored whose extraction
//     runs later in a job.
//   - Pruning: bounding the logs and memories' histories.
//   - Consolidation: sessions, their summaries and the stubs of summarised
//     episodes.
//   - Procedures: what procedural promotion reads and keeps.
//   - KeyStore: the API keys, administered across namespaces.
//   - Inventory: the other reads that span namespaces, for operators.
//   - Transactor: several calls in one transaction.
//
// Every Executor method takes the namespace in its params and touches
// nothing outside it; KeyStore and Inventory, which span namespaces, are
// the documented exceptions. Methods called on the Store itself run in
// their own transaction; InTx runs several in one.
type Store interface {
	Executor
	KeyStore
	Inventory
	Transactor

	// Close releases the store. A closed store answers every call with an error.
	Close() error
}

// VersionStreamer is implemented by a store that can hand over every live
// version of a namespace in one pass, the read an in-process search index
// is built from when a namespace is first used (at 100k versions, most of
// a server's start). A store without it is read with ScanVersions.
type VersionStreamer interface {
	// StreamVersions calls fn for every version of the namespace whose
	// status is neither deleted nor quarantined (the versions a search
	// index holds), in id order, embeddings included, each exactly as
	// ScanVersions returns it. Every *Version is newly allocated: fn may
	// keep it. The versions come from one snapshot of the namespace. It
	// stops at fn's first error and returns that error as is.
	StreamVersions(ctx context.Context, p ScanParams, fn func(*Version) error) error
}

// VersionBatchStreamer is implemented by a store whose StreamVersions
// spends most of its time decoding rows rather than reading them: it hands
// the rows over undecoded, in batches, so the caller decodes them on every
// core while the store reads on. The index loader prefers it to
// VersionStreamer.
type VersionBatchStreamer interface {
	// StreamVersionBatches reads what StreamVersions reads, in the same
	// order and from one snapshot, and calls fn, on the calling goroutine
	// and in order, with one decode function per batch of consecutive
	// versions. decode may be called on any goroutine, once, and may run
	// after StreamVersionBatches has returned; it returns the batch's
	// versions as StreamVersions gives them, except that an Embedding may
	// be in the store's own storage encoding (one search.DecodeVector
	// reads, decoding to the same vector). It stops at fn's first error
	// and returns that error as is.
	StreamVersionBatches(ctx context.Context, p ScanParams, fn func(decode func() ([]*Version, error)) error) error
}

// Transactor runs several calls as one transaction. fn receives the
// transaction's Executor and must not use the Store itself.
type Transactor interface {
	// InTx runs fn in one write transaction: everything fn does through tx
	// commits together or not at all.
	InTx(ctx context.Context, fn func(tx Executor) error) error
	// ReadTx runs fn's reads in one read transaction: one consistent
	// snapshot of the store, whatever commits meanwhile. fn must not write
	// (the store refuses).
	ReadTx(ctx context.Context, fn func(tx Executor) error) error
}

// Inventory holds the reads that span namespaces (besides KeyStore's): what
// an operator and the maintenance loop use to find the namespaces to visit.
type Inventory interface {
	// Namespaces lists every namespace that holds anything, sorted.
	Namespaces(ctx context.Context) ([]string, error)
	// ExtractionBacklogs counts, per namespace, the episodes whose
	// extraction has not run yet (claimed or not); namespaces with none
	// are left out. It is for operators (metrics).
	ExtractionBacklogs(ctx context.Context) (map[string]int, error)
}

// Executor is every per-namespace role: what a Store answers directly and
// what InTx and ReadTx hand to fn. Reads return ErrNotFound when a named
// row does not exist in the namespace; writes return ErrConflict on a
// duplicate id.
type Executor interface {
	Records
	AdmissionLog
	TraceLog
	FeedbackLog // feedback.go
	ChangeLog
	ExtractionBacklog
	Pruning
	Consolidation // consolidate.go
	Procedures    // procedures.go
}

// SlotCreator is an Executor that can write a new memory and its first
// version in one step, as CreateMemory then CreateVersion do: a taken
// memory id or slot is ErrConflict with nothing written; a taken version
// id leaves the memory written and is ErrConflict. A store whose calls are
// round trips to a server (PostgreSQL) implements it; callers fall back to
// the two calls when an Executor does not.
type SlotCreator interface {
	CreateSlot(ctx context.Context, m *Memory, v *Version) error
}

// TraceBatchCreator is an Executor that can write many traces in one
// request (one round trip on a networked store, where a statement per
// trace made the trace writer the busiest client of the server). Each
// trace is held to CreateTrace's contract; when one fails, none of the
// batch is written by this call (the caller's transaction rolls back).
// Callers fall back to CreateTrace when an Executor does not implement it.
type TraceBatchCreator interface {
	CreateTraces(ctx context.Context, ts []*Trace) error
}

// SlotHeadReader is an Executor that can read, in one query, what
// reconciling a write against a slot usually needs: the slot, its live
// versions and the next sequence number. A slot's whole history (every
// superseded value, hundreds for a slot restated daily) is then read only
// when reconciliation needs it. ReadSlotHead returns ErrNotFound when no
// slot has exactly p's scope, subject and key. Callers fall back to
// FindMemory and ListVersions when an Executor does not implement it.
type SlotHeadReader interface {
	ReadSlotHead(ctx context.Context, p FindMemoryParams) (*SlotHead, error)
}

// SlotHead is a slot and the head of its history.
type SlotHead struct {
	Memory *Memory
	// Live are the slot's live versions (active or contested), without
	// embeddings, ordered by recorded_at then id, as ListVersions orders
	// them.
	Live []*Version
	// NextSeq is one past the highest seq of any version of the slot
	// (NextSeq of its whole history); 1 when it has none.
	NextSeq int
}

// SlotQueuer is an Executor that can queue CreateSlot's write and send it
// later in the same transaction, with others (one round trip for many on
// PostgreSQL). A queued write's conflict fails a later call of the
// transaction or its commit, never silently: use it where any error ends
// the transaction.
type SlotQueuer interface {
	QueueSlot(ctx context.Context, m *Memory, v *Version) error
}

// SlotPrefetcher is an Executor that can look up many slots of a namespace
// at once and answer FindMemory for them from what it read until the
// transaction ends (the namespace's writers being held off meanwhile).
type SlotPrefetcher interface {
	PrefetchSlots(ctx context.Context, ns string, slots []FindMemoryParams) error
}

// EpisodeMatcher is an Executor that can find, in one query, the stored
// episodes of a namespace matching any of several (content hash, occurred
// at) pairs: ListEpisodes with ContentHash and OccurredAt set, for a batch
// of events (how a retried capture is recognised), purged episodes
// included. The order of the answer is unspecified.
type EpisodeMatcher interface {
	MatchEpisodes(ctx context.Context, ns string, keys []EpisodeKey) ([]*Episode, error)
}

// EpisodeKey is what recognises a retried event: its content hash and the
// instant it occurred.
type EpisodeKey struct {
	ContentHash string
	OccurredAt  time.Time
}

// VectorSearcher is a Store that searches the stored vectors itself: the
// nearest versions of a namespace to a query vector by cosine, from an
// approximate index in the database (PostgreSQL with pgvector's HNSW).
// VectorSearchEnabled says whether it can now (pgvector present); when it
// cannot, or a search fails, the engine searches its in-process index.
type VectorSearcher interface {
	VectorSearchEnabled() bool
	SearchVectors(ctx context.Context, p VectorSearchParams) ([]VectorHit, error)
}

// VectorSearchParams asks for at most K versions of Namespace whose vector
// has a cosine of at least Floor with Query (in the engine's own vector
// encoding, as versions store theirs), best first.
type VectorSearchParams struct {
	Namespace string
	Query     []byte
	K         int
	Floor     float64
}

// VectorHit is one version a vector search found and its cosine.
type VectorHit struct {
	VersionID string
	Score     float64
}

// Records holds episodes (what was captured), memories (slots) and their
// immutable versions.
type Records interface {
	// Episodes.
	CreateEpisodes(ctx context.Context, p CreateEpisodesParams) error
	GetEpisode(ctx context.Context, p GetParams) (*Episode, error)
	ListEpisodes(ctx context.Context, p ListEpisodesParams) ([]*Episode, error)

	// Memories (slots).
	CreateMemory(ctx context.Context, m *Memory) error
	GetMemory(ctx context.Context, p GetParams) (*Memory, error)
	// FindMemory finds the slot with exactly this scope, subject and key.
	FindMemory(ctx context.Context, p FindMemoryParams) (*Memory, error)

	// Versions.
	CreateVersion(ctx context.Context, v *Version) error
	// UpdateVersionState writes a version's lifecycle state (status,
	// operation, superseded_by, valid_to, confidence, usefulness, trust,
	// counters, evidence, updated_at). Its claim is never rewritten.
	UpdateVersionState(ctx context.Context, v *Version) error
	// SetEmbedding replaces a version's embedding and the embedder its
	// provenance names, when the embedder changed (re-embedding). Its claim
	// and state stay as they are; the change log records the write at
	// ChangedAt so other processes index the new vector.
	SetEmbedding(ctx context.Context, p SetEmbeddingParams) error
	GetVersion(ctx context.Context, p GetParams) (*Version, error)
	// ListVersions returns versions matching p ordered by recorded_at, then id.
	ListVersions(ctx context.Context, p ListVersionsParams) ([]*Version, error)
	// PageVersions returns one page of the versions matching p, newest
	// first (recorded_at, then id, both descending), without embeddings:
	// the inspector's list. The next page starts after the last version
	// returned (p.After), so paging costs the same on page 1 and page
	// 2,000, and a version written meanwhile never shifts a page.
	PageVersions(ctx context.Context, p PageVersionsParams) ([]*Version, error)
	// ScanVersions calls fn for every version of the namespace, in id order,
	// without holding them all in memory. It stops at fn's first error.
	ScanVersions(ctx context.Context, p ScanParams, fn func(*Version) error) error
	// ListUnsettledVersions returns the live (active or contested)
	// versions whose state the lifecycle policy may still change, without
	// embeddings, ordered by recorded_at then id: those with a usefulness
	// other than NeutralUsefulness, a valid_to, or status contested, and
	// every other live version of a memory with a contested one (a
	// contest is judged on the whole group). The rest are settled: the
	// policy leaves them as they are.
	ListUnsettledVersions(ctx context.Context, p ScanParams) ([]*Version, error)

	// ScanMemories and ScanEpisodes walk a namespace in id order (export);
	// ScanEpisodes may walk purged episodes after the others (each part
	// in id order).
	ScanMemories(ctx context.Context, p ScanParams, fn func(*Memory) error) error
	ScanEpisodes(ctx context.Context, p ScanParams, fn func(*Episode) error) error

	// Stats counts what a namespace holds.
	Stats(ctx context.Context, p StatsParams) (*Stats, error)
}

// AdmissionLog is the log of every decision the write path made about a
// candidate memory.
type AdmissionLog interface {
	CreateAdmissions(ctx context.Context, p CreateAdmissionsParams) error
	ListAdmissions(ctx context.Context, p ListAdmissionsParams) ([]*Admission, error)
	// ScanAdmissions calls fn for every admission of the namespace, oldest
	// first (created_at, then id), without holding them all in memory.
	ScanAdmissions(ctx context.Context, p ScanParams, fn func(*Admission) error) error
}

// TraceLog holds retrieval traces: what each retrieval considered and
// returned, so it can be explained and judged later.
type TraceLog interface {
	CreateTrace(ctx context.Context, t *Trace) error
	GetTrace(ctx context.Context, p GetParams) (*Trace, error)
	ListTraces(ctx context.Context, p ListTracesParams) ([]*Trace, error)
	// ScanTraces calls fn for every trace of the namespace, oldest first
	// (created_at, then id), without holding them all in memory.
	ScanTraces(ctx context.Context, p ScanParams, fn func(*Trace) error) error
}

// ChangeLog is every write of a version (created, or its state updated),
// in commit order, so a process that indexes a namespace can apply what
// other processes wrote.
type ChangeLog interface {
	// ListChanges returns the namespace's changes after p.After, oldest
	// first, at most p.Limit (0: no limit). ErrChangesPruned when entries
	// after p.After were pruned (the caller reads the namespace again).
	ListChanges(ctx context.Context, p ListChangesParams) ([]Change, error)
	// LastChange returns the sequence number of the namespace's newest
	// change, 0 when it has none.
	LastChange(ctx context.Context, p ScanParams) (int64, error)
}

// ExtractionBacklog holds the episodes a capture stored whose extraction
// runs later, and the job queued to run it. A namespace has at most one
// waiting job (queued, not started); the captures made while it waits add
// their episodes to its share of the backlog, so one job extracts them
// all. A job takes its share when it starts (ClaimExtraction); captures
// after that queue a new job. The jobs themselves live in the job queue
// (package jobs); the backlog is what ties episodes to them.
type ExtractionBacklog interface {
	// WaitingExtractionJob returns the namespace's waiting job, or "" when
	// none is waiting.
	WaitingExtractionJob(ctx context.Context, p ExtractionParams) (string, error)
	// QueueExtraction adds p.EpisodeIDs to the unclaimed backlog (an
	// episode already unclaimed keeps its place) and, when p.JobID is set,
	// makes it the waiting job.
	QueueExtraction(ctx context.Context, p ExtractionParams) error
	// ClaimExtraction is called by job p.JobID when it runs: if it is the
	// waiting job, it stops waiting and takes every unclaimed episode. It
	// returns the episodes the job holds, in the order they were queued, so
	// a retried job finds the same work and no more.
	ClaimExtraction(ctx context.Context, p ExtractionParams) ([]string, error)
	// FinishExtraction removes p.EpisodeIDs from job p.JobID's share.
	FinishExtraction(ctx context.Context, p ExtractionParams) error
}

// Pruning bounds what grows without end: retrieval traces, the change log,
// memories' superseded versions and the admission log's reinforcements.
type Pruning interface {
	// PruneTraces deletes at most p.Limit of the namespace's traces
	// created before p.Before, oldest first, and returns how many it
	// deleted.
	PruneTraces(ctx context.Context, p PruneTracesParams) (int, error)
	// PruneChanges deletes the namespace's changes up to the newest one
	// whose version was updated before p.Before, never the namespace's
	// newest (sequence numbers must never be reused), and records how far
	// it pruned. It returns the number of entries deleted.
	PruneChanges(ctx context.Context, p PruneChangesParams) (int, error)
	// PruneHistory bounds memories' histories: in at most p.Limit memories
	// of the namespace with more than p.Keep superseded versions, it
	// deletes the superseded versions beyond the newest p.Keep (the latest
	// observed, then the latest written), with
	// their admissions, logs each deletion in the change log (at p.Now) and
	// returns the ids deleted. Other states are never touched.
	PruneHistory(ctx context.Context, p PruneHistoryParams) ([]string, error)
	// PruneReinforcements bounds the admission log's reinforcements: in at
	// most p.Limit memories of the namespace with more than p.Keep
	// admissions of operation REINFORCE, it deletes those beyond the
	// newest p.Keep and returns how many it deleted. Other admissions are
	// never touched.
	PruneReinforcements(ctx context.Context, p PruneHistoryParams) (int, error)
}

// Change is one write of a version in the change log.
type Change struct {
	Seq       int64
	VersionID string
	UpdatedAt time.Time // the version's updated_at after the write
}

// ListChangesParams pages through a namespace's change log.
type ListChangesParams struct {
	Namespace string
	After     int64
	Limit     int
}

// PruneChangesParams bounds a prune of the change log.
type PruneChangesParams struct {
	Namespace string
	Before    time.Time
}

// PruneHistoryParams bounds a prune of memories' histories.
type PruneHistoryParams struct {
	Namespace string
	Keep      int // superseded versions kept per memory, at least 1
	Limit     int // memories pruned per call, at least 1
	Now       time.Time
}

// ExtractionParams names a namespace's extraction job and episodes; each
// backlog method reads the fields it documents.
type ExtractionParams struct {
	Namespace  string
	JobID      string
	EpisodeIDs []string
}

// GetParams names one row of a namespace.
type GetParams struct {
	Namespace string
	ID        string
}

// ScanParams names a namespace to walk.
type ScanParams struct {
	Namespace string
}

// CreateEpisodesParams inserts episodes of one namespace.
type CreateEpisodesParams struct {
	Namespace string
	Episodes  []*Episode
}

// ListEpisodesParams filters episodes; zero fields match everything.
// Results are ordered by occurred_at, then id.
type ListEpisodesParams struct {
	Namespace string
	SessionID string
	// IDs, when set, restricts the result to these episodes.
	IDs []string
	// ContentHash, when set, matches episodes with exactly this hash.
	ContentHash string
	// OccurredAt, when set, matches episodes that occurred at exactly this
	// instant. With ContentHash it is how a retried event is recognised,
	// cheaply even among episodes long purged.
	OccurredAt time.Time
	// Held leaves out episodes whose text was purged: only those still
	// held can be retrieved (or leak).
	Held  bool
	Limit int // 0 means no limit
}

// FindMemoryParams identifies a slot.
type FindMemoryParams struct {
	Namespace string
	Scope     Scope
	Subject   string
	Key       string
}

// SetEmbeddingParams names a version and its new embedding.
type SetEmbeddingParams struct {
	Namespace   string
	ID          string
	Embedding   []byte // search.Vector encoding; nil for none
	Embedder    string
	EmbedderDim int
	ChangedAt   time.Time
}

// ListVersionsParams filters versions; zero fields match everything.
type ListVersionsParams struct {
	Namespace string
	MemoryID  string
	IDs       []string
	Kinds     []Kind
	Statuses  []Status
	// Subject and Key, when set, match exactly (across scopes).
	Subject string
	Key     string
	Limit   int // 0 means no limit
	// WithoutEmbeddings leaves Embedding nil: cheaper when only a
	// version's claim and state are needed (a slot's whole history, read
	// on every write to it).
	WithoutEmbeddings bool
}

// PageVersionsParams filters and pages versions for PageVersions. Zero
// fields match everything; every set field must match.
type PageVersionsParams struct {
	Namespace string
	Kinds     []Kind
	Types     []Type
	Statuses  []Status
	Subject   string // exactly
	// Scope: each set field must equal the version's (an unset one
	// matches any).
	Scope Scope
	// Since and Until bound recorded_at: Since <= recorded_at < Until.
	Since, Until time.Time
	// Text, when set, must occur in the content (case-insensitive for
	// ASCII letters; % and _ are plain characters).
	Text string
	// After, when set, is the last version of the previous page.
	After *VersionCursor
	Limit int // at least 1
}

// VersionCursor is a position in PageVersions' order.
type VersionCursor struct {
	RecordedAt time.Time
	ID         string
}

// CreateAdmissionsParams appends to a namespace's admission log.
type CreateAdmissionsParams struct {
	Namespace  string
	Admissions []*Admission
}

// ListAdmissionsParams filters the admission log, newest first.
type ListAdmissionsParams struct {
	Namespace string
	MemoryID  string
	EpisodeID string
	Decision  AdmissionDecision // "": every decision
	Limit     int               // 0 means no limit
}

// PruneTracesParams bounds a prune of retrieval traces.
type PruneTracesParams struct {
	Namespace string
	Before    time.Time
	Limit     int // at least 1
}

// ListTracesParams lists a namespace's retrieval traces, newest first.
type ListTracesParams struct {
	Namespace string
	Since     time.Time
	Limit     int // 0 means no limit
	// WithoutItems leaves Items nil: what counting retrievals and their
	// latency needs, without decoding every candidate.
	WithoutItems bool
}

// StatsParams names the namespace to count.
type StatsParams struct {
	Namespace string
}

// Stats counts the rows of one namespace.
type Stats struct {
	Namespace  string         `json:"namespace"`
	Episodes   int            `json:"episodes"`
	Memories   int            `json:"memories"`
	Versions   map[Status]int `json:"versions"`
	Admissions int            `json:"admissions"`
	Traces     int            `json:"traces"`
}

// ChangeWatcher is implemented by a store that can say when another
// process committed to the change log (PostgreSQL's LISTEN/NOTIFY), so a
// follower wakes at once instead of at its next poll. It is optional: a
// follower that has no watcher, or whose watch fails, still polls, and a
// notification only ever makes it read the change log sooner.
type ChangeWatcher interface {
	// WatchChanges calls fn with the namespace of each commit that
	// appended to its change log (several commits may be reported once)
	// until ctx ends or the watch fails, and returns ctx's error or the
	// failure. It calls ready once it listens: a commit after ready is
	// reported. fn runs on the watching goroutine and must not block.
	WatchChanges(ctx context.Context, ready func(), fn func(namespace string)) error
}
