package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// Input limits. A request beyond them is refused whole, before anything is
// written.
const (
	MaxContentBytes = 64 << 10
	MaxEvents       = 10000
)

// Event is one raw event to capture.
type Event struct {
	Kind       memory.EpisodeKind `json:"kind"`
	Content    string             `json:"content"`
	OccurredAt time.Time          `json:"occurred_at"`
	Speaker    string             `json:"speaker,omitempty"`
	Metadata   map[string]string  `json:"metadata,omitempty"`
}

// CaptureParams stores events as episodes and extracts memories from them.
type CaptureParams struct {
	Namespace string
	Scope     memory.Scope
	Events    []Event
}

// CaptureResult lists the episodes written, in event order, and what
// extraction did with each candidate memory.
type CaptureResult struct {
	EpisodeIDs []string  `json:"episode_ids"`
	Outcomes   []Outcome `json:"outcomes"`
}

// RememberParams stores one fact directly. Text is read by the extractor;
// when Key is set, Text is instead stored as exactly one fact with the given
// fields.
type RememberParams struct {
	Namespace  string
	Scope      memory.Scope
	Text       string
	Speaker    string    // who states it; default "user"
	ObservedAt time.Time // when it was said; default now

	Type        memory.Type
	Subject     string
	Key         string
	Value       string
	Criticality memory.Criticality
	Confidence  float64
	ValidFrom   *time.Time
	ValidTo     *time.Time
}

// RememberResult says what one remember did.
type RememberResult struct {
	EpisodeID string    `json:"episode_id"`
	Outcomes  []Outcome `json:"outcomes"`
}

// Outcome is the fate of one candidate memory: the admission decision and
// the reconciliation operation, with reason codes.
type Outcome struct {
	EpisodeID string                   `json:"episode_id,omitempty"`
	Decision  memory.AdmissionDecision `json:"decision"`
	Operation memory.Operation         `json:"operation,omitempty"`
	Reasons   []string                 `json:"reasons"`
	MemoryID  string                   `json:"memory_id,omitempty"`
	VersionID string                   `json:"version_id,omitempty"`
	Content   string                   `json:"content"`
	Version   *memory.Version          `json:"version,omitempty"`
}

// ChangeStated reports an outcome for an earlier fact that the statement
// said changed (contested, reason change_stated), not for what the
// statement itself stated.
func (o Outcome) ChangeStated() bool {
	return o.Operation == memory.OpContest && slices.Contains(o.Reasons, ReasonChangeStated)
}

// pendingEvent is an event on its way into the store.
type pendingEvent struct {
	ep       *memory.Episode
	indexed  bool          // becomes a searchable episodic memory
	epStatus memory.Status // of its episodic version
	epReason []string      // admission reasons for the episode itself
	gated    bool          // the importance gate found nothing worth mining
	dedupe   bool          // a retried capture of the same event is not stored twice
	dupOf    string        // the stored episode this event repeats
	stored   bool          // the episode is already in the store (deferred extraction)
	done     bool          // a stored episode whose extraction already committed
	cands    []*candidate
	// before are the speaker's turns before this one that a pronoun
	// opening it may reach back to (pronounContext).
	before []string
	vec    search.Vector
	// epVersion is the episodic memory written for the episode, if any.
	epVersion *memory.Version
	// models is what the episode's model extraction cost, kept on the
	// episode's own admission.
	models []memory.ModelUsage
}

// candidate is an extracted (or directly given) memory awaiting admission
// and reconciliation.
type candidate struct {
	extract.Candidate
	scope      memory.Scope
	observedAt time.Time
	validFrom  time.Time
	validTo    *time.Time
	extractor  string
	source     string
	episodeID  string
	// pastMoved: a past value moved before the current value its
	// statement named first (pastFirst); that value supersedes it.
	pastMoved bool
	decision  memory.AdmissionDecision
	reasons   []string
	vec       search.Vector
	sig       string // wording signature, see signature
}

