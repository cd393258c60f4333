package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/index"
	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// Procedural memory: after ProcedureMinSessions successful sessions of one
// task type, the steps those sessions had in common become a procedure.
//
// A capture says how a session ended with a task_result event whose
// metadata names the task type and the outcome:
//
//	{"kind": "task_result", "content": "deployed atlas",
//	 "metadata": {"task_type": "deploy_atlas", "outcome": "success"}}
//
// outcome is "success" or "failure"; the session is the capture's
// scope.session_id. Task results without a task type, an outcome or a
// session are ignored (counted in the report). The steps of a session's
// task are its agent_message and tool_call events between the session's
// previous task_result and this one; tool_result events are outputs, not
// steps to repeat. The procedure lives in the slot subject <task type>,
// key procedure:<task type>, in the sessions' scope without the session.
const (
	// ProcedureMinSessions successful sessions make a procedure.
	ProcedureMinSessions = 3
	// ProcedureMaxSessions is how many of a task type's latest successful
	// sessions are distilled.
	ProcedureMaxSessions = 20
	// ProcedureMaxSteps bounds a procedure's length.
	ProcedureMaxSteps = 10
	// ProcedureStepChars bounds one step's text.
	ProcedureStepChars = 100
	// ProcedureStaleAfter: a procedure no retrieval packed for this long
	// is flagged stale.
	ProcedureStaleAfter = 90 * 24 * time.Hour
	// ProcedureFailurePenalty is taken from a procedure's usefulness for
	// each failing session that used it.
	ProcedureFailurePenalty = 0.1
	// ProcedureSettleWithin: a use whose session reports no task_result
	// in this time is settled as "none" and never judged.
	ProcedureSettleWithin = 7 * 24 * time.Hour
)

// Bounds of one PromoteProcedures run; what is left waits for the next.
const (
	procedureMaxTaskResults = 10000 // task_result episodes read, newest first
	procedureMaxWrites      = 50    // procedures added, reinforced or superseded
	procedureMaxTraces      = 5000  // traces read for uses
	procedureMaxPending     = 1000  // uses settled
	procedureMaxEvents      = 500   // events read from one session
)

// procedureExtractor names promotion in provenance and the admission log.
const procedureExtractor = "procedures"

// Reason codes promotion writes to the admission log.
const (
	ReasonProcedurePromoted = "procedure_promoted"
	ReasonProcedureFailure  = "procedure_failure"
	ReasonProcedureStale    = "procedure_stale"
)

// ProcedureReport says what one PromoteProcedures run did.
type ProcedureReport struct {
	Namespace string `json:"namespace"`
	// TaskResults is how many task_result episodes were read; Ignored
	// how many of them lacked a task type, an outcome or a session.
	TaskResults int `json:"task_results"`
	Ignored     int `json:"ignored"`
	// Promoted, Reinforced and Superseded list the procedures written:
	// a new slot, new sessions confirming the same steps, new steps.
	Promoted   []ProcedureChange `json:"promoted"`
	Reinforced []ProcedureChange `json:"reinforced"`
	Superseded []ProcedureChange `json:"superseded"`
	// Waiting lists task types with successful sessions but fewer than
	// ProcedureMinSessions, or no steps in common.
	Waiting []TaskTally `json:"waiting"`
	// TracesRead and UsesRecorded: retrievals read since the last run,
	// and the (procedure, session) uses found in them.
	TracesRead   int `json:"traces_read"`
	UsesRecorded int `json:"uses_recorded"`
	// Failures lists failing sessions counted against a procedure now.
	Failures []ProcedureFailure `json:"failures"`
	// Stale lists the procedures flagged stale by this run.
	Stale []string `json:"stale"`
	// More says a bound was reached: run again for the rest.
	More bool `json:"more"`
}

// ProcedureChange is one procedure written by a run.
type ProcedureChange struct {
	TaskType  string   `json:"task_type"`
	MemoryID  string   `json:"memory_id"`
	VersionID string   `json:"version_id"`
	Sessions  int      `json:"sessions"` // successful sessions it cites
	Steps     []string `json:"steps"`
}

// TaskTally counts a task type's sessions.
type TaskTally struct {
	TaskType  string       `json:"task_type"`
	Scope     memory.Scope `json:"scope"`
	Successes int          `json:"successes"`
	Failures  int          `json:"failures"`
	Reason    string       `json:"reason"` // too_few_successes or no_common_steps
}

// ProcedureFailure is a failing session that used a procedure.
type ProcedureFailure struct {
	MemoryID  string `json:"memory_id"`
	VersionID string `json:"version_id"`
	SessionID string `json:"session_id"`
	EpisodeID string `json:"episode_id"` // its failing task_result
}

