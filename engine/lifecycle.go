package engine

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// Lifecycle policy (SPEC §4). The numbers are the spec's; they are
// constants rather than configuration because tests and explanations quote
// them.
const (
	// decayHalfLife is how long usefulness takes to move halfway back to
	// neutral (0.5) when nothing touches a version.
	decayHalfLife = 30 * 24 * time.Hour
	// decayQuiet is how long a version must be untouched before it decays:
	// feedback of the last day stands as given.
	decayQuiet = 24 * time.Hour
	// decaySnap is the distance from neutral under which usefulness is set
	// to exactly 0.5, so decay ends instead of writing ever smaller steps.
	decaySnap = 0.001
	// usefulnessFloor: a version this useless (harmful feedback) expires.
	usefulnessFloor = 0.05
	// contestMargin is the lead on usefulness + confidence by which one
	// side of a contest wins it.
	contestMargin = 0.15
	// marginEpsilon absorbs float rounding in the margin comparison: 0.65
	// + 0.5 - 1.0 is 0.1499999... in binary, and a lead of exactly the
	// margin wins.
	marginEpsilon = 1e-9
	// DefaultLifecycleLimit bounds the versions one run changes.
	DefaultLifecycleLimit = 1000
)

// Reason codes of the admission-log entries lifecycle and dedupe write.
const (
	ReasonExpiredValidTo    = "expired_valid_to"
	ReasonUsefulnessFloor   = "usefulness_floor"
	ReasonUsefulnessDecay   = "usefulness_decay"
	ReasonContestedResolved = "contested_resolved"
	ReasonDuplicateOf       = "duplicate_of"
)

// LifecycleParams runs the lifecycle policy over one namespace.
type LifecycleParams struct {
	Namespace string
	// DryRun reports what would change without writing anything.
	DryRun bool
	// Limit bounds how many versions one run changes (default
	// DefaultLifecycleLimit); the report says when more remains.
	Limit int
}

// LifecycleChange is one version a lifecycle or dedupe run changed.
type LifecycleChange struct {
	MemoryID  string        `json:"memory_id"`
	VersionID string        `json:"version_id"`
	Reason    string        `json:"reason"`
	From      memory.Status `json:"from"`
	To        memory.Status `json:"to"`
	// Detail says what moved, for people: "usefulness 0.900 → 0.700 after 30.0 days".
	Detail string `json:"detail"`
	// SupersededBy is the version that now stands for this one.
	SupersededBy string `json:"superseded_by,omitempty"`
}

// LifecycleReport says what one lifecycle run changed. A second run right
// after the first reports all zeros.
type LifecycleReport struct {
	Namespace string `json:"namespace"`
	DryRun    bool   `json:"dry_run"`
	// Expired counts versions past their valid_to, now expired.
	Expired int `json:"expired"`
	// Floored counts versions whose usefulness fell to the floor, now expired.
	Floored int `json:"floored"`
	// Decayed counts versions whose usefulness moved toward 0.5.
	Decayed int `json:"decayed"`
	// ContestsResolved counts contests one side won; each winner is
	// active and the other sides superseded by it.
	ContestsResolved int `json:"contests_resolved"`
	// More says the run stopped at its limit: run it again.
	More    bool              `json:"more"`
	Changes []LifecycleChange `json:"changes"`
}

// Changed counts the versions the run changed.
func (r *LifecycleReport) Changed() int { return len(r.Changes) }

// decayUsefulness moves u toward 0.5 with a 30-day half-life over dt.
func decayUsefulness(u float64, dt time.Duration) float64 {
	if dt <= 0 {
		return u
	}
	const neutral = memory.NeutralUsefulness
	d := neutral + (u-neutral)*math.Exp2(-float64(dt)/float64(decayHalfLife))
	if math.Abs(d-neutral) < decaySnap {
		return neutral
	}
	return d
}