// Capture stores events as episodes and extracts memories from them, all in
// one transaction: either every episode and memory is written, or none.
func (e *Engine) Capture(ctx context.Context, p CaptureParams) (*CaptureResult, error) {
	ns, evs, err := e.captureEvents(p)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	for i, pe := range evs {
		e.pronounContext(ctx, pe, evs[:i])
		if err := e.extractInto(ctx, pe, "capture"); err != nil {
			return nil, fmt.Errorf("capture: %w", err)
		}
		if err := e.correctAcross(ctx, pe, evs[:i], "capture"); err != nil {
			return nil, fmt.Errorf("capture: %w", err)
		}
	}
	outs, err := e.ingest(ctx, ns, evs)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	res := &CaptureResult{Outcomes: outs}
	for _, pe := range evs {
		id := pe.ep.ID
		if pe.dupOf != "" {
			id = pe.dupOf
		}
		res.EpisodeIDs = append(res.EpisodeIDs, id)
	}
	return res, nil
}

// captureEvents validates a capture and turns its events into episodes on
// their way into the store.
func (e *Engine) captureEvents(p CaptureParams) (string, []*pendingEvent, error) {
	ns, err := checkNamespace(p.Namespace)
	if err != nil {
		return "", nil, err
	}
	if len(p.Events) == 0 {
		return "", nil, memory.Invalidf("no events: send at least one")
	}
	if err := p.Scope.Validate(); err != nil {
		return "", nil, err
	}
	if len(p.Events) > MaxEvents {
		return "", nil, memory.Invalidf("%d events in one call; the limit is %d", len(p.Events), MaxEvents)
	}
	now := e.clock.Now()
	evs := make([]*pendingEvent, 0, len(p.Events))
	for i, ev := range p.Events {
		if err := validateEvent(ev); err != nil {
			return "", nil, memory.Within(err, "event %d", i)
		}
		if err := checkSetTime("occurred_at", ev.OccurredAt); err != nil {
			return "", nil, memory.Within(err, "event %d", i)
		}
		occurred := ev.OccurredAt
		if occurred.IsZero() {
			occurred = now
		}
		if err := notFuture("occurred_at", occurred, now); err != nil {
			return "", nil, memory.Within(err, "event %d", i)
		}
		pe := e.newPending(ns, p.Scope, ev.Kind, ev.Speaker, ev.Content, ev.Metadata, occurred, now)
		// A retried capture is recognised by each event's own time. An
		// event without one gets this call's clock: a retry gets another,
		// and two turns of this batch that say the same words ("ok", "ok")
		// would get the same one and fold into one episode.
		pe.dedupe = !ev.OccurredAt.IsZero()
		evs = append(evs, pe)
	}
	return ns, evs, nil
}

func validateEvent(ev Event) error {
	if !ev.Kind.Valid() {
		names := make([]string, len(memory.EpisodeKinds))
		for i, k := range memory.EpisodeKinds {
			names[i] = string(k)
		}
		return memory.Invalidf("kind %q: use one of %s", ev.Kind, strings.Join(names, ", "))
	}
	return validateText(ev.Content)
}

// ClockSkew is how far in the future an event's time may lie: a little,
// for clocks that disagree, and no more, because a statement dated in the
// future would outrank every real one until that date.
const ClockSkew = time.Hour

func notFuture(field string, t, now time.Time) error {
	if t.After(now.Add(ClockSkew)) {
		return memory.Invalidf("%s %s is in the future (now %s); send the time the event happened", field, t.Format(time.RFC3339), now.Format(time.RFC3339))
	}
	return nil
}

func validateText(s string) error {
	if strings.TrimSpace(s) == "" {
		return memory.Invalidf("content is empty")
	}
	if len(s) > MaxContentBytes {
		return memory.Invalidf("content is %d bytes; the limit is %d", len(s), MaxContentBytes)
	}
	if !utf8.ValidString(s) {
		return memory.Invalidf("content is not valid UTF-8")
	}
	return nil
}

// Remember stores one statement (or one structured fact) synchronously.
func (e *Engine) Remember(ctx context.Context, p RememberParams) (*RememberResult, error) {
	res, err := e.RememberBatch(ctx, []RememberParams{p})
	if err != nil {
		return nil, err
	}
	return &res[0], nil
}

