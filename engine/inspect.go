package engine

import (
	"context"
	"fmt"
	"slices"
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
	if err := oneOf("kind", q.Kinds, memory.KindEpisodic, memory.KindSemantic, memory.KindProcedural); err != nil {
		return nil, err
	}
	if err := oneOf("type", q.Types, memory.TypeFact, memory.TypePreference, memory.TypeDecision, memory.TypeConstraint,
		memory.TypeGoal, memory.TypeLesson, memory.TypeProcedure, memory.TypeSummary, memory.TypeEvent); err != nil {
		return nil, err
	}
	if err := oneOf("status", q.Statuses, memory.StatusCandidate, memory.StatusActive, memory.StatusSuperseded, memory.StatusContested,
		memory.StatusExpired, memory.StatusDeleted, memory.StatusQuarantined); err != nil {
		return nil, err
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

// oneOf refuses a filter value that names nothing: a misspelt status
// must not look like an empty namespace.
func oneOf[T ~string](field string, got []T, known ...T) error {
	for _, g := range got {
		if !slices.Contains(known, g) {
			names := make([]string, len(known))
			for i, k := range known {
				names[i] = string(k)
			}
			return memory.Invalidf("%s %q: use %s", field, g, strings.Join(names, ", "))
		}
	}
	return nil
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

// ActivityParams asks for a namespace's recent activity.
type ActivityParams struct {
	Namespace string
	Now       time.Time
	Days      int // memories written per day over this many days (1-90)
	Hours     int // retrievals per hour over this many hours (1-168)
}

// Activity is what a namespace holds and what it did lately: the
// inspector's charts.
type Activity struct {
	StatsResult
	// Writes counts the versions recorded each UTC day, oldest first,
	// one entry per day of the window.
	Writes []Bucket
	// Retrievals counts the retrievals each hour, oldest first, one entry
	// per hour of the window, with their latency.
	Retrievals []Bucket
	// P95Micros is the 95th percentile retrieval latency over the hours
	// window (0 with no retrieval).
	P95Micros int64
	// Truncated says a window held more rows than were read (the newest
	// were counted).
	Truncated bool
}

// Bucket is one period of a chart.
type Bucket struct {
	Start     time.Time
	Count     int
	P95Micros int64 // retrievals only
}

// activityRows bounds the rows one Activity call reads per chart.
const activityRows = 20000

// Activity counts a namespace's rows and its recent writes and retrievals.
func (e *Engine) Activity(ctx context.Context, p ActivityParams) (*Activity, error) {
	if p.Days < 1 || p.Days > 90 || p.Hours < 1 || p.Hours > 168 {
		return nil, memory.Invalidf("days %d, hours %d: use 1 to 90 days and 1 to 168 hours", p.Days, p.Hours)
	}
	ns, err := checkNamespace(p.Namespace)
	if err != nil {
		return nil, fmt.Errorf("activity: %w", err)
	}
	st, err := e.Stats(ctx, ns)
	if err != nil {
		return nil, err
	}
	out := &Activity{StatsResult: *st}
	if p.Now.IsZero() {
		p.Now = e.clock.Now()
	}
	now := p.Now.UTC()

	day := now.Truncate(24*time.Hour).AddDate(0, 0, -(p.Days - 1))
	out.Writes = make([]Bucket, p.Days)
	for i := range out.Writes {
		out.Writes[i].Start = day.AddDate(0, 0, i)
	}
	// Versions newest first from the window's start, a page at a time.
	q := memory.PageVersionsParams{Namespace: ns, Since: day, Limit: 2000}
	read := 0
	for read < activityRows {
		vs, err := e.store.PageVersions(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("activity: %w", err)
		}
		for _, v := range vs {
			if i := int(v.RecordedAt.Sub(day) / (24 * time.Hour)); i >= 0 && i < len(out.Writes) {
				out.Writes[i].Count++
			}
		}
		read += len(vs)
		if len(vs) < q.Limit {
			break
		}
		last := vs[len(vs)-1]
		q.After = &memory.VersionCursor{RecordedAt: last.RecordedAt, ID: last.ID}
		if read >= activityRows {
			out.Truncated = true
		}
	}

	hour := now.Truncate(time.Hour).Add(-time.Duration(p.Hours-1) * time.Hour)
	out.Retrievals = make([]Bucket, p.Hours)
	lat := make([][]int64, p.Hours)
	for i := range out.Retrievals {
		out.Retrievals[i].Start = hour.Add(time.Duration(i) * time.Hour)
	}
	trs, err := e.store.ListTraces(ctx, memory.ListTracesParams{Namespace: ns, Since: hour, Limit: activityRows + 1, WithoutItems: true})
	if err != nil {
		return nil, fmt.Errorf("activity: %w", err)
	}
	if len(trs) > activityRows {
		trs, out.Truncated = trs[:activityRows], true
	}
	var all []int64
	for _, tr := range trs {
		if i := int(tr.CreatedAt.Sub(hour) / time.Hour); i >= 0 && i < len(lat) {
			out.Retrievals[i].Count++
			lat[i] = append(lat[i], tr.DurationMicros)
			all = append(all, tr.DurationMicros)
		}
	}
	for i := range lat {
		out.Retrievals[i].P95Micros = p95(lat[i])
	}
	out.P95Micros = p95(all)
	return out, nil
}

// p95 is the nearest-rank 95th percentile (0 for none).
func p95(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[(len(xs)*95+99)/100-1]
}