// Procedure is a procedural memory as Procedures lists it.
type Procedure struct {
	MemoryID  string       `json:"memory_id"`
	VersionID string       `json:"version_id"`
	Seq       int          `json:"seq"`
	TaskType  string       `json:"task_type,omitempty"` // "" for a procedure remembered directly
	Scope     memory.Scope `json:"scope"`
	Content   string       `json:"content"`
	Steps     []string     `json:"steps"`
	// EpisodeIDs are the task_result episodes of the successful sessions
	// it was distilled from (its evidence).
	EpisodeIDs   []string  `json:"episode_ids"`
	Successes    int       `json:"successes"`
	FailureCount int       `json:"failure_count"`
	Usefulness   float64   `json:"usefulness"`
	Trust        float64   `json:"trust"`
	Status       string    `json:"status"`
	PromotedAt   time.Time `json:"promoted_at"`
	// LastUsedAt is the last retrieval that packed it; nil when none has.
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
	// Stale: no retrieval packed it for ProcedureStaleAfter (counted from
	// its last use, or from its promotion when never used).
	Stale      bool       `json:"stale"`
	StaleSince *time.Time `json:"stale_since,omitempty"`
}

// Procedures lists the namespace's live procedural memories, by task type,
// with when each was last used and whether it is stale.
func (e *Engine) Procedures(ctx context.Context, ns string) ([]*Procedure, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("procedures: %w", err)
	}
	e.traces.Flush()
	out, _, err := e.procedures(ctx, e.store, ns, e.clock.Now())
	if err != nil {
		return nil, fmt.Errorf("procedures: %w", err)
	}
	return out, nil
}

// procedures reads the live procedural versions and their uses.
func (e *Engine) procedures(ctx context.Context, ex memory.Executor, ns string, now time.Time) ([]*Procedure, []*memory.Version, error) {
	vs, err := ex.ListVersions(ctx, memory.ListVersionsParams{
		Namespace: ns, Kinds: []memory.Kind{memory.KindProcedural},
		Statuses: []memory.Status{memory.StatusActive, memory.StatusContested}, WithoutEmbeddings: true,
	})
	if err != nil || len(vs) == 0 {
		return nil, nil, err
	}
	memIDs := make([]string, 0, len(vs))
	for _, v := range vs {
		if !slices.Contains(memIDs, v.MemoryID) {
			memIDs = append(memIDs, v.MemoryID)
		}
	}
	uses, err := ex.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: ns, MemoryIDs: memIDs})
	if err != nil {
		return nil, nil, err
	}
	lastUsed := make(map[string]time.Time)
	for _, u := range uses {
		if u.PackedAt.After(lastUsed[u.MemoryID]) {
			lastUsed[u.MemoryID] = u.PackedAt
		}
	}
	out := make([]*Procedure, 0, len(vs))
	for _, v := range vs {
		m, err := ex.GetMemory(ctx, memory.GetParams{Namespace: ns, ID: v.MemoryID})
		if err != nil {
			return nil, nil, err
		}
		p := &Procedure{
			MemoryID: v.MemoryID, VersionID: v.ID, Seq: v.Seq, Scope: v.Scope, Content: v.Content,
			Steps: procedureSteps(v), EpisodeIDs: v.EvidenceEpisodeIDs, FailureCount: v.FailureCount,
			Usefulness: v.Usefulness, Trust: v.Trust, Status: string(v.Status), PromotedAt: m.CreatedAt,
		}
		if v.Provenance.Extractor == procedureExtractor {
			p.TaskType = strings.TrimPrefix(v.Key, "procedure:")
			p.Successes = len(v.EvidenceEpisodeIDs)
		}
		if p.EpisodeIDs == nil {
			p.EpisodeIDs = []string{}
		}
		since := m.CreatedAt
		if t, ok := lastUsed[v.MemoryID]; ok {
			p.LastUsedAt = timePtr(t)
			if t.After(since) {
				since = t
			}
		}
		if staleAt := since.Add(ProcedureStaleAfter); !now.Before(staleAt) {
			p.Stale, p.StaleSince = true, timePtr(staleAt)
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *Procedure) int {
		return cmp.Or(cmp.Compare(a.TaskType, b.TaskType), cmp.Compare(a.MemoryID, b.MemoryID), cmp.Compare(a.Seq, b.Seq))
	})
	return out, vs, nil
}

// procedureSteps reads a version's steps: one per line of its value for a
// promoted procedure, else its content as one step.
func procedureSteps(v *memory.Version) []string {
	if v.Provenance.Extractor == procedureExtractor && v.Value != "" {
		return strings.Split(v.Value, "\n")
	}
	return []string{v.Content}
}

// taskGroup is one task type in one scope: the sessions that reported it.
type taskGroup struct {
	scope     memory.Scope
	taskType  string
	sessions  []string                   // newest result first
	result    map[string]*memory.Episode // session → its latest result of this type
	successes []*memory.Episode          // newest first
	failures  int
}

// procedurePlan is a procedure to write.
type procedurePlan struct {
	g         *taskGroup
	evidence  []*memory.Episode // the task_results distilled, newest first
	steps     []string
	content   string
	value     string
	vec       search.Vector
	sig       string
	confident float64
}