// RememberBatch stores many statements in one transaction.
func (e *Engine) RememberBatch(ctx context.Context, ps []RememberParams) ([]RememberResult, error) {
	if len(ps) == 0 {
		return nil, fmt.Errorf("remember: %w", memory.Invalidf("nothing to remember"))
	}
	if len(ps) > MaxEvents {
		return nil, fmt.Errorf("remember: %w", memory.Invalidf("%d facts in one call; the limit is %d", len(ps), MaxEvents))
	}
	ns, err := checkNamespace(ps[0].Namespace)
	if err != nil {
		return nil, fmt.Errorf("remember: %w", err)
	}
	now := e.clock.Now()
	evs := make([]*pendingEvent, len(ps))
	for i, p := range ps {
		if n, _ := checkNamespace(p.Namespace); n != ns {
			return nil, fmt.Errorf("remember: %w", memory.Invalidf("one batch must stay in one namespace (%q and %q)", ns, p.Namespace))
		}
		if err := validateRemember(p); err != nil {
			return nil, fmt.Errorf("remember: %w", err)
		}
		if err := p.Scope.Validate(); err != nil {
			return nil, fmt.Errorf("remember: %w", err)
		}
		if err := checkRememberTimes(p); err != nil {
			return nil, fmt.Errorf("remember: %w", err)
		}
		observed := p.ObservedAt
		if observed.IsZero() {
			observed = now
		}
		if err := notFuture("observed_at", observed, now); err != nil {
			return nil, fmt.Errorf("remember: %w", err)
		}
		pe := e.newPending(ns, p.Scope, memory.EpisodeUserMessage, p.Speaker, p.Text, nil, observed, now)
		if p.Key == "" {
			e.pronounContext(ctx, pe, evs[:i])
		}
		if p.Key != "" {
			pe.cands = []*candidate{e.structuredCandidate(pe, p)}
		} else if err := e.extractInto(ctx, pe, "remember"); err != nil {
			return nil, fmt.Errorf("remember: %w", err)
		} else if err := e.correctAcross(ctx, pe, evs[:i], "remember"); err != nil {
			return nil, fmt.Errorf("remember: %w", err)
		}
		if len(pe.cands) == 0 && pe.epStatus == memory.StatusActive && pe.indexed && !pe.gated {
			// The caller asked to remember this: keep a statement no rule
			// recognised as a note. Questions, hypotheticals and reported
			// speech stay episodes only: they state nothing to keep.
			if skip, why := extract.Distractor(pe.ep.Content); skip {
				pe.epReason = append(pe.epReason, "not_a_statement:"+why)
			} else {
				pe.cands = []*candidate{e.noteCandidate(pe)}
			}
		}
		evs[i] = pe
	}
	outs, err := e.ingest(ctx, ns, evs)
	if err != nil {
		return nil, fmt.Errorf("remember: %w", err)
	}
	res := make([]RememberResult, len(ps))
	for i, pe := range evs {
		res[i].EpisodeID = pe.ep.ID
		for _, o := range outs {
			if o.EpisodeID == pe.ep.ID {
				res[i].Outcomes = append(res[i].Outcomes, o)
			}
		}
		if pe.epVersion != nil && !slices.ContainsFunc(res[i].Outcomes, func(o Outcome) bool { return !o.ChangeStated() }) {
			// Only facts it contested: the statement itself is reported first.
			res[i].Outcomes = append([]Outcome{episodeOutcome(pe)}, res[i].Outcomes...)
		}
	}
	return res, nil
}

// episodeOutcome reports a remembered text that gave no fact and no note
// (a question, a hypothetical, reported speech, small talk): it is still
// kept, as an episodic memory that recall serves as said, and the answer
// says so instead of reporting nothing. Nothing was reconciled, so it has
// no operation; its reasons are the episode's admission reasons (episode,
// not_a_statement:question, gate:acknowledgement...).
func episodeOutcome(pe *pendingEvent) Outcome {
	v := pe.epVersion
	return Outcome{
		EpisodeID: pe.ep.ID, Decision: memory.AdmitAccept,
		Reasons: append([]string(nil), pe.epReason...), MemoryID: v.MemoryID, VersionID: v.ID,
		Content: v.Content, Version: v,
	}
}

