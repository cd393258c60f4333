// Package wireconv converts mnemon's domain values (memory, engine, jobs)
// to the HTTP API's wire types (httpapi/wire), field for field, at the edge
// of the transports that speak that format: the HTTP server and the MCP
// tools. The domain types stay free to change; a change of the wire format
// is a change to package wire, and shows in the OpenAPI document.
package wireconv

import (
	"math"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi/wire"
	"github.com/mnemon-dev/mnemon/jobs"
	"github.com/mnemon-dev/mnemon/memory"
)

// Versions converts versions, dropping their embeddings (the wire has no
// field for them).
func Versions(vs []*memory.Version) []*wire.Version { return each(vs, Version) }

// Procedures converts procedures.
func Procedures(ps []*engine.Procedure) []*wire.Procedure { return each(ps, Procedure) }

// each converts a slice of pointers; nil stays nil (null on the wire) and
// empty stays empty ([]).
func each[D, W any](xs []*D, conv func(*D) *W) []*W {
	if xs == nil {
		return nil
	}
	out := make([]*W, len(xs))
	for i, x := range xs {
		out[i] = conv(x)
	}
	return out
}

// eachValue converts a slice of values, keeping nil and empty apart as
// each does.
func eachValue[D, W any](xs []D, conv func(D) W) []W {
	if xs == nil {
		return nil
	}
	out := make([]W, len(xs))
	for i, x := range xs {
		out[i] = conv(x)
	}
	return out
}

// channelHits writes a candidate's channels as the map the wire shows
// ({"lexical": {"rank", "score"}}); nil stays nil.
func channelHits(hs memory.ChannelHits) map[string]wire.ChannelHit {
	if hs == nil {
		return nil
	}
	out := make(map[string]wire.ChannelHit, len(hs))
	for _, h := range hs {
		out[h.Channel] = wire.ChannelHit{Rank: h.Rank, Score: finite(h.Score)}
	}
	return out
}

// terms writes a candidate's utility terms as a map by name; nil stays nil.
func terms(ts memory.Terms) map[string]float64 {
	if ts == nil {
		return nil
	}
	out := make(map[string]float64, len(ts))
	for _, t := range ts {
		out[t.Name] = finite(t.Value)
	}
	return out
}

// finite is f, or 0 for NaN and the infinities.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func traceItems(ts memory.TraceItems) []wire.TraceItem { return eachValue(ts, traceItemValue) }

// Version converts a memory.Version; nil stays nil.
func Version(x *memory.Version) *wire.Version {
	if x == nil {
		return nil
	}
	v := versionValue(*x)
	return &v
}

func versionValue(x memory.Version) wire.Version {
	return wire.Version{
		ID:                 x.ID,
		MemoryID:           x.MemoryID,
		Namespace:          x.Namespace,
		Seq:                x.Seq,
		Scope:              scopeValue(x.Scope),
		Kind:               string(x.Kind),
		Type:               string(x.Type),
		Subject:            x.Subject,
		Key:                x.Key,
		Value:              x.Value,
		Content:            x.Content,
		Criticality:        string(x.Criticality),
		Confidence:         x.Confidence,
		Usefulness:         x.Usefulness,
		Trust:              x.Trust,
		ReinforcementCount: x.ReinforcementCount,
		FailureCount:       x.FailureCount,
		Status:             string(x.Status),
		Operation:          string(x.Operation),
		SupersededBy:       x.SupersededBy,
		ObservedAt:         x.ObservedAt,
		RecordedAt:         x.RecordedAt,
		ValidFrom:          x.ValidFrom,
		ValidTo:            x.ValidTo,
		UpdatedAt:          x.UpdatedAt,
		EvidenceEpisodeIDs: x.EvidenceEpisodeIDs,
		EvidenceSpans:      eachValue(x.EvidenceSpans, spanValue),
		Provenance:         provenanceValue(x.Provenance),
		Tokens:             x.Tokens,
		SearchText:         x.SearchText,
	}
}

// MemoryView converts an engine.MemoryView; nil stays nil.
func MemoryView(x *engine.MemoryView) *wire.MemoryView {
	if x == nil {
		return nil
	}
	v := memoryViewValue(*x)
	return &v
}

