package storetest

import (
	"context"
	"fmt"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// at returns the fixtures' epoch plus n minutes. The epoch is a whole
// number of microseconds with a non-zero sub-second part, so a backend that
// drops fractions of a second fails.
func at(n int) time.Time {
	return time.Date(2025, 3, 14, 9, 26, 53, 589793000, time.UTC).Add(time.Duration(n) * time.Minute)
}

func ptr[T any](v T) *T { return &v }

// Fixtures fill every field with a distinct value, so a column written to
// the wrong place, or not at all, shows up in the round trip.

func newEpisode(ns, id, session string, occurred time.Time) *memory.Episode {
	return &memory.Episode{
		ID:          id,
		Namespace:   ns,
		Scope:       memory.Scope{AgentID: "agent-" + id, UserID: "user-" + id, ProjectID: "project-" + id, SessionID: session},
		Kind:        memory.EpisodeUserMessage,
		Speaker:     "user",
		Content:     "I moved to Lisbon in March (" + id + ")",
		Metadata:    map[string]string{"channel": "chat", "turn": id},
		OccurredAt:  occurred,
		RecordedAt:  occurred.Add(1500 * time.Microsecond),
		ContentHash: "sha256:" + id,
	}
}

func newMemory(ns, id, subject, key string, scope memory.Scope) *memory.Memory {
	return &memory.Memory{
		ID:        id,
		Namespace: ns,
		Scope:     scope,
		Kind:      memory.KindSemantic,
		Subject:   subject,
		Key:       key,
		CreatedAt: at(1),
		UpdatedAt: at(2),
	}
}

func newVersion(ns, id string, m *memory.Memory, seq int, recorded time.Time) *memory.Version {
	validTo := recorded.Add(48 * time.Hour)
	return &memory.Version{
		ID:          id,
		MemoryID:    m.ID,
		Namespace:   ns,
		Seq:         seq,
		Scope:       m.Scope,
		Kind:        m.Kind,
		Type:        memory.TypePreference,
		Subject:     m.Subject,
		Key:         m.Key,
		Value:       "value of " + id,
		Content:     "The user prefers " + id + ".",
		Criticality: memory.CriticalityHigh,

		Confidence:         0.81,
		Usefulness:         0.52,
		Trust:              0.77,
		ReinforcementCount: 3,
		FailureCount:       1,

		Status:       memory.StatusActive,
		Operation:    memory.OpAdd,
		SupersededBy: "",

		ObservedAt: recorded.Add(-time.Hour),
		RecordedAt: recorded,
		ValidFrom:  recorded.Add(-30 * time.Minute),
		ValidTo:    &validTo,
		UpdatedAt:  recorded.Add(time.Second),

		EvidenceEpisodeIDs: []string{"ep-" + id + "-a", "ep-" + id + "-b"},
		EvidenceSpans:      []memory.Span{{EpisodeID: "ep-" + id + "-a", Start: 2, End: 19}},
		Provenance: memory.Provenance{
			Extractor:     "rules",
			Model:         "model-x",
			PromptVersion: "p3",
			Embedder:      "builtin",
			EmbedderDim:   4,
			Source:        "capture",
		},
		Tokens:     17,
		SearchText: "prefers:" + id,
		Embedding:  []byte{0x3f, 0x80, 0x00, 0x00, 0xbf, 0x00, 0x00, byte(seq)},
	}
}

// newBareVersion leaves every optional field at its zero value: nil slices,
// no ValidTo, no embedding.
func newBareVersion(ns, id string, m *memory.Memory, seq int, recorded time.Time) *memory.Version {
	return &memory.Version{
		ID:          id,
		MemoryID:    m.ID,
		Namespace:   ns,
		Seq:         seq,
		Kind:        memory.KindEpisodic,
		Type:        memory.TypeEvent,
		Subject:     m.Subject,
		Key:         m.Key,
		Content:     "bare " + id,
		Criticality: memory.CriticalityNormal,
		Usefulness:  0.5,
		Status:      memory.StatusCandidate,
		Operation:   memory.OpNoop,
		RecordedAt:  recorded,
		ValidFrom:   recorded,
		UpdatedAt:   recorded,
	}
}

func newAdmission(ns, id, episodeID, memoryID string, created time.Time) *memory.Admission {
	return &memory.Admission{
		ID:        id,
		Namespace: ns,
		EpisodeID: episodeID,
		MemoryID:  memoryID,
		VersionID: "ver-of-" + id,
		Decision:  memory.AdmitAccept,
		Reasons:   []string{"first_person", "durable"},
		Operation: memory.OpAdd,
		Content:   "candidate " + id,
		Extractor: "rules",
		CreatedAt: created,
	}
}

func newTrace(ns, id string, created time.Time) *memory.Trace {
	return &memory.Trace{
		ID:             id,
		Namespace:      ns,
		Query:          "what editor does the user prefer? " + id,
		Scope:          memory.Scope{AgentID: "a1", UserID: "u1", ProjectID: "p1", SessionID: "s1"},
		TaskType:       "coding",
		Limit:          8,
		TokenBudget:    1200,
		TokensUsed:     431,
		AsOf:           ptr(created.Add(-24 * time.Hour)),
		KnownAt:        ptr(created.Add(-time.Hour)),
		IncludeHistory: true,
		Items: []memory.TraceItem{
			{
				MemoryID:  "mem-1",
				VersionID: "ver-1",
				Channels: memory.ChannelHits{
					{Channel: "lexical", ChannelHit: memory.ChannelHit{Rank: 1, Score: 7.25}},
					{Channel: "semantic", ChannelHit: memory.ChannelHit{Rank: 3, Score: 0.6180339887}},
				},
				Fused:       0.8125,
				Terms:       memory.Terms{{Name: "usefulness", Value: 0.02}, {Name: "contested", Value: -0.05}},
				Final:       0.7825,
				Rank:        1,
				Tokens:      12,
				Trust:       0.8,
				Action:      memory.ActionFollow,
				Packed:      true,
				Reason:      "packed",
				Explanation: "found by lexical at rank 1",
			},
			{MemoryID: "mem-2", VersionID: "ver-2", Rank: 2, Action: memory.ActionIgnore, Reason: "over budget"},
		},
		CreatedAt:      created,
		DurationMicros: 1834,
	}
}

// world is one namespace's worth of every kind of row.
type world struct {
	ns        string
	episode   *memory.Episode
	memory    *memory.Memory
	version   *memory.Version
	admission *memory.Admission
	trace     *memory.Trace
}

func newWorld(ns string) world {
	m := newMemory(ns, "mem-1", "user", "prefers:editor", memory.Scope{UserID: "u1"})
	return world{
		ns:        ns,
		episode:   newEpisode(ns, "ep-1", "s1", at(0)),
		memory:    m,
		version:   newVersion(ns, "ver-1", m, 1, at(3)),
		admission: newAdmission(ns, "adm-1", "ep-1", m.ID, at(4)),
		trace:     newTrace(ns, "ret-1", at(5)),
	}
}

// write stores the world through ex.
func (w world) write(ctx context.Context, ex memory.Executor) error {
	if err := ex.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: w.ns, Episodes: []*memory.Episode{w.episode}}); err != nil {
		return err
	}
	if err := ex.CreateMemory(ctx, w.memory); err != nil {
		return err
	}
	if err := ex.CreateVersion(ctx, w.version); err != nil {
		return err
	}
	if err := ex.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: w.ns, Admissions: []*memory.Admission{w.admission}}); err != nil {
		return err
	}
	if err := ex.CreateTrace(ctx, w.trace); err != nil {
		return fmt.Errorf("create trace: %w", err)
	}
	return nil
}

// withModels gives t the notes and model usage a retrieval through model
// providers keeps.
func withModels(t *memory.Trace) *memory.Trace {
	t.Notes = []string{
		"models.embedder_fallback: openai:nomic-embed-text no reply within the 300ms budget; the query was embedded with builtin",
		"models.reranked: rerank:bge scored the top 20; 3 moved",
	}
	t.Models = []memory.ModelUsage{
		{Model: "nomic-embed-text", Endpoint: "embeddings", Calls: 1, Errors: 1, DurationMicros: 300125},
		{Model: "bge-reranker", Endpoint: "rerank", Calls: 1, TokensIn: 812, DurationMicros: 41007},
	}
	return t
}

// admissionWithModels gives a the usage of a model extraction.
func admissionWithModels(a *memory.Admission) *memory.Admission {
	a.Models = []memory.ModelUsage{{Model: "qwen2.5", Endpoint: "chat", Calls: 2, Errors: 1, TokensIn: 1204, TokensOut: 96, DurationMicros: 1850000}}
	return a
}