// Lifecycle runs the lifecycle policy over a namespace's live versions,
// in this order:
//
//  1. expire versions past valid_to (kept as history: expired_valid_to);
//  2. expire versions whose usefulness is at or below 0.05
//     (usefulness_floor), before decay would lift them;
//  3. decay usefulness toward 0.5 with a 30-day half-life, measured from
//     the version's updated_at, skipping versions touched in the last 24
//     hours (usefulness_decay);
//  4. resolve contests: among a memory's live versions, when one leads
//     every other by at least 0.15 on usefulness + confidence, it becomes
//     active and the others superseded by it (contested_resolved).
//
// Every change is written with an admission-log entry (extractor
// "lifecycle") in one transaction, and the namespace index follows after
// commit; graph claims, projected from live versions, expire with them.
// The run is idempotent: each step leaves nothing the next run would
// change (a decayed version was just touched, so the next day's run skips
// it), and running it twice at once changes nothing the second time.
func (e *Engine) Lifecycle(ctx context.Context, p LifecycleParams) (*LifecycleReport, error) {
	ns, err := checkNamespace(p.Namespace)
	if err != nil {
		return nil, fmt.Errorf("lifecycle: %w", err)
	}
	if p.Limit < 0 {
		return nil, fmt.Errorf("lifecycle: %w", memory.Invalidf("limit %d: use 0 for the default or a positive number", p.Limit))
	}
	limit := p.Limit
	if limit == 0 {
		limit = DefaultLifecycleLimit
	}
	now := e.clock.Now()
	// Find the memories with something due without holding the
	// namespace's writer: only unsettled versions can be due (the store
	// keeps them in an index of their own), and writes need not wait for
	// the read. What it finds is read again under the lock.
	unsettled, err := e.store.ListUnsettledVersions(ctx, memory.ScanParams{Namespace: ns})
	if err != nil {
		return nil, fmt.Errorf("lifecycle: %w", err)
	}
	due, more := dueMemories(unsettled, now, limit)
	rep := &LifecycleReport{Namespace: ns, DryRun: p.DryRun, Changes: []LifecycleChange{}}
	if len(due) == 0 {
		return rep, nil
	}
	live := []memory.Status{memory.StatusActive, memory.StatusContested}
	// plan reads the due memories' live versions (settled ones too: a
	// floored version's memory may hold others) and applies the policy.
	plan := func(ex memory.Executor, rep *LifecycleReport) ([]*memory.Version, error) {
		var vs []*memory.Version
		for _, mid := range due {
			got, err := ex.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, MemoryID: mid, Statuses: live, WithoutEmbeddings: true})
			if err != nil {
				return nil, err
			}
			vs = append(vs, got...)
		}
		return planLifecycle(vs, now, limit, rep), nil
	}
	if p.DryRun {
		// Nothing is written: plan on what the store holds now, without
		// the lock.
		if _, err := plan(e.store, rep); err != nil {
			return nil, fmt.Errorf("lifecycle: %w", err)
		}
		rep.More = rep.More || more
		return rep, nil
	}
	st, unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("lifecycle: %w", err)
	}
	defer unlock()
	var changed []*memory.Version
	err = e.store.InTx(ctx, func(tx memory.Executor) error {
		rep = &LifecycleReport{Namespace: ns, Changes: []LifecycleChange{}}
		var err error
		if changed, err = plan(tx, rep); err != nil || len(changed) == 0 {
			return err
		}
		return e.writeChanges(ctx, tx, ns, "lifecycle", changed, rep.Changes, now)
	})
	if err != nil {
		return nil, fmt.Errorf("lifecycle: %w", err)
	}
	rep.More = rep.More || more
	for _, v := range changed {
		st.UpdateState(v)
	}
	return rep, nil
}