func memoryViewValue(x engine.MemoryView) wire.MemoryView {
	return wire.MemoryView{
		Memory:     Memory(x.Memory),
		Versions:   each(x.Versions, Version),
		Admissions: each(x.Admissions, Admission),
		Episodes:   each(x.Episodes, Episode),
		Episode:    Episode(x.Episode),
	}
}

// ForgetResult converts an engine.ForgetResult; nil stays nil.
func ForgetResult(x *engine.ForgetResult) *wire.ForgetResult {
	if x == nil {
		return nil
	}
	v := forgetResultValue(*x)
	return &v
}

func forgetResultValue(x engine.ForgetResult) wire.ForgetResult {
	return wire.ForgetResult{
		MemoryID: x.MemoryID,
		Versions: x.Versions,
		Episodes: x.Episodes,
	}
}

// Trace converts a memory.Trace; nil stays nil.
func Trace(x *memory.Trace) *wire.Trace {
	if x == nil {
		return nil
	}
	v := traceValue(*x)
	return &v
}

func traceValue(x memory.Trace) wire.Trace {
	return wire.Trace{
		ID:             x.ID,
		Namespace:      x.Namespace,
		Query:          x.Query,
		Scope:          scopeValue(x.Scope),
		TaskType:       x.TaskType,
		Limit:          x.Limit,
		TokenBudget:    x.TokenBudget,
		TokensUsed:     x.TokensUsed,
		AsOf:           x.AsOf,
		KnownAt:        x.KnownAt,
		IncludeHistory: x.IncludeHistory,
		Items:          traceItems(x.Items),
		CreatedAt:      x.CreatedAt,
		DurationMicros: x.DurationMicros,
		Notes:          x.Notes,
		Models:         modelUsages(x.Models),
	}
}

func modelUsages(ms []memory.ModelUsage) []wire.ModelCalls { return eachValue(ms, modelUsageValue) }

func modelUsageValue(x memory.ModelUsage) wire.ModelCalls {
	return wire.ModelCalls{
		Model:          x.Model,
		Endpoint:       x.Endpoint,
		Calls:          x.Calls,
		Errors:         x.Errors,
		TokensIn:       x.TokensIn,
		TokensOut:      x.TokensOut,
		DurationMicros: x.DurationMicros,
	}
}

// Job converts a jobs.Job; nil stays nil.
func Job(x *jobs.Job) *wire.Job {
	if x == nil {
		return nil
	}
	v := jobValue(*x)
	return &v
}

func jobValue(x jobs.Job) wire.Job {
	return wire.Job{
		ID:          x.ID,
		Kind:        x.Kind,
		Namespace:   x.Namespace,
		State:       x.State,
		Attempt:     x.Attempt,
		MaxAttempts: x.MaxAttempts,
		Error:       x.Error,
		CreatedAt:   x.CreatedAt,
		ScheduledAt: x.ScheduledAt,
		FinishedAt:  x.FinishedAt,
	}
}

// ExportStats converts an engine.ExportStats; nil stays nil.
func ExportStats(x *engine.ExportStats) *wire.ExportStats {
	if x == nil {
		return nil
	}
	v := exportStatsValue(*x)
	return &v
}

func exportStatsValue(x engine.ExportStats) wire.ExportStats {
	return wire.ExportStats{
		Memories:         x.Memories,
		Versions:         x.Versions,
		Episodes:         x.Episodes,
		Admissions:       x.Admissions,
		Traces:           x.Traces,
		Feedback:         x.Feedback,
		SessionSummaries: x.SessionSummaries,
		EpisodeStubs:     x.EpisodeStubs,
		ProcedureUses:    x.ProcedureUses,
		Extracted:        x.Extracted,
	}
}

// FeedbackResult converts an engine.FeedbackResult; nil stays nil.
func FeedbackResult(x *engine.FeedbackResult) *wire.FeedbackResult {
	if x == nil {
		return nil
	}
	v := feedbackResultValue(*x)
	return &v
}