// PromoteProcedures distils procedures from the namespace's successful
// sessions, records which sessions used which procedure, counts each
// failing session that used one against it once, and flags procedures no
// retrieval packed for ProcedureStaleAfter. It is idempotent: a second run
// with nothing new writes nothing. Each run does bounded work (see
// ProcedureReport.More).
func (e *Engine) PromoteProcedures(ctx context.Context, ns string) (*ProcedureReport, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("promote procedures: %w", err)
	}
	rep := &ProcedureReport{Namespace: ns, Promoted: []ProcedureChange{}, Reinforced: []ProcedureChange{},
		Superseded: []ProcedureChange{}, Waiting: []TaskTally{}, Failures: []ProcedureFailure{}, Stale: []string{}}
	// This process's retrievals are read from the store: write them first.
	e.traces.Flush()

	// Reads and distillation happen before the writer lock (they may read
	// many sessions), embedding too (a provider round trip); the writes
	// check the slot again under the lock.
	groups, err := e.taskGroups(ctx, ns, rep)
	if err != nil {
		return nil, fmt.Errorf("promote procedures: %w", err)
	}
	plans, err := e.planProcedures(ctx, ns, groups, rep)
	if err != nil {
		return nil, fmt.Errorf("promote procedures: %w", err)
	}
	if len(plans) > 0 {
		texts := make([]string, len(plans))
		for i, p := range plans {
			texts[i] = p.content
		}
		vecs, err := e.embedder.Embed(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("promote procedures: embed: %w", err)
		}
		if len(vecs) != len(texts) {
			return nil, fmt.Errorf("promote procedures: embed: %d vectors for %d texts", len(vecs), len(texts))
		}
		for i, p := range plans {
			p.vec = vecs[i]
		}
	}

	st, unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("promote procedures: %w", err)
	}
	defer unlock()
	now := e.clock.Now()
	var (
		w    writeBatch
		docs []search.Doc
		out  *ProcedureReport
	)
	err = e.store.InTx(ctx, func(tx memory.Executor) error {
		w.reset()
		r := *rep // a retried transaction starts from the same report
		out = &r
		var adms []*memory.Admission
		for _, p := range plans {
			adm, err := e.writeProcedure(ctx, tx, st, &w, p, now, out)
			if err != nil {
				return err
			}
			if adm != nil {
				adms = append(adms, adm)
			}
		}
		if err := e.recordUses(ctx, tx, st, ns, out); err != nil {
			return err
		}
		fails, err := e.settleUses(ctx, tx, &w, ns, now, out)
		if err != nil {
			return err
		}
		adms = append(adms, fails...)
		stale, err := e.flagStale(ctx, tx, ns, now, out)
		if err != nil {
			return err
		}
		adms = append(adms, stale...)
		if len(adms) > 0 {
			if err := tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: adms}); err != nil {
				return err
			}
		}
		docs = docs[:0]
		for _, v := range w.created {
			doc, err := e.index.Doc(v)
			if err != nil {
				return err
			}
			docs = append(docs, doc)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("promote procedures: %w", err)
	}
	for i, v := range w.created {
		st.Put(v, docs[i])
	}
	for _, v := range w.updated {
		st.UpdateState(v)
	}
	return out, nil
}

// taskGroups reads the namespace's task results and groups them by scope
// and task type; a session counts once per task type, as its latest result
// of that type says.
func (e *Engine) taskGroups(ctx context.Context, ns string, rep *ProcedureReport) ([]*taskGroup, error) {
	results, err := e.store.ListTaskResults(ctx, memory.ListTaskResultsParams{Namespace: ns, Limit: procedureMaxTaskResults})
	if err != nil {
		return nil, err
	}
	rep.TaskResults = len(results)
	if len(results) == procedureMaxTaskResults {
		rep.More = true // the oldest results wait; the newest decide
	}
	type groupKey struct {
		scope    memory.Scope
		taskType string
	}
	byKey := make(map[groupKey]*taskGroup)
	var groups []*taskGroup
	for _, ep := range results { // newest first
		taskType, outcome, ok := taskOutcome(ep)
		if !ok || ep.Scope.SessionID == "" {
			rep.Ignored++
			continue
		}
		k := groupKey{factScope(ep.Scope), taskType}
		g := byKey[k]
		if g == nil {
			g = &taskGroup{scope: k.scope, taskType: taskType, result: make(map[string]*memory.Episode)}
			byKey[k] = g
			groups = append(groups, g)
		}
		sid := ep.Scope.SessionID
		if _, seen := g.result[sid]; seen {
			continue // an older result of a session already counted
		}
		g.result[sid] = ep
		g.sessions = append(g.sessions, sid)
		if outcome == memory.OutcomeSuccess {
			g.successes = append(g.successes, ep)
		} else {
			g.failures++
		}
	}
	slices.SortFunc(groups, func(a, b *taskGroup) int {
		return cmp.Or(cmp.Compare(a.taskType, b.taskType), cmp.Compare(scopeKey(a.scope), scopeKey(b.scope)))
	})
	return groups, nil
}