// dueMemories returns, in order of first appearance, the memories of which
// a live version is due for a lifecycle step: past valid_to, at the
// usefulness floor, due for decay, or in a contest one side leads by the
// margin. It returns at most limit (each due memory changes at least one
// version), and more when it left some out.
func dueMemories(vs []*memory.Version, now time.Time, limit int) (due []string, more bool) {
	seen := make(map[string]bool)
	add := func(mid string) bool {
		if seen[mid] {
			return true
		}
		if len(due) == limit {
			more = true
			return false
		}
		seen[mid] = true
		due = append(due, mid)
		return true
	}
	groups := make(map[string][]*memory.Version) // memories with a contested version
	for _, v := range vs {
		if v.Status == memory.StatusContested {
			groups[v.MemoryID] = nil
		}
	}
	for _, v := range vs {
		if _, ok := groups[v.MemoryID]; ok {
			groups[v.MemoryID] = append(groups[v.MemoryID], v)
		}
		if (v.ValidTo != nil && !v.ValidTo.After(now)) || v.Usefulness <= usefulnessFloor ||
			(v.Usefulness != memory.NeutralUsefulness && now.Sub(v.UpdatedAt) >= decayQuiet) {
			if !add(v.MemoryID) {
				return due, more
			}
		}
	}
	for _, v := range vs {
		g, ok := groups[v.MemoryID]
		if !ok || seen[v.MemoryID] {
			continue
		}
		if leader, lead := contestLeader(g); leader != nil && lead+marginEpsilon >= contestMargin {
			if !add(v.MemoryID) {
				return due, more
			}
		}
		delete(groups, v.MemoryID)
	}
	return due, more
}

// planLifecycle applies the policy to vs in memory and returns the versions
// it changed, recording each change in rep. It stops at limit changes.
func planLifecycle(vs []*memory.Version, now time.Time, limit int, rep *LifecycleReport) []*memory.Version {
	changed := planLifecycleSteps(vs, now, limit, rep)
	// Trust follows the changes (usefulness decayed, a contest lost) by
	// the smoothing step a feedback outcome takes, once per run however
	// many steps changed a version: one run can no more swing it than one
	// outcome can.
	for _, v := range changed {
		smoothTrust(v, now)
	}
	return changed
}

// planLifecycleSteps runs the policy's steps in order (see planLifecycle).
func planLifecycleSteps(vs []*memory.Version, now time.Time, limit int, rep *LifecycleReport) []*memory.Version {
	var changed []*memory.Version
	seen := make(map[string]bool)
	full := func() bool {
		if len(changed) >= limit {
			rep.More = true
			return true
		}
		return false
	}
	note := func(v *memory.Version, from memory.Status, reason, detail string) {
		rep.Changes = append(rep.Changes, LifecycleChange{
			MemoryID: v.MemoryID, VersionID: v.ID, Reason: reason, From: from, To: v.Status,
			Detail: detail, SupersededBy: v.SupersededBy,
		})
		v.UpdatedAt = now
		if !seen[v.ID] {
			seen[v.ID] = true
			changed = append(changed, v)
		}
	}
	// 1 and 2: expiry. A version that expires leaves the live set.
	live := vs[:0:0]
	for _, v := range vs {
		switch {
		case v.ValidTo != nil && !v.ValidTo.After(now):
			if full() {
				return changed
			}
			from := v.Status
			v.Status = memory.StatusExpired
			rep.Expired++
			note(v, from, ReasonExpiredValidTo, "valid until "+v.ValidTo.UTC().Format(time.RFC3339))
		case v.Usefulness <= usefulnessFloor:
			if full() {
				return changed
			}
			from := v.Status
			v.Status = memory.StatusExpired
			v.ValidTo = timePtr(now)
			rep.Floored++
			note(v, from, ReasonUsefulnessFloor, fmt.Sprintf("usefulness %.3f is at or below %.2f", v.Usefulness, usefulnessFloor))
		default:
			live = append(live, v)
		}
	}
	// 3: decay of versions untouched for a day.
	for _, v := range live {
		if v.Usefulness == 0.5 || now.Sub(v.UpdatedAt) < decayQuiet {
			continue
		}
		if full() {
			return changed
		}
		dt := now.Sub(v.UpdatedAt)
		from := v.Usefulness
		v.Usefulness = decayUsefulness(from, dt)
		rep.Decayed++
		note(v, v.Status, ReasonUsefulnessDecay, fmt.Sprintf("usefulness %.3f → %.3f after %.1f days untouched",
			from, v.Usefulness, dt.Hours()/24))
	}
	// 4: contests, per memory, over what is still live.
	byMemory := make(map[string][]*memory.Version)
	var order []string
	for _, v := range live {
		if _, ok := byMemory[v.MemoryID]; !ok {
			order = append(order, v.MemoryID)
		}
		byMemory[v.MemoryID] = append(byMemory[v.MemoryID], v)
	}
	for _, mid := range order {
		group := byMemory[mid]
		leader, lead := contestLeader(group)
		if leader == nil || lead+marginEpsilon < contestMargin {
			continue
		}
		if len(changed)+len(group) > limit {
			rep.More = true
			return changed
		}
		rep.ContestsResolved++
		for _, v := range group {
			if v == leader {
				continue
			}
			from := v.Status
			v.Status, v.SupersededBy = memory.StatusSuperseded, leader.ID
			if v.ValidTo == nil {
				v.ValidTo = timePtr(now)
			}
			note(v, from, ReasonContestedResolved, fmt.Sprintf("usefulness + confidence %.3f trails %s by %.3f",
				v.Usefulness+v.Confidence, leader.ID, leader.Usefulness+leader.Confidence-v.Usefulness-v.Confidence))
		}
		if leader.Status != memory.StatusActive {
			leader.Status = memory.StatusActive
			note(leader, memory.StatusContested, ReasonContestedResolved,
				fmt.Sprintf("usefulness + confidence %.3f leads by %.3f", leader.Usefulness+leader.Confidence, lead))
		}
	}
	return changed
}