func feedbackResultValue(x engine.FeedbackResult) wire.FeedbackResult {
	return wire.FeedbackResult{
		RetrievalID: x.RetrievalID,
		Applied:     each(x.Applied, Feedback),
		Duplicates:  x.Duplicates,
		Gone:        x.Gone,
	}
}

// Explanation converts an engine.Explanation; nil stays nil.
func Explanation(x *engine.Explanation) *wire.Explanation {
	if x == nil {
		return nil
	}
	v := explanationValue(*x)
	return &v
}

func explanationValue(x engine.Explanation) wire.Explanation {
	return wire.Explanation{
		Memory:    MemoryExplanation(x.Memory),
		Retrieval: RetrievalExplanation(x.Retrieval),
	}
}

// LifecycleReport converts an engine.LifecycleReport; nil stays nil.
func LifecycleReport(x *engine.LifecycleReport) *wire.LifecycleReport {
	if x == nil {
		return nil
	}
	v := lifecycleReportValue(*x)
	return &v
}

func lifecycleReportValue(x engine.LifecycleReport) wire.LifecycleReport {
	return wire.LifecycleReport{
		Namespace:        x.Namespace,
		DryRun:           x.DryRun,
		Expired:          x.Expired,
		Floored:          x.Floored,
		Decayed:          x.Decayed,
		ContestsResolved: x.ContestsResolved,
		More:             x.More,
		Changes:          eachValue(x.Changes, lifecycleChangeValue),
	}
}

// DedupeReport converts an engine.DedupeReport; nil stays nil.
func DedupeReport(x *engine.DedupeReport) *wire.DedupeReport {
	if x == nil {
		return nil
	}
	v := dedupeReportValue(*x)
	return &v
}

func dedupeReportValue(x engine.DedupeReport) wire.DedupeReport {
	return wire.DedupeReport{
		Namespace:  x.Namespace,
		DryRun:     x.DryRun,
		Threshold:  x.Threshold,
		Clusters:   x.Clusters,
		Superseded: x.Superseded,
		More:       x.More,
		Changes:    eachValue(x.Changes, lifecycleChangeValue),
		Judged:     x.Judged,
		JudgedSame: x.JudgedSame,
	}
}

// Procedure converts an engine.Procedure; nil stays nil.
func Procedure(x *engine.Procedure) *wire.Procedure {
	if x == nil {
		return nil
	}
	v := procedureValue(*x)
	return &v
}

func procedureValue(x engine.Procedure) wire.Procedure {
	return wire.Procedure{
		MemoryID:     x.MemoryID,
		VersionID:    x.VersionID,
		Seq:          x.Seq,
		TaskType:     x.TaskType,
		Scope:        scopeValue(x.Scope),
		Content:      x.Content,
		Steps:        x.Steps,
		EpisodeIDs:   x.EpisodeIDs,
		Successes:    x.Successes,
		FailureCount: x.FailureCount,
		Usefulness:   x.Usefulness,
		Trust:        x.Trust,
		Status:       x.Status,
		PromotedAt:   x.PromotedAt,
		LastUsedAt:   x.LastUsedAt,
		Stale:        x.Stale,
		StaleSince:   x.StaleSince,
	}
}

// ProcedureReport converts an engine.ProcedureReport; nil stays nil.
func ProcedureReport(x *engine.ProcedureReport) *wire.ProcedureReport {
	if x == nil {
		return nil
	}
	v := procedureReportValue(*x)
	return &v
}

func procedureReportValue(x engine.ProcedureReport) wire.ProcedureReport {
	return wire.ProcedureReport{
		Namespace:    x.Namespace,
		TaskResults:  x.TaskResults,
		Ignored:      x.Ignored,
		Promoted:     eachValue(x.Promoted, procedureChangeValue),
		Reinforced:   eachValue(x.Reinforced, procedureChangeValue),
		Superseded:   eachValue(x.Superseded, procedureChangeValue),
		Waiting:      eachValue(x.Waiting, taskTallyValue),
		TracesRead:   x.TracesRead,
		UsesRecorded: x.UsesRecorded,
		Failures:     eachValue(x.Failures, procedureFailureValue),
		Stale:        x.Stale,
		More:         x.More,
	}
}