func validateRemember(p RememberParams) error {
	if err := validateText(p.Text); err != nil {
		return err
	}
	if p.Key != "" && !extract.ValidKey(strings.ToLower(strings.TrimSpace(p.Key))) {
		return memory.Invalidf("key %q: use lowercase words joined by '_' and ':', like prefers:editor", p.Key)
	}
	if p.Subject != "" && !extract.ValidSubject(strings.ToLower(strings.TrimSpace(p.Subject))) {
		return memory.Invalidf("subject %q: use lowercase words joined by '_', like user or atlas", p.Subject)
	}
	if p.Confidence < 0 || p.Confidence > 1 {
		return memory.Invalidf("confidence %v: use a number from 0 to 1", p.Confidence)
	}
	switch p.Criticality {
	case "", memory.CriticalityNormal, memory.CriticalityHigh, memory.CriticalityMustInclude:
	default:
		return memory.Invalidf("criticality %q: use normal, high or must_include", p.Criticality)
	}
	switch p.Type {
	case "", memory.TypeFact, memory.TypePreference, memory.TypeDecision, memory.TypeConstraint,
		memory.TypeGoal, memory.TypeLesson, memory.TypeProcedure, memory.TypeSummary:
	default:
		return memory.Invalidf("type %q: use fact, preference, decision, constraint, goal, lesson, procedure or summary", p.Type)
	}
	if p.ValidFrom != nil && p.ValidTo != nil && !p.ValidTo.After(*p.ValidFrom) {
		return memory.Invalidf("valid_to must be after valid_from")
	}
	return nil
}

// DefaultSpeaker is who says what a call does not attribute.
const DefaultSpeaker = "user"

// AgentSpeaker is who says an agent_message a call does not attribute: the
// agent's words are not the user's, and no fact of the user is drawn from
// them.
const AgentSpeaker = "assistant"

func speakerName(s string, kind memory.EpisodeKind) string {
	s = strings.TrimSpace(s)
	switch {
	case s != "":
		return s
	case kind == memory.EpisodeAgentMessage:
		return AgentSpeaker
	}
	return DefaultSpeaker
}

// newPending builds an episode and decides, before extraction, whether it is
// searchable, quarantined or refused as evidence.
func (e *Engine) newPending(ns string, scope memory.Scope, kind memory.EpisodeKind, speaker, content string, meta map[string]string, occurred, now time.Time) *pendingEvent {
	sum := sha256.Sum256([]byte(content))
	ep := &memory.Episode{
		ID:          ids.New(ids.Episode),
		Namespace:   ns,
		Scope:       scope,
		Kind:        kind,
		Speaker:     speakerName(speaker, kind),
		Content:     content,
		Metadata:    meta,
		OccurredAt:  occurred.UTC(),
		RecordedAt:  now,
		ContentHash: hex.EncodeToString(sum[:]),
	}
	return pendingOf(ep)
}

// pendingOf decides, before extraction, whether an episode is searchable,
// quarantined or refused as evidence.
func pendingOf(ep *memory.Episode) *pendingEvent {
	pe := &pendingEvent{ep: ep, indexed: true, epStatus: memory.StatusActive}
	if bad, reason := extract.DetectInstruction(ep.Content); bad {
		pe.epStatus = memory.StatusQuarantined
		pe.epReason = []string{reason}
		return pe
	}
	if fromMemory(ep.Metadata) {
		// Text mnemon itself handed to the agent is not new evidence:
		// indexing it again would let memories reinforce themselves.
		pe.indexed = false
		pe.epReason = []string{"retrieved_from_memory"}
		return pe
	}
	pe.epReason = []string{"episode"}
	return pe
}

// fromMemory reports whether an event carries text retrieved from mnemon
// (clients mark it with metadata source=mnemon).
func fromMemory(meta map[string]string) bool {
	return meta["source"] == "mnemon"
}

// extractInto runs the importance gate and the extractor on an episode and
// attaches admitted candidates.
func (e *Engine) extractInto(ctx context.Context, pe *pendingEvent, source string) error {
	return e.extractWith(ctx, pe, source, false)
}

// extractWith is extractInto; background says the call is the background
// extraction job's, where the model extractor runs.
func (e *Engine) extractWith(ctx context.Context, pe *pendingEvent, source string, background bool) error {
	if pe.epStatus != memory.StatusActive || !pe.indexed {
		return nil
	}
	g := extract.Gate(pe.ep.Content)
	if !g.Keep {
		pe.gated = true
		pe.epReason = append(pe.epReason, "gate:"+g.Reason)
		return nil
	}
	ev := extract.Event{
		Kind:       pe.ep.Kind,
		Speaker:    pe.ep.Speaker,
		Content:    pe.ep.Content,
		OccurredAt: pe.ep.OccurredAt,
		ProjectID:  pe.ep.Scope.ProjectID,
		Before:     pe.before,
	}
	if background && e.modelExtractor != nil {
		if ok, err := e.modelExtract(ctx, pe, ev, source); ok || err != nil {
			return err
		}
	}
	cs, err := e.extractor.Extract(ctx, ev)
	if err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	for _, c := range cs {
		pe.cands = append(pe.cands, e.ruleCandidate(pe, c, source))
	}
	return nil
}

