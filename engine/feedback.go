package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// Outcome learning: feedback on a retrieval moves the usefulness and trust
// of the versions it served (and their reinforcement and failure
// counters), never their facts, validity or confidence.
//
//   - helpful: a reinforcement only when the agent's output used the memory
//     and the task succeeded: ReinforcementCount + 1 and usefulness moves
//     HelpfulGain of the way to 1. Used means, with the output given, that
//     the output holds every term of the memory's value or at least
//     UsedOverlap of the terms of its content (stemmed, stop words
//     dropped); without an output, that the caller named the memory in
//     memory_ids. Helpful but unused, or used by a failed task, changes
//     nothing (the event is still recorded).
//   - unused: usefulness loses UnusedLoss of itself.
//   - harmful: usefulness loses HarmfulLoss × severity of itself and
//     FailureCount + 1. When the output is given and shows the memory was
//     not used, the harm is not blamed on it.
//
// Trust then moves toward its new target by TrustEMA (trust.go), and a
// version whose usefulness falls to ExpireUsefulness or below is expired
// at once: out of retrieval, kept as history.
const (
	HelpfulGain      = 0.2
	UnusedLoss       = 0.05
	HarmfulLoss      = 0.5
	UsedOverlap      = 0.5
	ExpireUsefulness = 0.05
	// MaxFeedbackOutput bounds the output text measured for overlap.
	MaxFeedbackOutput = 256 << 10
)

// ErrNotInRetrieval means feedback named a memory the retrieval did not
// return. It wraps memory.ErrInvalid.
var ErrNotInRetrieval = fmt.Errorf("%w: not an item of the retrieval", memory.ErrInvalid)

// notInRetrieval is a memory_not_in_retrieval Error of kind ErrNotInRetrieval.
func notInRetrieval(format string, args ...any) error {
	return &memory.Error{Code: memory.CodeNotInRetrieval, Field: "memory_ids", Kind: ErrNotInRetrieval, Message: fmt.Sprintf(format, args...)}
}

// FeedbackParams is one judgement of a retrieval's items.
type FeedbackParams struct {
	Namespace   string
	RetrievalID string
	Outcome     memory.FeedbackOutcome
	// MemoryIDs names the items judged, by memory (mem_…) or version
	// (ver_…) id; each must be an item the retrieval returned. Empty: every
	// item it returned.
	MemoryIDs []string
	// Severity weighs a harmful outcome, 0 to 1; nil means 1. Other
	// outcomes record it and ignore it.
	Severity *float64
	// Source says who judged; "" means agent.
	Source memory.FeedbackSource
	// Output is the agent's output; when set, use is measured by overlap.
	Output string
	// TaskSucceeded says whether the task succeeded; nil means it did.
	TaskSucceeded *bool
}

// FeedbackResult lists what a feedback did to each item it judged.
type FeedbackResult struct {
	RetrievalID string `json:"retrieval_id"`
	// Applied are the events recorded now, one per version judged.
	Applied []*memory.Feedback `json:"applied"`
	// Duplicates are the versions this source had already judged so for
	// this retrieval: the repeat changed nothing.
	Duplicates []string `json:"duplicates"`
	// Gone are versions the retrieval served that the store no longer
	// holds (history pruned by compaction, an episode purged): nothing
	// left to learn about them.
	Gone []string `json:"gone,omitempty"`
}