func scopeValue(x memory.Scope) wire.Scope {
	return wire.Scope{
		AgentID:   x.AgentID,
		UserID:    x.UserID,
		ProjectID: x.ProjectID,
		SessionID: x.SessionID,
	}
}

func spanValue(x memory.Span) wire.Span {
	return wire.Span{
		EpisodeID: x.EpisodeID,
		Start:     x.Start,
		End:       x.End,
	}
}

func provenanceValue(x memory.Provenance) wire.Provenance {
	return wire.Provenance{
		Extractor:     x.Extractor,
		Model:         x.Model,
		PromptVersion: x.PromptVersion,
		Embedder:      x.Embedder,
		EmbedderDim:   x.EmbedderDim,
		Source:        x.Source,
	}
}

// Memory converts a memory.Memory; nil stays nil.
func Memory(x *memory.Memory) *wire.Memory {
	if x == nil {
		return nil
	}
	v := memoryValue(*x)
	return &v
}

func memoryValue(x memory.Memory) wire.Memory {
	return wire.Memory{
		ID:        x.ID,
		Namespace: x.Namespace,
		Scope:     scopeValue(x.Scope),
		Kind:      string(x.Kind),
		Subject:   x.Subject,
		Key:       x.Key,
		CreatedAt: x.CreatedAt,
		UpdatedAt: x.UpdatedAt,
	}
}

// Admission converts a memory.Admission; nil stays nil.
func Admission(x *memory.Admission) *wire.Admission {
	if x == nil {
		return nil
	}
	v := admissionValue(*x)
	return &v
}

func admissionValue(x memory.Admission) wire.Admission {
	return wire.Admission{
		ID:        x.ID,
		Namespace: x.Namespace,
		EpisodeID: x.EpisodeID,
		MemoryID:  x.MemoryID,
		VersionID: x.VersionID,
		Decision:  string(x.Decision),
		Reasons:   x.Reasons,
		Operation: string(x.Operation),
		Content:   x.Content,
		Extractor: x.Extractor,
		CreatedAt: x.CreatedAt,
		Models:    modelUsages(x.Models),
	}
}

// Episode converts a memory.Episode; nil stays nil.
func Episode(x *memory.Episode) *wire.Episode {
	if x == nil {
		return nil
	}
	v := episodeValue(*x)
	return &v
}

func episodeValue(x memory.Episode) wire.Episode {
	return wire.Episode{
		ID:          x.ID,
		Namespace:   x.Namespace,
		Scope:       scopeValue(x.Scope),
		Kind:        string(x.Kind),
		Speaker:     x.Speaker,
		Content:     x.Content,
		Metadata:    x.Metadata,
		OccurredAt:  x.OccurredAt,
		RecordedAt:  x.RecordedAt,
		ContentHash: x.ContentHash,
	}
}

// traceItemValue writes NaN and infinite scores as 0, as the trace's own
// encoder (memory.TraceItems) does: JSON cannot hold them.
func traceItemValue(x memory.TraceItem) wire.TraceItem {
	return wire.TraceItem{
		MemoryID:    x.MemoryID,
		VersionID:   x.VersionID,
		Channels:    channelHits(x.Channels),
		Fused:       finite(x.Fused),
		Terms:       terms(x.Terms),
		Final:       finite(x.Final),
		Rank:        x.Rank,
		Tokens:      x.Tokens,
		Trust:       finite(x.Trust),
		Action:      string(x.Action),
		Packed:      x.Packed,
		Reason:      x.Reason,
		Explanation: x.Explanation,
		Used:        x.Used,
	}
}

// Feedback converts a memory.Feedback; nil stays nil.
func Feedback(x *memory.Feedback) *wire.Feedback {
	if x == nil {
		return nil
	}
	v := feedbackValue(*x)
	return &v
}