func scopeKey(s memory.Scope) string {
	return s.AgentID + "\x00" + s.UserID + "\x00" + s.ProjectID + "\x00" + s.SessionID
}

// taskOutcome reads a task_result's task type and outcome from its metadata.
func taskOutcome(ep *memory.Episode) (taskType, outcome string, ok bool) {
	if ep.Kind != memory.EpisodeTaskResult {
		return "", "", false
	}
	taskType = NormalizeTaskType(ep.Metadata["task_type"])
	switch strings.ToLower(strings.TrimSpace(ep.Metadata["outcome"])) {
	case "success":
		outcome = memory.OutcomeSuccess
	case "failure":
		outcome = memory.OutcomeFailure
	}
	return taskType, outcome, taskType != "" && outcome != ""
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// NormalizeTaskType turns a task type into its slot form: lowercase words
// of letters and digits joined by '_' ("Deploy Atlas" → deploy_atlas), at
// most 64 characters; "" when nothing is left.
func NormalizeTaskType(s string) string {
	s = strings.Trim(nonWord.ReplaceAllString(strings.ToLower(s), "_"), "_")
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "_")
	}
	return s
}

// planProcedures distils the task types that have enough successful
// sessions and something new since their procedure was last written.
func (e *Engine) planProcedures(ctx context.Context, ns string, groups []*taskGroup, rep *ProcedureReport) ([]*procedurePlan, error) {
	var plans []*procedurePlan
	for _, g := range groups {
		if len(g.successes) == 0 {
			continue
		}
		tally := TaskTally{TaskType: g.taskType, Scope: g.scope, Successes: len(g.successes), Failures: g.failures}
		if len(g.successes) < ProcedureMinSessions {
			tally.Reason = "too_few_successes"
			rep.Waiting = append(rep.Waiting, tally)
			continue
		}
		evidence := g.successes
		if len(evidence) > ProcedureMaxSessions {
			evidence = evidence[:ProcedureMaxSessions]
		}
		cur, err := e.liveProcedure(ctx, e.store, ns, g)
		if err != nil {
			return nil, err
		}
		if cur != nil && citesAll(cur, evidence) {
			continue // nothing new since it was written
		}
		if len(plans) == procedureMaxWrites {
			rep.More = true
			break
		}
		runs := make([][]procStep, 0, len(evidence))
		for _, tr := range evidence {
			steps, err := e.sessionSteps(ctx, ns, tr)
			if err != nil {
				return nil, err
			}
			runs = append(runs, steps)
		}
		steps := commonSteps(runs, ProcedureMaxSteps)
		if len(steps) == 0 {
			tally.Reason = "no_common_steps"
			rep.Waiting = append(rep.Waiting, tally)
			continue
		}
		p := &procedurePlan{g: g, evidence: evidence, steps: steps, value: strings.Join(steps, "\n")}
		p.content = procedureContent(g.taskType, steps)
		p.sig = index.Signature(e.analyzer, p.content)
		// Confidence follows the task type's record: how often its
		// sessions succeeded, within [0.5, 0.95].
		p.confident = min(0.95, max(0.5, float64(len(g.successes))/float64(len(g.successes)+g.failures)))
		plans = append(plans, p)
	}
	return plans, nil
}

// liveProcedure returns the live version of a task group's procedure slot,
// or nil.
func (e *Engine) liveProcedure(ctx context.Context, ex memory.Records, ns string, g *taskGroup) (*memory.Version, error) {
	m, err := ex.FindMemory(ctx, memory.FindMemoryParams{Namespace: ns, Scope: g.scope, Subject: g.taskType, Key: "procedure:" + g.taskType})
	if errors.Is(err, memory.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	vs, err := ex.ListVersions(ctx, memory.ListVersionsParams{Namespace: ns, MemoryID: m.ID, WithoutEmbeddings: true})
	if err != nil {
		return nil, err
	}
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].Status.Live() {
			return vs[i], nil
		}
	}
	return nil, nil
}

func citesAll(v *memory.Version, eps []*memory.Episode) bool {
	for _, ep := range eps {
		if !slices.Contains(v.EvidenceEpisodeIDs, ep.ID) {
			return false
		}
	}
	return true
}

func procedureContent(taskType string, steps []string) string {
	var b strings.Builder
	b.WriteString("Procedure for ")
	b.WriteString(strings.ReplaceAll(taskType, "_", " "))
	b.WriteString(":")
	for i, s := range steps {
		if i > 0 {
			b.WriteString(";")
		}
		b.WriteString(" ")
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString(". ")
		b.WriteString(s)
	}
	b.WriteString(".")
	return b.String()
}

// procStep is one normalised step of a session: key compares steps across
// sessions, text is what the procedure says.
type procStep struct {
	key, text string
}

