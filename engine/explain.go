package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// Explanation says why mnemon holds a memory and how its standing moved,
// or why a retrieval ranked what it did. Exactly one of Memory and
// Retrieval is set.
type Explanation struct {
	Memory    *MemoryExplanation    `json:"memory,omitempty"`
	Retrieval *RetrievalExplanation `json:"retrieval,omitempty"`
}

// MemoryExplanation explains a memory: every version, why it was stored,
// what replaced it and how feedback moved it.
type MemoryExplanation struct {
	Memory *memory.Memory `json:"memory"`
	// Versions are oldest first.
	Versions []VersionExplanation `json:"versions"`
	// Chain follows superseded_by pointers from the first version (or the
	// version asked about) to the one that replaced it last, which may
	// belong to another memory (a merged duplicate).
	Chain    []string          `json:"chain"`
	Episodes []*memory.Episode `json:"episodes"`
}

// VersionExplanation is one version with the reasons behind it.
type VersionExplanation struct {
	Version *memory.Version `json:"version"` // without its embedding
	// Operation is the reconciliation operation that produced it (ADD,
	// SUPERSEDE, CONTEST) or last touched it (REINFORCE).
	Operation memory.Operation `json:"operation"`
	// Admissions are the admission decisions naming it, oldest first,
	// with their reason codes.
	Admissions []*memory.Admission `json:"admissions"`
	// Feedback is every outcome applied to it, oldest first, with the
	// usefulness and trust before and after.
	Feedback []*memory.Feedback `json:"feedback"`
	// Trust is what retrieval acts on now; Uncertainty how little the
	// outcomes so far settle it; Action what the agent is told.
	Trust       float64       `json:"trust"`
	Uncertainty float64       `json:"uncertainty"`
	Action      memory.Action `json:"action"`
	// Why says it in sentences.
	Why []string `json:"why"`
}

// RetrievalExplanation explains a retrieval: every candidate in final
// rank order, and the feedback it received.
type RetrievalExplanation struct {
	Trace    *memory.Trace      `json:"trace"`
	Items    []RankedItem       `json:"items"`
	Feedback []*memory.Feedback `json:"feedback"`
}

// RankedItem is one candidate of a retrieval and why it ranked there.
type RankedItem struct {
	Rank      int           `json:"rank"`
	MemoryID  string        `json:"memory_id"`
	VersionID string        `json:"version_id"`
	Packed    bool          `json:"packed"`
	Reason    string        `json:"reason"`
	Final     float64       `json:"final"`
	Trust     float64       `json:"trust"` // at the retrieval
	Action    memory.Action `json:"action"`
	// Uncertainty is the version's now (traces do not record it).
	Uncertainty float64 `json:"uncertainty"`
	Why         string  `json:"why"`
}

// Explain explains a memory (mem_…), one of its versions (ver_…) or a
// retrieval (ret_…).
func (e *Engine) Explain(ctx context.Context, ns, id string) (*Explanation, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("explain: %w", err)
	}
	switch {
	case ids.HasPrefix(id, ids.Retrieval):
		re, err := e.explainRetrieval(ctx, ns, id)
		if err != nil {
			return nil, fmt.Errorf("explain %s: %w", id, err)
		}
		return &Explanation{Retrieval: re}, nil
	case ids.HasPrefix(id, ids.Memory), ids.HasPrefix(id, ids.Version):
		me, err := e.explainMemory(ctx, ns, id)
		if err != nil {
			return nil, fmt.Errorf("explain %s: %w", id, err)
		}
		return &Explanation{Memory: me}, nil
	}
	return nil, fmt.Errorf("explain: %w", memory.Invalidf("id %q: use a memory (mem_…), version (ver_…) or retrieval (ret_…) id", id))
}

func (e *Engine) explainMemory(ctx context.Context, ns, id string) (*MemoryExplanation, error) {
	view, err := e.Show(ctx, ns, id)
	if err != nil {
		return nil, err
	}
	fbs, err := e.store.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: ns, MemoryID: view.Memory.ID})
	if err != nil {
		return nil, err
	}
	now := e.clock.Now()
	out := &MemoryExplanation{Memory: view.Memory, Versions: make([]VersionExplanation, 0, len(view.Versions)),
		Chain: []string{}, Episodes: view.Episodes}
	if out.Episodes == nil {
		out.Episodes = []*memory.Episode{}
	}
	for _, v := range view.Versions {
		pv := *v
		pv.Embedding = nil
		ve := VersionExplanation{Version: &pv, Operation: v.Operation, Admissions: []*memory.Admission{}, Feedback: []*memory.Feedback{}}
		// The log is newest first; explain reads oldest first.
		for i := len(view.Admissions) - 1; i >= 0; i-- {
			if a := view.Admissions[i]; a.VersionID == v.ID {
				ve.Admissions = append(ve.Admissions, a)
			}
		}
		for _, f := range fbs {
			if f.VersionID == v.ID {
				ve.Feedback = append(ve.Feedback, f)
			}
		}
		ve.Trust = round4(trustAt(v, now))
		ve.Uncertainty = uncertaintyOf(v)
		ve.Action = e.ranking.action(ve.Trust)
		ve.Why = whyStored(&ve)
		out.Versions = append(out.Versions, ve)
	}
	start := ""
	if ids.HasPrefix(id, ids.Version) {
		start = id
	} else if len(view.Versions) > 0 {
		start = view.Versions[0].ID
	}
	if start != "" {
		out.Chain, err = e.supersedeChain(ctx, ns, start)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// maxChain bounds how far supersedeChain follows pointers.
const maxChain = 100

// supersedeChain follows superseded_by from the version start.
func (e *Engine) supersedeChain(ctx context.Context, ns, start string) ([]string, error) {
	chain := []string{start}
	cur := start
	for len(chain) < maxChain {
		v, err := e.store.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: cur})
		if err != nil {
			if IsNotFound(err) {
				break // a pointer to a purged version ends the chain
			}
			return nil, err
		}
		if v.SupersededBy == "" || contains(chain, v.SupersededBy) {
			break
		}
		cur = v.SupersededBy
		chain = append(chain, cur)
	}
	return chain, nil
}

