package consolidate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// Summariser turns a session's episodes into one summary. The built-in one
// is extractive and offline (NewExtractiveSummariser); a model-backed one
// implements the same interface and is set in Consolidation.Summariser.
type Summariser interface {
	// Name is recorded as the summary version's provenance model.
	Name() string
	Summarise(ctx context.Context, in SummaryInput) (*Summary, error)
}

// SummaryInput is one session to summarise.
type SummaryInput struct {
	Namespace string // whose session: model calls count against its budget
	SessionID string
	// Episodes are the session's episodes that may be quoted, in time
	// order (quarantined ones and text mnemon itself served are left out).
	Episodes []*memory.Episode
	// Facts maps an episode id to the current facts extracted from it:
	// the signal of what the session established.
	Facts map[string][]*memory.Version
	// MaxTokens bounds the summary's length; Count measures it.
	MaxTokens int
	Count     func(string) int
	// Header, when set, opens the summary instead of the session's name
	// and dates (a month digest: "Sessions of 2024-01 (...):"; its
	// "episodes" are the month's session summaries, with no speaker).
	Header string
}

// Summary is a summariser's answer.
type Summary struct {
	Content string
	// Spans locate the quoted sentences in their episodes (extractive
	// summaries); a generated summary may leave it empty.
	Spans []memory.Span
	// By names who wrote it when that is not the summariser's Name (a
	// model summariser that fell back to the extractive one); it is the
	// summary version's provenance model.
	By string
}

// writtenSummary is a summariser's text with its embedding, ready to be
// stored as a summary version.
type writtenSummary struct {
	*Summary
	embedding []byte
}

// summarise runs the configured summariser and embeds what it wrote; what
// names the result in errors ("summary", "digest").
func (e *Consolidator) summarise(ctx context.Context, in SummaryInput, what string) (*writtenSummary, error) {
	s := e.consolidation.Summariser
	sum, err := s.Summarise(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("summarise: %w", err)
	}
	if strings.TrimSpace(sum.Content) == "" {
		return nil, fmt.Errorf("summarise: %s wrote an empty %s", s.Name(), what)
	}
	vecs, err := e.embedder.Embed(ctx, []string{sum.Content})
	if err != nil || len(vecs) != 1 {
		return nil, fmt.Errorf("embed %s: %w", what, errors.Join(err, errors.New("no vector")))
	}
	return &writtenSummary{Summary: sum, embedding: vecs[0].EncodeCompact()}, nil
}

// summaryVersion is a new active version of the summary memory m (a
// session's summary or a month's digest) holding sum, covering what
// happened from validFrom to observed; source is its provenance source.
func (e *Consolidator) summaryVersion(m *memory.Memory, seq int, sum *writtenSummary, validFrom, observed, now time.Time, source string) *memory.Version {
	return &memory.Version{
		ID: ids.New(ids.Version), MemoryID: m.ID, Namespace: m.Namespace, Seq: seq, Scope: m.Scope,
		Kind: memory.KindSemantic, Type: memory.TypeSummary, Subject: m.Subject, Key: m.Key,
		Content: sum.Content, Criticality: memory.CriticalityNormal, Confidence: 0.9, Usefulness: memory.NeutralUsefulness,
		Status: memory.StatusActive, Operation: memory.OpAdd,
		ObservedAt: observed, RecordedAt: now, ValidFrom: validFrom, UpdatedAt: now,
		Provenance: memory.Provenance{Extractor: "consolidate", Model: cmp.Or(sum.By, e.consolidation.Summariser.Name()),
			Embedder: e.embedder.Name(), EmbedderDim: e.embedder.Dim(), Source: source},
		Tokens: e.counter.Count(sum.Content), Embedding: sum.embedding,
	}
}

// extractive picks the sentences of a session that carry its facts,
// preferences and decisions, in the order they were said, within a token
// budget. It invents nothing: every word of a summary was said in the
// session.
type extractive struct{}

// NewExtractiveSummariser returns the built-in offline summariser.
func NewExtractiveSummariser() Summariser { return extractive{} }

func (extractive) Name() string { return "extractive-v1" }

// sentence is one candidate sentence of a session.
type sentence struct {
	ep    *memory.Episode
	start int
	end   int
	text  string
	score float64
	order int // position in the session
}

// Scores. A sentence an extracted fact came from carries what the session
// established; the fact's type says how much it matters later (a decision
// or a constraint more than a passing fact).
const (
	scoreFact      = 2.0
	scoreWeighty   = 1.0 // decision, constraint, preference, goal, lesson
	scoreOutcome   = 1.0 // task results and user feedback: how it ended
	scoreKept      = 0.5 // past the importance gate, no fact recognised
	scoreQuestion  = -1.0
	scoreToolNoise = -0.5 // tool calls and raw tool output
)