// sessionSteps returns the steps of the task a task_result closes: the
// session's agent messages and tool calls after its previous task_result,
// up to this one, in order, each step once.
func (e *Engine) sessionSteps(ctx context.Context, ns string, tr *memory.Episode) ([]procStep, error) {
	eps, err := e.store.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns, SessionID: tr.Scope.SessionID, Limit: procedureMaxEvents})
	if err != nil {
		return nil, err
	}
	var window []*memory.Episode
	reached := false
	for _, ep := range eps { // by occurred_at, then id
		if ep.ID == tr.ID || ep.OccurredAt.After(tr.OccurredAt) {
			reached = true
			break
		}
		if ep.Kind == memory.EpisodeTaskResult {
			window = window[:0] // an earlier task of the session ended here
			continue
		}
		window = append(window, ep)
	}
	if !reached && len(eps) == procedureMaxEvents {
		// The session is longer than one read: its task's steps lie
		// beyond what was read, and the first events are not them.
		return nil, nil
	}
	var steps []procStep
	seen := make(map[string]bool)
	for _, ep := range window {
		if fromMemory(ep.Metadata) || ep.Scope != tr.Scope {
			continue
		}
		var s procStep
		switch ep.Kind {
		case memory.EpisodeToolCall:
			s = toolStep(ep)
		case memory.EpisodeAgentMessage:
			s = e.messageStep(ep)
		}
		if s.key == "" || seen[s.key] {
			continue
		}
		seen[s.key] = true
		steps = append(steps, s)
	}
	return steps, nil
}

var (
	plainWord = regexp.MustCompile(`^[a-z][a-z0-9_.-]*$`)
	trimTool  = "`'\"$>:;,()[]{} "
)

// toolStep normalises a tool call to its tool and the shape of its
// arguments: the tool from metadata "tool" (or "tool_name", "name") or the
// content's first word; for JSON arguments their sorted keys ("read_file
// (path)"), for a command line its leading plain words ("pnpm install"),
// so values (paths, messages, ids) do not make two calls differ.
func toolStep(ep *memory.Episode) procStep {
	name := ""
	for _, k := range []string{"tool", "tool_name", "name"} {
		if name = strings.ToLower(strings.Trim(ep.Metadata[k], trimTool)); name != "" {
			break
		}
	}
	content := strings.TrimSpace(ep.Content)
	var obj map[string]any
	if strings.HasPrefix(content, "{") && json.Unmarshal([]byte(content), &obj) == nil {
		if name == "" {
			for _, k := range []string{"tool", "name"} {
				if s, ok := obj[k].(string); ok {
					name = strings.ToLower(strings.Trim(s, trimTool))
					delete(obj, k)
					break
				}
			}
		}
		if args, ok := obj["arguments"].(map[string]any); ok {
			obj = args
		}
		if name == "" {
			return procStep{}
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		text := clip(name+"("+strings.Join(keys, ", ")+")", ProcedureStepChars-5)
		return procStep{key: "tool:" + text, text: "Call " + text}
	}
	var words []string
	for _, w := range strings.Fields(content) {
		// Quotes and a shell prompt ("$ `make build`") are not words.
		if w = strings.Trim(w, trimTool); w != "" {
			words = append(words, w)
		}
	}
	if name == "" {
		if len(words) == 0 {
			return procStep{}
		}
		name, words = strings.ToLower(words[0]), words[1:]
	}
	parts := []string{name}
	for _, w := range words {
		if len(parts) == 3 || !plainWord.MatchString(w) {
			break
		}
		parts = append(parts, w)
	}
	text := clip(strings.Join(parts, " "), ProcedureStepChars-4)
	return procStep{key: "tool:" + text, text: "Run " + text}
}

// messageStep normalises an agent message to its first sentence; two
// sentences with the same analysed terms are the same step. Short
// acknowledgements ("Done!") are no steps.
func (e *Engine) messageStep(ep *memory.Episode) procStep {
	sentence := firstSentence(ep.Content)
	if len(strings.Fields(sentence)) < 3 || !extract.Gate(sentence).Keep {
		return procStep{}
	}
	sig := index.Signature(e.analyzer, sentence)
	if sig == "" {
		return procStep{}
	}
	return procStep{key: "say:" + sig, text: clip(sentence, ProcedureStepChars)}
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	for i, r := range s {
		if r == '\n' {
			return strings.TrimSpace(s[:i])
		}
		if (r == '.' || r == '!' || r == '?') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n') {
			return strings.TrimSpace(s[:i])
		}
	}
	return strings.TrimRight(s, ".!? ")
}

// clip shortens s to at most n bytes, at a word boundary when there is one.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > n/2 {
		cut = sp
	}
	return strings.TrimSpace(s[:cut])
}