// ruleCandidate is the rule extractor's candidate c read from pe's
// episode, admitted (its decision and reasons set).
func (e *Engine) ruleCandidate(pe *pendingEvent, c extract.Candidate, source string) *candidate {
	cand := &candidate{
		Candidate:  c,
		scope:      factScope(pe.ep.Scope),
		observedAt: pe.ep.OccurredAt,
		validFrom:  pe.ep.OccurredAt,
		extractor:  e.extractor.Name(),
		source:     source,
		episodeID:  pe.ep.ID,
	}
	admit(cand)
	return cand
}

// factScope is the scope of facts extracted from an episode: what a user
// says in one session holds beyond it.
func factScope(s memory.Scope) memory.Scope {
	s.SessionID = ""
	return s
}

// admit applies the admission policy to a candidate.
func admit(c *candidate) {
	c.decision = memory.AdmitAccept
	c.reasons = []string{"extracted:" + c.extractor}
	if c.Cue != extract.CueNone {
		c.reasons = append(c.reasons, "cue:"+string(c.Cue))
	}
	if c.Hedged {
		c.reasons = append(c.reasons, "hedged")
	}
	if c.Confidence < 0.3 {
		c.decision = memory.AdmitDefer
		c.reasons = append(c.reasons, "low_confidence")
	}
}

func (e *Engine) structuredCandidate(pe *pendingEvent, p RememberParams) *candidate {
	typ := p.Type
	if typ == "" {
		typ = memory.TypeFact
	}
	crit := p.Criticality
	if crit == "" {
		crit = memory.CriticalityNormal
	}
	conf := p.Confidence
	if conf == 0 {
		conf = 0.9
	}
	subject := strings.ToLower(strings.TrimSpace(p.Subject))
	if subject == "" {
		subject = strings.ToLower(pe.ep.Speaker)
	}
	c := &candidate{
		Candidate: extract.Candidate{
			Type: typ, Subject: subject, Key: strings.ToLower(strings.TrimSpace(p.Key)), Value: p.Value,
			Content: strings.TrimSpace(p.Text), Confidence: conf, Criticality: crit,
			Start: 0, End: len(p.Text),
		},
		scope:      p.Scope,
		observedAt: pe.ep.OccurredAt,
		validFrom:  pe.ep.OccurredAt,
		validTo:    p.ValidTo,
		extractor:  "direct",
		source:     "remember",
		episodeID:  pe.ep.ID,
		decision:   memory.AdmitAccept,
		reasons:    []string{"direct"},
	}
	if p.ValidFrom != nil {
		c.validFrom = p.ValidFrom.UTC()
	}
	return c
}

// noteExtractor names the notes a remember keeps of statements no rule
// recognised (noteCandidate).
const noteExtractor = "note"

// noteCandidate keeps a remembered statement no rule recognised as a note
// slot keyed by its opening words, so restating it reinforces the same note.
func (e *Engine) noteCandidate(pe *pendingEvent) *candidate {
	terms := e.analyzer.QueryTerms(pe.ep.Content)
	if len(terms) > 6 {
		terms = terms[:6]
	}
	key := "note:" + strings.Join(terms, "_")
	if len(terms) == 0 {
		key = "note:" + pe.ep.ContentHash[:12]
	}
	return &candidate{
		Candidate: extract.Candidate{
			Type: memory.TypeFact, Subject: strings.ToLower(pe.ep.Speaker), Key: key,
			Value: strings.TrimSpace(pe.ep.Content), Content: strings.TrimSpace(pe.ep.Content),
			Confidence: 0.8, Criticality: memory.CriticalityNormal, End: len(pe.ep.Content),
		},
		scope:      factScope(pe.ep.Scope),
		observedAt: pe.ep.OccurredAt,
		validFrom:  pe.ep.OccurredAt,
		extractor:  noteExtractor,
		source:     "remember",
		episodeID:  pe.ep.ID,
		decision:   memory.AdmitAccept,
		reasons:    []string{"no_rule_matched", "kept_as_note"},
	}
}