// contestLeader returns, for a memory's live versions, the one with the
// highest usefulness + confidence and its lead over the runner-up. It
// returns nil unless the group is a contest: two or more live versions, at
// least one of them contested.
func contestLeader(group []*memory.Version) (*memory.Version, float64) {
	if len(group) < 2 {
		return nil, 0
	}
	contested := false
	for _, v := range group {
		contested = contested || v.Status == memory.StatusContested
	}
	if !contested {
		return nil, 0
	}
	sorted := append([]*memory.Version(nil), group...)
	sort.SliceStable(sorted, func(i, j int) bool {
		return sorted[i].Usefulness+sorted[i].Confidence > sorted[j].Usefulness+sorted[j].Confidence
	})
	first, second := sorted[0], sorted[1]
	return first, (first.Usefulness + first.Confidence) - (second.Usefulness + second.Confidence)
}

// writeChanges writes the versions a maintenance step changed and one
// admission-log entry per change, by the named extractor.
func (e *Engine) writeChanges(ctx context.Context, tx memory.Executor, ns, extractor string, vs []*memory.Version, changes []LifecycleChange, now time.Time) error {
	for _, v := range vs {
		if err := tx.UpdateVersionState(ctx, v); err != nil {
			return err
		}
	}
	adms := make([]*memory.Admission, 0, len(changes))
	for _, c := range changes {
		decision := memory.AdmitAccept // still served
		var op memory.Operation
		switch {
		case c.To == memory.StatusSuperseded:
			decision, op = memory.AdmitReject, memory.OpSupersede
		case !c.To.Live():
			decision = memory.AdmitReject
		case c.Reason == ReasonUsefulnessDecay:
			op = memory.OpNoop
		}
		adms = append(adms, &memory.Admission{
			ID: ids.New(ids.Admission), Namespace: ns, MemoryID: c.MemoryID, VersionID: c.VersionID,
			Decision: decision, Reasons: []string{c.Reason}, Operation: op,
			Content: c.Detail, Extractor: extractor, CreatedAt: now,
		})
	}
	return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: adms})
}