// commonSteps returns the steps most sessions share, in the order they
// took them: a step is kept when a strict majority of the sessions took
// it; kept steps are ordered by their mean position among the kept steps
// of each session that took them (ties: more sessions first, then the
// key), and worded as most sessions worded them. At most limit steps: the
// most shared.
func commonSteps(runs [][]procStep, limit int) []string {
	n := len(runs)
	support := make(map[string]int)
	texts := make(map[string]map[string]int)
	for _, run := range runs {
		for _, s := range run {
			support[s.key]++
			if texts[s.key] == nil {
				texts[s.key] = make(map[string]int)
			}
			texts[s.key][s.text]++
		}
	}
	kept := make(map[string]bool)
	for k, c := range support {
		if 2*c > n {
			kept[k] = true
		}
	}
	if len(kept) == 0 {
		return nil
	}
	posSum := make(map[string]float64)
	for _, run := range runs {
		var in []string
		for _, s := range run {
			if kept[s.key] {
				in = append(in, s.key)
			}
		}
		for i, k := range in {
			posSum[k] += float64(i) / float64(len(in))
		}
	}
	keys := make([]string, 0, len(kept))
	for k := range kept {
		keys = append(keys, k)
	}
	mean := func(k string) float64 { return posSum[k] / float64(support[k]) }
	byPosition := func(a, b string) int {
		return cmp.Or(cmp.Compare(mean(a), mean(b)), cmp.Compare(support[b], support[a]), cmp.Compare(a, b))
	}
	if len(keys) > limit {
		slices.SortFunc(keys, func(a, b string) int {
			return cmp.Or(cmp.Compare(support[b], support[a]), byPosition(a, b))
		})
		keys = keys[:limit]
	}
	slices.SortFunc(keys, byPosition)
	out := make([]string, len(keys))
	for i, k := range keys {
		best, bestN := "", 0
		for t, c := range texts[k] {
			if c > bestN || (c == bestN && t < best) {
				best, bestN = t, c
			}
		}
		out[i] = best
	}
	return out
}

// writeProcedure writes a plan: a new slot, the same steps reinforced by
// new sessions, or new steps superseding the old ones. It checks the slot
// again inside the transaction, so a concurrent run writes nothing twice.
func (e *Engine) writeProcedure(ctx context.Context, tx memory.Executor, st *nsState, w *writeBatch, p *procedurePlan, now time.Time, rep *ProcedureReport) (*memory.Admission, error) {
	g := p.g
	cur, err := e.liveProcedure(ctx, tx, st.Name(), g)
	if err != nil {
		return nil, err
	}
	if cur != nil && citesAll(cur, p.evidence) {
		return nil, nil
	}
	evidence := make([]string, len(p.evidence))
	for i, ep := range p.evidence {
		evidence[i] = ep.ID
	}
	newest := p.evidence[0]
	change := ProcedureChange{TaskType: g.taskType, Steps: p.steps}
	adm := &memory.Admission{
		ID: ids.New(ids.Admission), Namespace: st.Name(), EpisodeID: newest.ID, Decision: memory.AdmitAccept,
		Reasons: []string{ReasonProcedurePromoted, fmt.Sprintf("sessions:%d", len(p.evidence))},
		Content: p.content, Extractor: procedureExtractor, CreatedAt: now,
	}

	if cur != nil && cur.Value == p.value {
		// The same steps, confirmed by new sessions.
		for _, id := range evidence {
			if !slices.Contains(cur.EvidenceEpisodeIDs, id) {
				cur.EvidenceEpisodeIDs = append(cur.EvidenceEpisodeIDs, id)
			}
		}
		cur.ReinforcementCount = len(cur.EvidenceEpisodeIDs) - 1
		cur.Confidence = p.confident
		if err := e.touch(ctx, tx, w, cur, nil, now); err != nil {
			return nil, err
		}
		change.MemoryID, change.VersionID, change.Sessions = cur.MemoryID, cur.ID, len(cur.EvidenceEpisodeIDs)
		rep.Reinforced = append(rep.Reinforced, change)
		adm.MemoryID, adm.VersionID, adm.Operation = cur.MemoryID, cur.ID, memory.OpReinforce
		return adm, nil
	}

	var (
		m   *memory.Memory
		seq = 1
	)
	if cur != nil {
		m, err = tx.GetMemory(ctx, memory.GetParams{Namespace: st.Name(), ID: cur.MemoryID})
		if err != nil {
			return nil, err
		}
		all, err := tx.ListVersions(ctx, memory.ListVersionsParams{Namespace: st.Name(), MemoryID: m.ID, WithoutEmbeddings: true})
		if err != nil {
			return nil, err
		}
		seq = memory.NextSeq(all)
	} else {
		m, err = tx.FindMemory(ctx, memory.FindMemoryParams{Namespace: st.Name(), Scope: g.scope, Subject: g.taskType, Key: "procedure:" + g.taskType})
		if errors.Is(err, memory.ErrNotFound) {
			m = &memory.Memory{
				ID: ids.New(ids.Memory), Namespace: st.Name(), Scope: g.scope, Kind: memory.KindProcedural,
				Subject: g.taskType, Key: "procedure:" + g.taskType, CreatedAt: now, UpdatedAt: now,
			}
			if err := tx.CreateMemory(ctx, m); err != nil {
				return nil, err
			}
		} else if err != nil {
			return nil, err
		} else {
			// The slot exists with no live version (expired, forgotten):
			// the procedure starts it again.
			all, err := tx.ListVersions(ctx, memory.ListVersionsParams{Namespace: st.Name(), MemoryID: m.ID, WithoutEmbeddings: true})
			if err != nil {
				return nil, err
			}
			seq = memory.NextSeq(all)
		}
	}
	v := &memory.Version{
		ID: ids.New(ids.Version), MemoryID: m.ID, Namespace: st.Name(), Seq: seq, Scope: g.scope,
		Kind: memory.KindProcedural, Type: memory.TypeProcedure, Subject: g.taskType, Key: m.Key,
		Value: p.value, Content: p.content, Criticality: memory.CriticalityNormal,
		Confidence: p.confident, Usefulness: memory.NeutralUsefulness, ReinforcementCount: len(evidence) - 1,
		Status: memory.StatusActive, Operation: memory.OpAdd,
		ObservedAt: newest.OccurredAt, RecordedAt: now, ValidFrom: now, UpdatedAt: now,
		EvidenceEpisodeIDs: evidence,
		Provenance: memory.Provenance{
			Extractor: procedureExtractor, Embedder: e.embedder.Name(), EmbedderDim: e.embedder.Dim(), Source: "promotion",
		},
		Tokens:    e.counter.Count(p.content),
		Embedding: p.vec.EncodeCompact(),
	}
	v.Trust = trustOf(v, now)
	if cur != nil {
		v.Operation = memory.OpSupersede
		cur.Status, cur.SupersededBy = memory.StatusSuperseded, v.ID
		if cur.ValidTo == nil || cur.ValidTo.After(now) {
			cur.ValidTo = timePtr(now)
		}
		if err := e.touch(ctx, tx, w, cur, nil, now); err != nil {
			return nil, err
		}
	}
	if err := tx.CreateVersion(ctx, v); err != nil {
		return nil, err
	}
	w.created = append(w.created, v)
	w.noteFact(v, p.sig)
	change.MemoryID, change.VersionID, change.Sessions = m.ID, v.ID, len(evidence)
	if cur != nil {
		rep.Superseded = append(rep.Superseded, change)
	} else {
		rep.Promoted = append(rep.Promoted, change)
	}
	adm.MemoryID, adm.VersionID, adm.Operation = m.ID, v.ID, v.Operation
	return adm, nil
}

