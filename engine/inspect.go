package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// The inspector's reads: a namespace's versions a page at a time and its
// admission log, for people looking at what an agent remembers.

// MaxPage is the most versions or admissions one page holds.
const MaxPage = 500

// PageParams filters and pages versions (see memory.PageVersionsParams);
// Cursor is the NextCursor of the previous page.
type PageParams struct {
	memory.PageVersionsParams
	Cursor string
}

// VersionPage is one page of versions, newest first.
type VersionPage struct {
	Versions []*memory.Version
	// NextCursor continues after this page; "" when it is the last.
	NextCursor string
}

// PageVersions returns one page of the namespace's versions, newest first.
func (e *Engine) PageVersions(ctx context.Context, p PageParams) (*VersionPage, error) {
	ns, err := checkNamespace(p.Namespace)
	if err != nil {
		return nil, fmt.Errorf("page versions: %w", err)
	}
	q := p.PageVersionsParams
	q.Namespace = ns
	if q.Limit < 1 || q.Limit > MaxPage {
		return nil, memory.Invalidf("limit %d: use 1 to %d", q.Limit, MaxPage)
	}
	if p.Cursor != "" {
		if q.After, err = ParseCursor(p.Cursor); err != nil {
			return nil, err
		}
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return nil, memory.Invalidf("since %s is not before until %s", q.Since.Format(time.RFC3339), q.Until.Format(time.RFC3339))
	}
	// One more than asked says whether another page follows without a
	// second query.
	want := q.Limit
	q.Limit++
	vs, err := e.store.PageVersions(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("page versions: %w", err)
	}
	out := &VersionPage{Versions: vs}
	if len(vs) > want {
		out.Versions = vs[:want]
		last := out.Versions[want-1]
		out.NextCursor = FormatCursor(memory.VersionCursor{RecordedAt: last.RecordedAt, ID: last.ID})
	}
	return out, nil
}

// FormatCursor writes a page position as an opaque token:
// recorded_at in unix nanoseconds, a dot, the version id.
func FormatCursor(c memory.VersionCursor) string {
	return strconv.FormatInt(c.RecordedAt.UnixNano(), 36) + "." + c.ID
}

// ParseCursor reads FormatCursor's token.
func ParseCursor(s string) (*memory.VersionCursor, error) {
	at, id, ok := strings.Cut(s, ".")
	n, err := strconv.ParseInt(at, 36, 64)
	if !ok || err != nil || id == "" {
		return nil, memory.Invalidf("cursor %q is not one a page returned; start again without it", s)
	}
	return &memory.VersionCursor{RecordedAt: time.Unix(0, n).UTC(), ID: id}, nil
}

// AdmissionsParams lists the admission log, newest first.
type AdmissionsParams struct {
	Namespace string
	Decision  memory.AdmissionDecision // "": every decision
	Limit     int                      // 1 to MaxPage
}

// Admissions lists the namespace's admission decisions, newest first:
// what the write path kept, deferred, rejected or quarantined, and why.
func (e *Engine) Admissions(ctx context.Context, p AdmissionsParams) ([]*memory.Admission, error) {
	ns, err := checkNamespace(p.Namespace)
	if err != nil {
		return nil, fmt.Errorf("admissions: %w", err)
	}
	if p.Limit < 1 || p.Limit > MaxPage {
		return nil, memory.Invalidf("limit %d: use 1 to %d", p.Limit, MaxPage)
	}
	switch p.Decision {
	case "", memory.AdmitAccept, memory.AdmitDefer, memory.AdmitReject, memory.AdmitQuarantine:
	default:
		return nil, memory.Invalidf("decision %q: use accept, defer, reject or quarantine", p.Decision)
	}
	as, err := e.store.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns, Decision: p.Decision, Limit: p.Limit})
	if err != nil {
		return nil, fmt.Errorf("admissions: %w", err)
	}
	return as, nil
}
