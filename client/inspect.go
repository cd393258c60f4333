package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The inspector's reads: versions a page at a time, the admission log,
// jobs, activity and who the key is.

// VersionsOptions filters and pages ListVersions. Zero fields match
// everything.
type VersionsOptions struct {
	Kinds, Types, Statuses []string
	Subject                string
	AgentID, UserID        string
	ProjectID, SessionID   string
	Since, Until           time.Time // recorded_at in [Since, Until)
	Text                   string    // content contains it, case-insensitively
	Cursor                 string    // the previous page's NextCursor
	Limit                  int       // 1-500; 0: the server's default, 50
}

// VersionPage is one page of versions, newest first.
type VersionPage struct {
	Versions   []*Version `json:"versions"`
	NextCursor string     `json:"next_cursor,omitempty"` // "" on the last page
}

// ListVersions pages through the namespace's versions, newest first (GET
// /v1/versions).
func (c *Client) ListVersions(ctx context.Context, opts VersionsOptions) (*VersionPage, error) {
	q := url.Values{}
	set := func(name, v string) {
		if v != "" {
			q.Set(name, v)
		}
	}
	set("kind", strings.Join(opts.Kinds, ","))
	set("type", strings.Join(opts.Types, ","))
	set("status", strings.Join(opts.Statuses, ","))
	set("subject", opts.Subject)
	set("agent_id", opts.AgentID)
	set("user_id", opts.UserID)
	set("project_id", opts.ProjectID)
	set("session_id", opts.SessionID)
	set("q", opts.Text)
	set("cursor", opts.Cursor)
	if !opts.Since.IsZero() {
		q.Set("since", opts.Since.UTC().Format(time.RFC3339Nano))
	}
	if !opts.Until.IsZero() {
		q.Set("until", opts.Until.UTC().Format(time.RFC3339Nano))
	}
	if opts.Limit != 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	return doJSON[VersionPage](ctx, c, call{method: http.MethodGet, path: "/v1/versions", query: q, retry: true})
}

// AdmissionList is the admission log, newest first.
type AdmissionList struct {
	Admissions []*Admission `json:"admissions"`
}

// ListAdmissions lists admission decisions, newest first (GET
// /v1/admissions); decision "" lists every one, limit 0 the default (100).
func (c *Client) ListAdmissions(ctx context.Context, decision string, limit int) (*AdmissionList, error) {
	q := url.Values{}
	if decision != "" {
		q.Set("decision", decision)
	}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	return doJSON[AdmissionList](ctx, c, call{method: http.MethodGet, path: "/v1/admissions", query: q, retry: true})
}

// JobList is the namespace's jobs, newest first.
type JobList struct {
	Jobs []*Job `json:"jobs"`
}

// ListJobs lists the namespace's background jobs, newest first (GET
// /v1/jobs); state "" lists every state, limit 0 the default (50).
func (c *Client) ListJobs(ctx context.Context, state string, limit int) (*JobList, error) {
	q := url.Values{}
	if state != "" {
		q.Set("state", state)
	}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	return doJSON[JobList](ctx, c, call{method: http.MethodGet, path: "/v1/jobs", query: q, retry: true})
}

// RetryJob runs a failed job again (POST /v1/jobs/{id}/retry; admin).
func (c *Client) RetryJob(ctx context.Context, id string) (*Job, error) {
	if err := needID("RetryJob", id); err != nil {
		return nil, err
	}
	return doJSON[Job](ctx, c, call{method: http.MethodPost, path: pathf("/v1/jobs/%s/retry", id)})
}

// Stats is what a namespace holds and did lately.
type Stats struct {
	Namespace  string         `json:"namespace"`
	Episodes   int            `json:"episodes"`
	Memories   int            `json:"memories"`
	Versions   map[string]int `json:"versions"` // by status
	Admissions int            `json:"admissions"`
	Traces     int            `json:"traces"`
	Indexed    int            `json:"indexed"`
	Writes     []Bucket       `json:"writes"`     // versions per UTC day
	Retrievals []Bucket       `json:"retrievals"` // per hour
	P95Ms      float64        `json:"p95_ms"`
	Truncated  bool           `json:"truncated"`
}

// Bucket is one period of a Stats chart.
type Bucket struct {
	Start time.Time `json:"start"`
	Count int       `json:"count"`
	P95Ms float64   `json:"p95_ms,omitempty"`
}

// Stats counts the namespace's rows, its writes per day over days and its
// retrievals per hour over hours (GET /v1/stats; 0 takes the defaults, 30
// days and 24 hours).
func (c *Client) Stats(ctx context.Context, days, hours int) (*Stats, error) {
	q := url.Values{}
	if days != 0 {
		q.Set("days", strconv.Itoa(days))
	}
	if hours != 0 {
		q.Set("hours", strconv.Itoa(hours))
	}
	return doJSON[Stats](ctx, c, call{method: http.MethodGet, path: "/v1/stats", query: q, retry: true})
}

// Caller is who the client's key is and what it may call.
type Caller struct {
	Namespace string   `json:"namespace"`
	Role      string   `json:"role"`
	KeyID     string   `json:"key_id,omitempty"`
	OpenMode  bool     `json:"open_mode"`
	Allowed   []string `json:"allowed"` // "METHOD /path"
}

// Caller says who the key is (GET /v1/caller).
func (c *Client) Caller(ctx context.Context) (*Caller, error) {
	return doJSON[Caller](ctx, c, call{method: http.MethodGet, path: "/v1/caller", retry: true})
}

// NamespaceList is the namespaces a caller may look at: every one the store
// holds for an admin key or in open mode (All), the key's own otherwise.
type NamespaceList struct {
	Namespaces []string `json:"namespaces"`
	Current    string   `json:"current"`
	All        bool     `json:"all"`
}

// Namespaces lists the namespaces the caller may look at (GET
// /v1/namespaces). A key still acts in its own namespace only.
func (c *Client) Namespaces(ctx context.Context) (*NamespaceList, error) {
	return doJSON[NamespaceList](ctx, c, call{method: http.MethodGet, path: "/v1/namespaces", retry: true})
}

// Reports are the last maintenance reports run through the API in the
// namespace, kept in the server process's memory only (nil: none since it
// started).
type Reports struct {
	Lifecycle     *LifecycleRun     `json:"lifecycle,omitempty"`
	Consolidation *ConsolidationRun `json:"consolidation,omitempty"`
	Procedures    *ProcedureRun     `json:"procedures,omitempty"`
}

// LifecycleRun is a kept lifecycle report.
type LifecycleRun struct {
	At     time.Time            `json:"at"`
	DryRun bool                 `json:"dry_run"`
	Report LifecycleRunResponse `json:"report"`
}

// ConsolidationRun is a kept consolidation report.
type ConsolidationRun struct {
	At        time.Time           `json:"at"`
	SessionID string              `json:"session_id"`
	Report    ConsolidateResponse `json:"report"`
}

// ProcedureRun is a kept procedure promotion report.
type ProcedureRun struct {
	At     time.Time       `json:"at"`
	Report ProcedureReport `json:"report"`
}

// Reports returns the namespace's last maintenance reports (GET
// /v1/reports).
func (c *Client) Reports(ctx context.Context) (*Reports, error) {
	return doJSON[Reports](ctx, c, call{method: http.MethodGet, path: "/v1/reports", retry: true})
}
