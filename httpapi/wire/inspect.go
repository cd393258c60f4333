package wire

import "time"

// VersionPage is one page of GET /v1/versions.
type VersionPage struct {
	Versions   []*Version `json:"versions" nullable:"false" doc:"Versions newest first (recorded_at, then id, descending), without embeddings."`
	NextCursor string     `json:"next_cursor,omitempty" doc:"Pass as cursor to read the next page; absent on the last page."`
}

// AdmissionList is the body of GET /v1/admissions.
type AdmissionList struct {
	Admissions []*Admission `json:"admissions" nullable:"false" doc:"Admission decisions, newest first, each with its reason codes."`
}

// JobList is the body of GET /v1/jobs.
type JobList struct {
	Jobs []*Job `json:"jobs" nullable:"false" doc:"The namespace's background jobs, newest first."`
}

// Stats is the body of GET /v1/stats.
type Stats struct {
	Namespace  string         `json:"namespace"`
	Episodes   int            `json:"episodes"`
	Memories   int            `json:"memories"`
	Versions   map[string]int `json:"versions" nullable:"false" doc:"Versions by status."`
	Admissions int            `json:"admissions"`
	Traces     int            `json:"traces" doc:"Retrieval traces kept."`
	Indexed    int            `json:"indexed" doc:"Documents in the namespace's search index."`
	Writes     []Bucket       `json:"writes" nullable:"false" doc:"Versions recorded per UTC day, oldest first."`
	Retrievals []Bucket       `json:"retrievals" nullable:"false" doc:"Retrievals per hour, oldest first, with their p95 latency."`
	P95Ms      float64        `json:"p95_ms" doc:"95th percentile retrieval latency over the hours asked for, in milliseconds (0: none)."`
	Truncated  bool           `json:"truncated" doc:"A window held more rows than are counted (20,000 each); the newest were counted."`
}

// Bucket is one period of a Stats chart.
type Bucket struct {
	Start time.Time `json:"start" doc:"The period's start (UTC)."`
	Count int       `json:"count"`
	P95Ms float64   `json:"p95_ms,omitempty" doc:"Retrievals: the period's 95th percentile latency in milliseconds."`
}

// Caller is the body of GET /v1/caller: who the presented key is and what
// it may do.
type Caller struct {
	Namespace string   `json:"namespace" doc:"The namespace the key acts in."`
	Role      string   `json:"role" doc:"reader, writer or admin."`
	KeyID     string   `json:"key_id,omitempty" doc:"The key's id; absent in open mode."`
	OpenMode  bool     `json:"open_mode" doc:"No API key is configured: the server answers loopback clients without one, as admin."`
	Allowed   []string `json:"allowed" nullable:"false" doc:"Every operation (METHOD /path) this caller may call."`
}

// NamespaceList is the body of GET /v1/namespaces: the namespaces the
// caller may name. An admin key or open mode sees every namespace the
// store holds; a reader or writer key only its own.
type NamespaceList struct {
	Namespaces []string `json:"namespaces" nullable:"false" doc:"Namespace names, sorted; the caller's own is always among them."`
	Current    string   `json:"current" doc:"The namespace this request acted in."`
	All        bool     `json:"all" doc:"Every namespace the store holds is listed (admin key or open mode); false: only the caller's own."`
}

// Reports is the body of GET /v1/reports: the last lifecycle, consolidation
// and procedure report run through this API in the namespace, kept in the
// serving process's memory only (a restart forgets them; nothing is
// written to the store). Absent: none since the process started.
type Reports struct {
	Lifecycle     *LifecycleRun     `json:"lifecycle,omitempty" doc:"The last POST /v1/lifecycle/run (lifecycle, and dedupe when asked)."`
	Consolidation *ConsolidationRun `json:"consolidation,omitempty" doc:"The last POST /v1/sessions/{id}/consolidate."`
	Procedures    *ProcedureRun     `json:"procedures,omitempty" doc:"The last POST /v1/procedures/promote."`
}

// LifecycleRun is one kept lifecycle report.
type LifecycleRun struct {
	At     time.Time            `json:"at" doc:"When it finished."`
	DryRun bool                 `json:"dry_run" doc:"It only said what it would change."`
	Report LifecycleRunResponse `json:"report"`
}

// ConsolidationRun is one kept consolidation report.
type ConsolidationRun struct {
	At        time.Time           `json:"at" doc:"When it finished."`
	SessionID string              `json:"session_id" doc:"The session consolidated."`
	Report    ConsolidateResponse `json:"report"`
}

// ProcedureRun is one kept procedure promotion report.
type ProcedureRun struct {
	At     time.Time       `json:"at" doc:"When it finished."`
	Report ProcedureReport `json:"report"`
}