func feedbackValue(x memory.Feedback) wire.Feedback {
	return wire.Feedback{
		ID:               x.ID,
		Namespace:        x.Namespace,
		RetrievalID:      x.RetrievalID,
		MemoryID:         x.MemoryID,
		VersionID:        x.VersionID,
		Outcome:          string(x.Outcome),
		Severity:         x.Severity,
		Source:           string(x.Source),
		Used:             x.Used,
		Overlap:          x.Overlap,
		TaskSucceeded:    x.TaskSucceeded,
		Reinforced:       x.Reinforced,
		UsefulnessBefore: x.UsefulnessBefore,
		UsefulnessAfter:  x.UsefulnessAfter,
		TrustBefore:      x.TrustBefore,
		TrustAfter:       x.TrustAfter,
		StatusAfter:      string(x.StatusAfter),
		CreatedAt:        x.CreatedAt,
	}
}

// MemoryExplanation converts an engine.MemoryExplanation; nil stays nil.
func MemoryExplanation(x *engine.MemoryExplanation) *wire.MemoryExplanation {
	if x == nil {
		return nil
	}
	v := memoryExplanationValue(*x)
	return &v
}

func memoryExplanationValue(x engine.MemoryExplanation) wire.MemoryExplanation {
	return wire.MemoryExplanation{
		Memory:   Memory(x.Memory),
		Versions: eachValue(x.Versions, versionExplanationValue),
		Chain:    x.Chain,
		Episodes: each(x.Episodes, Episode),
	}
}

// RetrievalExplanation converts an engine.RetrievalExplanation; nil stays nil.
func RetrievalExplanation(x *engine.RetrievalExplanation) *wire.RetrievalExplanation {
	if x == nil {
		return nil
	}
	v := retrievalExplanationValue(*x)
	return &v
}

func retrievalExplanationValue(x engine.RetrievalExplanation) wire.RetrievalExplanation {
	return wire.RetrievalExplanation{
		Trace:    Trace(x.Trace),
		Items:    eachValue(x.Items, rankedItemValue),
		Feedback: each(x.Feedback, Feedback),
	}
}

func lifecycleChangeValue(x engine.LifecycleChange) wire.LifecycleChange {
	return wire.LifecycleChange{
		MemoryID:     x.MemoryID,
		VersionID:    x.VersionID,
		Reason:       x.Reason,
		From:         string(x.From),
		To:           string(x.To),
		Detail:       x.Detail,
		SupersededBy: x.SupersededBy,
	}
}

func procedureChangeValue(x engine.ProcedureChange) wire.ProcedureChange {
	return wire.ProcedureChange{
		TaskType:  x.TaskType,
		MemoryID:  x.MemoryID,
		VersionID: x.VersionID,
		Sessions:  x.Sessions,
		Steps:     x.Steps,
	}
}

func taskTallyValue(x engine.TaskTally) wire.TaskTally {
	return wire.TaskTally{
		TaskType:  x.TaskType,
		Scope:     scopeValue(x.Scope),
		Successes: x.Successes,
		Failures:  x.Failures,
		Reason:    x.Reason,
	}
}

func procedureFailureValue(x engine.ProcedureFailure) wire.ProcedureFailure {
	return wire.ProcedureFailure{
		MemoryID:  x.MemoryID,
		VersionID: x.VersionID,
		SessionID: x.SessionID,
		EpisodeID: x.EpisodeID,
	}
}

func versionExplanationValue(x engine.VersionExplanation) wire.VersionExplanation {
	return wire.VersionExplanation{
		Version:     Version(x.Version),
		Operation:   string(x.Operation),
		Admissions:  each(x.Admissions, Admission),
		Feedback:    each(x.Feedback, Feedback),
		Trust:       x.Trust,
		Uncertainty: x.Uncertainty,
		Action:      string(x.Action),
		Why:         x.Why,
	}
}

func rankedItemValue(x engine.RankedItem) wire.RankedItem {
	return wire.RankedItem{
		Rank:        x.Rank,
		MemoryID:    x.MemoryID,
		VersionID:   x.VersionID,
		Packed:      x.Packed,
		Reason:      x.Reason,
		Final:       x.Final,
		Trust:       x.Trust,
		Action:      string(x.Action),
		Uncertainty: x.Uncertainty,
		Why:         x.Why,
	}
}