// recordUses reads the traces made since the last run and records, per
// procedure and session, the latest retrieval that packed it.
func (e *Engine) recordUses(ctx context.Context, tx memory.Executor, st *nsState, ns string, rep *ProcedureReport) error {
	cursor, err := tx.ProcedureCursor(ctx, memory.ScanParams{Namespace: ns})
	if err != nil {
		return err
	}
	// Since is inclusive: traces at the cursor's instant are read again
	// (recording a use twice changes nothing), so none made in that same
	// instant after the last run is missed.
	traces, err := tx.ListTracesAfter(ctx, memory.ListTracesAfterParams{Namespace: ns, Since: cursor, Limit: procedureMaxTraces})
	if err != nil || len(traces) == 0 {
		return err
	}
	rep.TracesRead = len(traces)
	if len(traces) == procedureMaxTraces {
		rep.More = true
	}
	type useKey struct{ mem, session string }
	latest := make(map[useKey]*memory.ProcedureUse)
	var order []useKey
	for _, t := range traces {
		for _, it := range t.Items {
			if !it.Packed {
				continue
			}
			en, ok := st.Entry(it.VersionID)
			if !ok || en.V.Kind != memory.KindProcedural {
				continue
			}
			k := useKey{it.MemoryID, t.Scope.SessionID}
			u := latest[k]
			if u == nil {
				order = append(order, k)
			}
			if u == nil || !t.CreatedAt.Before(u.PackedAt) {
				latest[k] = &memory.ProcedureUse{MemoryID: it.MemoryID, SessionID: t.Scope.SessionID, VersionID: it.VersionID, PackedAt: t.CreatedAt}
			}
		}
	}
	uses := make([]*memory.ProcedureUse, len(order))
	for i, k := range order {
		uses[i] = latest[k]
	}
	if len(uses) > 0 {
		if err := tx.RecordProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: uses}); err != nil {
			return err
		}
	}
	rep.UsesRecorded = len(uses)
	if last := traces[len(traces)-1].CreatedAt; last.After(cursor) {
		return tx.SetProcedureCursor(ctx, memory.SetProcedureCursorParams{Namespace: ns, At: last})
	}
	return nil
}