func validateFeedback(p *FeedbackParams) error {
	if strings.TrimSpace(p.RetrievalID) == "" {
		return memory.Invalidf("retrieval id is empty; name a retrieval (ret_…) a recall returned (a recall of a namespace that held nothing returns none: it retrieved nothing to rate)")
	}
	if !p.Outcome.Valid() {
		return memory.FieldInvalidf(memory.CodeInvalidOutcome, "outcome", "outcome %q: use helpful, unused or harmful", p.Outcome)
	}
	if p.Source == "" {
		p.Source = memory.SourceAgent
	}
	if !p.Source.Valid() {
		return memory.FieldInvalidf(memory.CodeInvalidSource, "source", "source %q: use user, agent, tool or evaluator", p.Source)
	}
	if p.Severity != nil && (math.IsNaN(*p.Severity) || *p.Severity < 0 || *p.Severity > 1) {
		return memory.FieldInvalidf(memory.CodeInvalidSeverity, "severity", "severity %g: use a number from 0 to 1", *p.Severity)
	}
	if len(p.Output) > MaxFeedbackOutput {
		return memory.Invalidf("output is %d bytes; the limit is %d", len(p.Output), MaxFeedbackOutput)
	}
	for _, id := range p.MemoryIDs {
		if !ids.HasPrefix(id, ids.Memory) && !ids.HasPrefix(id, ids.Version) {
			return memory.Invalidf("memory id %q: use a memory (mem_…) or version (ver_…) id of the retrieval's items", id)
		}
	}
	return nil
}

// Feedback applies an outcome to the items of a retrieval. It is
// idempotent per (retrieval, version, source, outcome): repeating it
// changes nothing and lists the versions as duplicates. An unknown
// retrieval, or one of another namespace, is memory.ErrNotFound; a memory
// the retrieval did not return is ErrNotInRetrieval. Bad input writes
// nothing.
func (e *Engine) Feedback(ctx context.Context, p FeedbackParams) (*FeedbackResult, error) {
	ns, err := checkNamespace(p.Namespace)
	if err != nil {
		return nil, fmt.Errorf("feedback: %w", err)
	}
	if err := validateFeedback(&p); err != nil {
		return nil, fmt.Errorf("feedback: %w", err)
	}
	tr, err := e.Trace(ctx, ns, p.RetrievalID)
	if err != nil {
		return nil, fmt.Errorf("feedback: %w", err)
	}
	targets, err := feedbackTargets(tr, p.MemoryIDs)
	if err != nil {
		return nil, fmt.Errorf("feedback: %w", err)
	}
	severity := 0.0
	switch {
	case p.Severity != nil:
		severity = *p.Severity
	case p.Outcome == memory.OutcomeHarmful:
		severity = 1
	}
	succeeded := p.TaskSucceeded == nil || *p.TaskSucceeded
	var outTerms map[string]bool
	if p.Output != "" {
		outTerms = make(map[string]bool)
		for _, t := range e.analyzer.Terms(p.Output) {
			outTerms[t] = true
		}
	}

	st, unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("feedback: %w", err)
	}
	defer unlock()
	now := e.clock.Now()
	res := &FeedbackResult{RetrievalID: tr.ID}
	var changed []*memory.Version
	err = e.store.InTx(ctx, func(tx memory.Executor) error {
		res.Applied, res.Duplicates, res.Gone, changed = []*memory.Feedback{}, []string{}, nil, changed[:0]
		prior, err := tx.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: ns, RetrievalID: tr.ID})
		if err != nil {
			return err
		}
		for _, verID := range targets {
			if slices.ContainsFunc(prior, func(f *memory.Feedback) bool {
				return f.VersionID == verID && f.Source == p.Source && f.Outcome == p.Outcome
			}) {
				res.Duplicates = append(res.Duplicates, verID)
				continue
			}
			v, err := tx.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: verID})
			if errors.Is(err, memory.ErrNotFound) {
				res.Gone = append(res.Gone, verID)
				continue
			}
			if err != nil {
				return err
			}
			fb := &memory.Feedback{
				ID: ids.New(ids.Feedback), Namespace: ns, RetrievalID: tr.ID, MemoryID: v.MemoryID, VersionID: v.ID,
				Outcome: p.Outcome, Severity: severity, Source: p.Source, TaskSucceeded: succeeded,
				UsefulnessBefore: v.Usefulness, TrustBefore: v.Trust, CreatedAt: now,
			}
			if outTerms != nil {
				overlap, used := e.usedBy(v, outTerms)
				fb.Overlap, fb.Used = &overlap, used
			} else {
				fb.Used = len(p.MemoryIDs) > 0
			}
			if e.learn(v, fb, now) {
				if err := tx.UpdateVersionState(ctx, v); err != nil {
					return err
				}
				changed = append(changed, v)
			}
			fb.UsefulnessAfter, fb.TrustAfter, fb.StatusAfter = v.Usefulness, v.Trust, v.Status
			res.Applied = append(res.Applied, fb)
		}
		if len(res.Applied) == 0 {
			return nil
		}
		return tx.CreateFeedback(ctx, memory.CreateFeedbackParams{Namespace: ns, Feedback: res.Applied})
	})
	if err != nil {
		return nil, fmt.Errorf("feedback %s: %w", p.RetrievalID, err)
	}
	for _, v := range changed {
		st.UpdateState(v)
	}
	return res, nil
}