// whyStored says in sentences why a version is held and how it moved.
func whyStored(ve *VersionExplanation) []string {
	v := ve.Version
	why := []string{}
	switch v.Operation {
	case memory.OpAdd:
		why = append(why, "added as a new memory")
	case memory.OpSupersede:
		why = append(why, "superseded the previous value")
	case memory.OpContest:
		why = append(why, "contests another value of this memory (weak or conflicting evidence)")
	case memory.OpReinforce:
		why = append(why, "restated: reinforced by later evidence")
	}
	if len(v.EvidenceEpisodeIDs) > 0 {
		why = append(why, fmt.Sprintf("evidence: %s", strings.Join(v.EvidenceEpisodeIDs, ", ")))
	}
	for _, a := range ve.Admissions {
		line := fmt.Sprintf("%s %s [%s]", a.Decision, firstOp(a.Operation), strings.Join(a.Reasons, ", "))
		if a.Extractor == ChangeExtractor {
			// The statement that says the value changed, cited.
			line += ": " + a.Content
		}
		why = append(why, line)
	}
	if v.SupersededBy != "" {
		why = append(why, "superseded by "+v.SupersededBy)
	}
	for _, f := range ve.Feedback {
		s := fmt.Sprintf("%s from %s on %s: usefulness %.2f → %.2f, trust %.2f → %.2f", f.Outcome, f.Source, f.RetrievalID,
			f.UsefulnessBefore, f.UsefulnessAfter, f.TrustBefore, f.TrustAfter)
		switch {
		case f.Reinforced:
			s += " (reinforced)"
		case f.Outcome == memory.OutcomeHelpful && !f.Used:
			s += " (not used by the output: no reinforcement)"
		case f.Outcome == memory.OutcomeHelpful && !f.TaskSucceeded:
			s += " (task failed: no reinforcement)"
		case f.Outcome == memory.OutcomeHarmful:
			s += fmt.Sprintf(" (severity %.2f)", f.Severity)
		}
		if f.StatusAfter == memory.StatusExpired && f.UsefulnessAfter <= ExpireUsefulness {
			s += "; usefulness reached the floor: expired"
		}
		why = append(why, s)
	}
	why = append(why, fmt.Sprintf("now %s: trust %.2f, uncertainty %.2f, %s", v.Status, ve.Trust, ve.Uncertainty, ve.Action))
	return why
}

func firstOp(op memory.Operation) string {
	if op == "" {
		return "-"
	}
	return string(op)
}

func (e *Engine) explainRetrieval(ctx context.Context, ns, id string) (*RetrievalExplanation, error) {
	tr, err := e.Trace(ctx, ns, id)
	if err != nil {
		return nil, err
	}
	fbs, err := e.store.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: ns, RetrievalID: id})
	if err != nil {
		return nil, err
	}
	if fbs == nil {
		fbs = []*memory.Feedback{}
	}
	out := &RetrievalExplanation{Trace: tr, Items: make([]RankedItem, 0, len(tr.Items)), Feedback: fbs}
	var verIDs []string
	for _, it := range tr.Items {
		verIDs = append(verIDs, it.VersionID)
	}
	unc := map[string]float64{}
	if len(verIDs) > 0 {
		vs, err := e.store.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, IDs: verIDs, WithoutEmbeddings: true})
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			unc[v.ID] = uncertaintyOf(v)
		}
	}
	for _, it := range tr.Items {
		ri := RankedItem{Rank: it.Rank, MemoryID: it.MemoryID, VersionID: it.VersionID, Packed: it.Packed,
			Reason: it.Reason, Final: it.Final, Trust: it.Trust, Action: it.Action, Uncertainty: unc[it.VersionID],
			Why: it.Explanation}
		if ri.Why == "" {
			ri.Why = rankedWhy(it)
		}
		out.Items = append(out.Items, ri)
	}
	return out, nil
}

// rankedWhy rebuilds a short explanation of a candidate from its trace
// (the trace keeps a full one only for packed items).
func rankedWhy(it memory.TraceItem) string {
	var parts []string
	for _, name := range Channels {
		if h, ok := it.Channels.Get(name); ok {
			parts = append(parts, fmt.Sprintf("%s #%d (%.2f)", name, h.Rank, h.Score))
		}
	}
	var b strings.Builder
	b.WriteString("found by ")
	if len(parts) == 0 {
		// Added after the channels: a later turn that changed a top
		// one's value, a reply, or one of the user's limits.
		parts = append(parts, "no channel (added after them)")
	}
	b.WriteString(strings.Join(parts, ", "))
	fmt.Fprintf(&b, "; fused %.3f", it.Fused)
	for _, t := range it.Terms {
		fmt.Fprintf(&b, " %+.3f %s", t.Value, t.Name)
	}
	fmt.Fprintf(&b, " = %.3f; %s (trust %.2f)", it.Final, it.Action, it.Trust)
	if it.Packed {
		b.WriteString("; packed")
	} else {
		b.WriteString("; not packed: " + it.Reason)
	}
	return b.String()
}