// settleUses judges the uses whose sessions have reported how they ended:
// a failure counts against the procedure version the session packed, once
// (the use settles with it); a success settles; a use outside a session,
// or one whose session reports nothing within ProcedureSettleWithin,
// settles as none.
func (e *Engine) settleUses(ctx context.Context, tx memory.Executor, w *writeBatch, ns string, now time.Time, rep *ProcedureReport) ([]*memory.Admission, error) {
	pending, err := tx.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: ns, Pending: true, Limit: procedureMaxPending})
	if err != nil {
		return nil, err
	}
	if len(pending) == procedureMaxPending {
		rep.More = true
	}
	var adms []*memory.Admission
	settle := func(u *memory.ProcedureUse, outcome string) error {
		return tx.SettleProcedureUse(ctx, memory.SettleProcedureUseParams{
			Namespace: ns, MemoryID: u.MemoryID, SessionID: u.SessionID, Outcome: outcome, At: now,
		})
	}
	for _, u := range pending {
		if u.SessionID == "" {
			if err := settle(u, memory.OutcomeNone); err != nil {
				return nil, err
			}
			continue
		}
		results, err := tx.ListTaskResults(ctx, memory.ListTaskResultsParams{Namespace: ns, SessionID: u.SessionID})
		if err != nil {
			return nil, err
		}
		var failed, succeeded *memory.Episode
		for _, ep := range results { // newest first
			_, outcome, ok := taskOutcome(ep)
			if !ok {
				continue
			}
			if outcome == memory.OutcomeFailure && failed == nil {
				failed = ep
			}
			if outcome == memory.OutcomeSuccess && succeeded == nil {
				succeeded = ep
			}
		}
		switch {
		case failed != nil:
			v, err := tx.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: u.VersionID})
			if err != nil && !errors.Is(err, memory.ErrNotFound) {
				return nil, err
			}
			if err := settle(u, memory.OutcomeFailure); err != nil {
				return nil, err
			}
			if v == nil || v.Status == memory.StatusDeleted {
				continue // forgotten since: nothing to count against
			}
			counted, err := failureLogged(ctx, tx, ns, v.MemoryID, u.SessionID)
			if err != nil {
				return nil, err
			}
			if counted {
				// Uses are bookkeeping: an import of an export written
				// before exports carried them rebuilds them from the
				// traces, pending; the admission log, exported with the
				// memory, says this session was already counted.
				continue
			}
			v.FailureCount++
			v.Usefulness = max(0, v.Usefulness-ProcedureFailurePenalty)
			if err := e.touch(ctx, tx, w, v, nil, now); err != nil {
				return nil, err
			}
			rep.Failures = append(rep.Failures, ProcedureFailure{MemoryID: v.MemoryID, VersionID: v.ID, SessionID: u.SessionID, EpisodeID: failed.ID})
			adms = append(adms, &memory.Admission{
				ID: ids.New(ids.Admission), Namespace: ns, EpisodeID: failed.ID, MemoryID: v.MemoryID, VersionID: v.ID,
				Decision: memory.AdmitAccept, Reasons: []string{ReasonProcedureFailure, "session:" + u.SessionID},
				Content: v.Content, Extractor: procedureExtractor, CreatedAt: now,
			})
		case succeeded != nil:
			if err := settle(u, memory.OutcomeSuccess); err != nil {
				return nil, err
			}
		case now.Sub(u.PackedAt) >= ProcedureSettleWithin:
			if err := settle(u, memory.OutcomeNone); err != nil {
				return nil, err
			}
		}
	}
	return adms, nil
}

// failureLogged reports whether a failing session was already counted
// against a memory.
func failureLogged(ctx context.Context, tx memory.AdmissionLog, ns, memoryID, session string) (bool, error) {
	adms, err := tx.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns, MemoryID: memoryID})
	if err != nil {
		return false, err
	}
	for _, a := range adms {
		if slices.Contains(a.Reasons, ReasonProcedureFailure) && slices.Contains(a.Reasons, "session:"+session) {
			return true, nil
		}
	}
	return false, nil
}

// flagStale logs procedure_stale in the admission log for each live
// procedure that turned stale since its last use, once.
func (e *Engine) flagStale(ctx context.Context, tx memory.Executor, ns string, now time.Time, rep *ProcedureReport) ([]*memory.Admission, error) {
	procs, vs, err := e.procedures(ctx, tx, ns, now)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*memory.Version, len(vs))
	for _, v := range vs {
		byID[v.ID] = v
	}
	var adms []*memory.Admission
	for _, p := range procs {
		if !p.Stale {
			continue
		}
		logged, err := tx.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: ns, MemoryID: p.MemoryID})
		if err != nil {
			return nil, err
		}
		already := false
		for _, a := range logged { // newest first
			if a.CreatedAt.Before(*p.StaleSince) {
				break
			}
			if a.VersionID == p.VersionID && slices.Contains(a.Reasons, ReasonProcedureStale) {
				already = true
				break
			}
		}
		if already {
			continue
		}
		since := "never_used"
		if p.LastUsedAt != nil {
			since = "last_used:" + p.LastUsedAt.Format(time.RFC3339)
		}
		rep.Stale = append(rep.Stale, p.MemoryID)
		adms = append(adms, &memory.Admission{
			ID: ids.New(ids.Admission), Namespace: ns, MemoryID: p.MemoryID, VersionID: p.VersionID,
			Decision: memory.AdmitAccept, Reasons: []string{ReasonProcedureStale, since},
			Content: byID[p.VersionID].Content, Extractor: procedureExtractor, CreatedAt: now,
		})
	}
	return adms, nil
}