// feedbackTargets returns the version ids a feedback judges: the
// retrieval's packed items named by memory or version id, or all of them.
func feedbackTargets(tr *memory.Trace, named []string) ([]string, error) {
	var packed []memory.TraceItem
	for _, it := range tr.Items {
		if it.Packed {
			packed = append(packed, it)
		}
	}
	var out []string
	add := func(id string) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if len(named) == 0 {
		for _, it := range packed {
			add(it.VersionID)
		}
		if len(out) == 0 {
			return nil, memory.Invalidf("retrieval %s returned no items to judge", tr.ID)
		}
		return out, nil
	}
	for _, id := range named {
		found := false
		for _, it := range packed {
			if it.MemoryID == id || it.VersionID == id {
				add(it.VersionID)
				found = true
			}
		}
		if found {
			continue
		}
		if slices.ContainsFunc(tr.Items, func(it memory.TraceItem) bool { return it.MemoryID == id || it.VersionID == id }) {
			return nil, notInRetrieval("%s was a candidate of %s but was not returned", id, tr.ID)
		}
		return nil, notInRetrieval("%s is not among the items of %s", id, tr.ID)
	}
	return out, nil
}

// usedBy measures whether an output used a version: the share of the
// version's content terms found in it, and whether that share reaches
// UsedOverlap or the output holds every term of the version's value.
func (e *Engine) usedBy(v *memory.Version, out map[string]bool) (float64, bool) {
	terms := e.analyzer.QueryTerms(v.Content)
	hit := 0
	for _, t := range terms {
		if out[t] {
			hit++
		}
	}
	overlap := 0.0
	if len(terms) > 0 {
		overlap = round4(float64(hit) / float64(len(terms)))
	}
	if overlap >= UsedOverlap {
		return overlap, true
	}
	value := e.analyzer.QueryTerms(v.Value)
	if len(value) == 0 {
		return overlap, false
	}
	for _, t := range value {
		if !out[t] {
			return overlap, false
		}
	}
	return overlap, true
}

// learn applies one feedback event to v and reports whether v changed.
// Deleted, quarantined and candidate versions are not moved.
func (e *Engine) learn(v *memory.Version, fb *memory.Feedback, now time.Time) bool {
	if !v.Status.Live() && !v.Status.History() {
		return false
	}
	switch fb.Outcome {
	case memory.OutcomeHelpful:
		if !fb.Used || !fb.TaskSucceeded {
			return false
		}
		fb.Reinforced = true
		v.ReinforcementCount++
		v.Usefulness += HelpfulGain * (1 - v.Usefulness)
	case memory.OutcomeUnused:
		v.Usefulness -= UnusedLoss * v.Usefulness
	case memory.OutcomeHarmful:
		if fb.Overlap != nil && !fb.Used {
			return false // the output shows it did not act on this memory
		}
		v.FailureCount++
		v.Usefulness -= HarmfulLoss * fb.Severity * v.Usefulness
	}
	v.Usefulness = round4(clamp01(v.Usefulness))
	smoothTrust(v, now)
	v.Trust = round4(v.Trust)
	if v.Usefulness <= ExpireUsefulness && v.Status.Live() {
		v.Status = memory.StatusExpired
	}
	v.UpdatedAt = now
	return true
}