func (extractive) Summarise(_ context.Context, in SummaryInput) (*Summary, error) {
	if in.Count == nil {
		return nil, fmt.Errorf("summarise: no token counter")
	}
	var (
		cands []*sentence
		seen  = map[string]bool{}
	)
	for _, ep := range in.Episodes {
		for _, s := range extract.SplitSentences(ep.Content) {
			norm := normValue(s.Text)
			if len(strings.Fields(norm)) < 3 || seen[norm] {
				continue // too short to carry a fact, or said already
			}
			seen[norm] = true
			c := &sentence{ep: ep, start: s.Start, end: s.End, text: strings.Join(strings.Fields(s.Text), " "), order: len(cands)}
			c.score = sentenceScore(ep, s.Start, s.End, s.Text, in.Facts[ep.ID])
			cands = append(cands, c)
		}
	}
	header := in.Header
	if header == "" {
		header = sessionHeader(in.SessionID, in.Episodes)
	}
	budget := in.MaxTokens - in.Count(header)
	// Best first; ties keep the session's order.
	ranked := append([]*sentence(nil), cands...)
	sort.SliceStable(ranked, func(i, j int) bool { return ranked[i].score > ranked[j].score })
	var picked []*sentence
	for _, c := range ranked {
		if c.score <= 0 && len(picked) > 0 {
			break // only what carries signal, once something does
		}
		n := in.Count(summaryLine(c)) + 1
		if n > budget {
			continue // a shorter sentence may still fit
		}
		budget -= n
		picked = append(picked, c)
	}
	sort.Slice(picked, func(i, j int) bool { return picked[i].order < picked[j].order })
	parts := make([]string, 0, len(picked)+1)
	parts = append(parts, header)
	sum := &Summary{}
	for _, c := range picked {
		parts = append(parts, summaryLine(c))
		sum.Spans = append(sum.Spans, memory.Span{EpisodeID: c.ep.ID, Start: c.start, End: c.end})
	}
	switch {
	case len(picked) > 0, in.Header != "":
		// A digest with nothing to quote is its header alone: a line
		// saying so would be quoted as content when the month folds again.
	case len(in.Episodes) == 1:
		parts = append(parts, "1 event, which stated nothing to keep.")
	default:
		parts = append(parts, fmt.Sprintf("%d events, none that stated anything to keep.", len(in.Episodes)))
	}
	sum.Content = strings.Join(parts, " ")
	return sum, nil
}

func sentenceScore(ep *memory.Episode, start, end int, text string, facts []*memory.Version) float64 {
	score := 0.0
	for _, f := range facts {
		for _, sp := range f.EvidenceSpans {
			if sp.EpisodeID != ep.ID || sp.Start >= end || sp.End <= start {
				continue
			}
			s := scoreFact
			switch f.Type {
			case memory.TypeDecision, memory.TypeConstraint, memory.TypePreference, memory.TypeGoal, memory.TypeLesson:
				s += scoreWeighty
			}
			if s > score {
				score = s
			}
		}
	}
	if score == 0 && extract.Gate(text).Keep {
		score = scoreKept
	}
	switch ep.Kind {
	case memory.EpisodeTaskResult, memory.EpisodeUserFeedback:
		score += scoreOutcome
	case memory.EpisodeToolCall, memory.EpisodeToolResult:
		score += scoreToolNoise
	}
	if strings.HasSuffix(strings.TrimSpace(text), "?") {
		score += scoreQuestion
	} else if skip, _ := extract.Distractor(text); skip {
		score += scoreQuestion
	}
	return score
}

// summaryLine is how a picked sentence reads in the summary: who said it, and it.
func summaryLine(c *sentence) string {
	text := c.text
	if !strings.ContainsAny(text[len(text)-1:], ".!?") {
		text += "."
	}
	if c.ep.Speaker == "" {
		return text // a line of a summary being folded names its speaker already
	}
	return c.ep.Speaker + ": " + text
}

// sessionHeader names the session and when it happened.
func sessionHeader(id string, eps []*memory.Episode) string {
	if len(eps) == 0 {
		return "Session " + id + ":"
	}
	first, last := eps[0].OccurredAt.Format("2006-01-02"), eps[len(eps)-1].OccurredAt.Format("2006-01-02")
	if first == last {
		return fmt.Sprintf("Session %s (%s):", id, first)
	}
	return fmt.Sprintf("Session %s (%s to %s):", id, first, last)
}
