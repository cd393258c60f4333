// Package mcpserver serves mnemon's memory to agents over the Model Context
// Protocol (github.com/modelcontextprotocol/go-sdk): `mnemon mcp` runs it
// on stdio, and `mnemon serve` mounts it at /mcp over streamable HTTP.
//
// A server is bound to one namespace when it is made; no tool takes a
// namespace, so a call can never reach another tenant's memories (an id
// from another namespace is simply not found). A server made for a reader
// lists only the tools that read.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

// Binding is what a server acts as: the namespace its tools touch and
// whether it may write.
type Binding struct {
	Namespace string
	CanWrite  bool
}

// Tools names every tool, in the order tools/list reports them.
var Tools = []string{"remember", "recall", "forget", "list_facts", "history", "feedback", "explain"}

// Options configures a server.
type Options struct {
	Version string       // reported to clients
	Logger  *slog.Logger // tool failures the caller cannot fix; default: discard
}

// New returns an MCP server whose tools act on b.Namespace of eng.
func New(eng *engine.Engine, b Binding, opts Options) *mcp.Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "mnemon", Title: "mnemon memory", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "Long-term memory for this agent. Call recall before a task to get the facts that matter " +
			"(each with a trust action: FOLLOW, HINT); call remember when the user states something worth keeping; " +
			"forget removes a memory for good; list_facts and history show what is stored and how it changed.",
	})
	if !encodeViaSDK {
		s.AddReceivingMiddleware(encodeToolResults)
	}
	t := &tools{eng: eng, ns: b.Namespace, log: opts.Logger}
	if b.CanWrite {
		addTool(s, &mcp.Tool{Name: "remember", Description: "Store a statement or a structured fact now. " +
			"mnemon extracts, reconciles (ADD, REINFORCE, SUPERSEDE, CONTEST) and versions it; the answer says what it did. " +
			"A statement no rule reads is kept as a note; text that states nothing to keep (a question, what someone " +
			"else said) is kept only as said, an episode recall still finds."}, t.remember)
	}
	addTool(s, &mcp.Tool{Name: "recall", Description: "Retrieve the memories that matter for a query, " +
		"packed into a token budget, each with its citation and a trust action. Keep the retrieval_id to send feedback.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.recall)
	addTool(s, &mcp.Tool{Name: "respond", Description: "Answer a question with the server's chat model from the " +
		"memories recalled for it. Returns the answer, the memories it used and the retrieval_id for feedback. " +
		"Fails with model_not_configured when the server has no chat model; recall works without one.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)}}, t.respond)
	if b.CanWrite {
		addTool(s, &mcp.Tool{Name: "forget", Description: "Forget a memory (by memory or version id): it and the " +
			"statements it came from leave retrieval for good (kept as tombstones). Forgetting twice changes nothing.",
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true}}, t.forget)
	}
	addTool(s, &mcp.Tool{Name: "list_facts", Description: "List distilled facts (current ones, active or contested: " +
		"disputed, or said to have changed; include_history adds superseded and expired versions), optionally about one subject.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.listFacts)
	addTool(s, &mcp.Tool{Name: "history", Description: "Show every version of one memory: how its value " +
		"changed, which operation made each version, and its validity.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.history)
	if b.CanWrite {
		addTool(s, &mcp.Tool{Name: "feedback", Description: "Say how a recall served the task: helpful, unused " +
			"or harmful (with severity). Moves usefulness and trust only, never facts; with the output, only the " +
			"memories it used are reinforced. Repeating a judgement changes nothing."}, t.feedback)
	}
	addTool(s, &mcp.Tool{Name: "explain", Description: "Explain a memory (why it is stored: evidence, admission " +
		"reasons, operations, what superseded it, how feedback moved its usefulness and trust) or a retrieval " +
		"(why each candidate ranked).", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, t.explain)
	return s
}

func ptr[T any](v T) *T { return &v }

type tools struct {
	eng *engine.Engine
	ns  string
	log *slog.Logger
}

// ScopeInput says whose a call is (agent, user, project: hard filters) and
// in which conversation it happens (session: a ranking hint, not a wall).
type ScopeInput struct {
	AgentID   string `json:"agent_id,omitempty" jsonschema:"agent scope: other agents' memories are never served"`
	UserID    string `json:"user_id,omitempty" jsonschema:"user scope: other users' memories are never served"`
	ProjectID string `json:"project_id,omitempty" jsonschema:"project scope: other projects' memories are never served"`
	SessionID string `json:"session_id,omitempty" jsonschema:"the current conversation (at most 256 bytes): its items rank a little higher; earlier sessions stay visible"`
}

func (s ScopeInput) scope() memory.Scope {
	return memory.Scope{AgentID: s.AgentID, UserID: s.UserID, ProjectID: s.ProjectID, SessionID: s.SessionID}
}

// RememberInput is the remember tool's arguments.
type RememberInput struct {
	Text        string  `json:"text" jsonschema:"the statement, in natural language (e.g. I moved to Lisbon)"`
	Subject     string  `json:"subject,omitempty" jsonschema:"structured fact: who or what it is about (e.g. user)"`
	Key         string  `json:"key,omitempty" jsonschema:"structured fact: the attribute (e.g. lives_in)"`
	Value       string  `json:"value,omitempty" jsonschema:"structured fact: the value (e.g. Lisbon)"`
	Type        string  `json:"type,omitempty" jsonschema:"fact, preference, decision, constraint, goal, lesson or procedure"`
	Criticality string  `json:"criticality,omitempty" jsonschema:"normal, high or must_include"`
	Confidence  float64 `json:"confidence,omitempty" jsonschema:"0 to 1; default from the wording"`
	ScopeInput
}

// OutcomeOutput is what remember did with one candidate memory.
type OutcomeOutput struct {
	Decision  string   `json:"decision" jsonschema:"accept, defer, reject or quarantine"`
	Operation string   `json:"operation,omitempty" jsonschema:"ADD, REINFORCE, SUPERSEDE, CONTEST or NOOP; absent when the text was kept only as an episode"`
	Reasons   []string `json:"reasons"`
	MemoryID  string   `json:"memory_id,omitempty"`
	VersionID string   `json:"version_id,omitempty"`
	Content   string   `json:"content"`
}

// RememberOutput is the remember tool's result.
type RememberOutput struct {
	EpisodeID string          `json:"episode_id"`
	Outcomes  []OutcomeOutput `json:"outcomes"`
}

func (t *tools) remember(ctx context.Context, _ *mcp.CallToolRequest, in RememberInput) (*mcp.CallToolResult, RememberOutput, error) {
	res, err := t.eng.Remember(ctx, engine.RememberParams{
		Namespace: t.ns, Scope: in.scope(), Text: in.Text,
		Type: memory.Type(in.Type), Subject: in.Subject, Key: in.Key, Value: in.Value,
		Criticality: memory.Criticality(in.Criticality), Confidence: in.Confidence,
	})
	if err != nil {
		return nil, RememberOutput{}, t.fail(err, "")
	}
	out := RememberOutput{EpisodeID: res.EpisodeID, Outcomes: []OutcomeOutput{}}
	var lines []string
	for _, o := range res.Outcomes {
		out.Outcomes = append(out.Outcomes, OutcomeOutput{
			Decision: string(o.Decision), Operation: string(o.Operation), Reasons: nonNil(o.Reasons),
			MemoryID: o.MemoryID, VersionID: o.VersionID, Content: o.Content,
		})
		line := string(o.Decision)
		if o.Operation != "" {
			line = string(o.Operation)
		}
		if o.Version != nil && o.Version.Kind == memory.KindEpisodic {
			line = "kept as said (no fact or note in it; recall finds it as an episode)"
		}
		if o.MemoryID != "" {
			line += " " + o.MemoryID
		}
		line += ": " + o.Content
		if len(o.Reasons) > 0 {
			line += " (" + strings.Join(o.Reasons, ", ") + ")"
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		lines = append(lines, "nothing to remember in that text")
	}
	return text(strings.Join(lines, "\n")), out, nil
}

// RecallInput is the recall tool's arguments.
type RecallInput struct {
	Query          string `json:"query" jsonschema:"what the task is about, in natural language"`
	TokenBudget    int    `json:"token_budget,omitempty" jsonschema:"tokens the packed context may use, 1 to 200000 (0 or absent: the default, 1000)"`
	Limit          int    `json:"limit,omitempty" jsonschema:"most memories returned, 1 to 100 (0 or absent: the default, 10)"`
	AsOf           string `json:"as_of,omitempty" jsonschema:"RFC 3339 time: what was true then"`
	KnownAt        string `json:"known_at,omitempty" jsonschema:"RFC 3339 time: answer with what memory held then"`
	IncludeHistory bool   `json:"include_history,omitempty" jsonschema:"also superseded and expired versions"`
	TaskType       string `json:"task_type,omitempty" jsonschema:"the kind of task, to favour memories of that type"`
	SessionOnly    bool   `json:"session_only,omitempty" jsonschema:"serve only items said in session_id (which it needs)"`
	ScopeInput
}

// RecallItem is one packed memory.
type RecallItem struct {
	MemoryID   string   `json:"memory_id"`
	VersionID  string   `json:"version_id"`
	Kind       string   `json:"kind"`
	Type       string   `json:"type"`
	Content    string   `json:"content"`
	Score      float64  `json:"score"`
	Trust      float64  `json:"trust"`
	Action     string   `json:"action" jsonschema:"FOLLOW or HINT"`
	EpisodeIDs []string `json:"episode_ids"`
	Why        string   `json:"why"`
}

// RecallOutput is the recall tool's result.
type RecallOutput struct {
	RetrievalID string       `json:"retrieval_id" jsonschema:"names the retrieval for feedback; empty when the namespace holds nothing yet"`
	Context     string       `json:"context"`
	TokensUsed  int          `json:"tokens_used"`
	Items       []RecallItem `json:"items"`
	Hint        string       `json:"hint,omitempty" jsonschema:"set when the namespace holds nothing yet: what to do first"`
}

func (t *tools) recall(ctx context.Context, _ *mcp.CallToolRequest, in RecallInput) (*mcp.CallToolResult, RecallOutput, error) {
	p := engine.RetrieveParams{
		Namespace: t.ns, Query: in.Query, Limit: in.Limit, TokenBudget: in.TokenBudget, TaskType: in.TaskType,
		Scope: in.scope(), SessionOnly: in.SessionOnly, IncludeHistory: in.IncludeHistory,
	}
	for _, f := range []struct {
		name, value string
		into        **time.Time
	}{{"as_of", in.AsOf, &p.AsOf}, {"known_at", in.KnownAt, &p.KnownAt}} {
		if f.value == "" {
			continue
		}
		at, err := time.Parse(time.RFC3339, f.value)
		if err != nil {
			return nil, RecallOutput{}, fmt.Errorf("%s: %s %q is not an RFC 3339 time (e.g. 2026-01-31T12:00:00Z)", memory.CodeInvalidTimestamp, f.name, f.value)
		}
		at = at.UTC()
		if err := memory.CheckTime(f.name, at); err != nil {
			return nil, RecallOutput{}, t.fail(err, "")
		}
		*f.into = &at
	}
	res, err := t.eng.Retrieve(ctx, p)
	if err != nil {
		return nil, RecallOutput{}, t.fail(err, "")
	}
	out := RecallOutput{RetrievalID: res.RetrievalID, Context: res.Context, TokensUsed: res.TokensUsed, Items: []RecallItem{}}
	if res.NamespaceEmpty {
		out.Hint = fmt.Sprintf("namespace %q holds nothing yet; remember something first", t.ns)
		return text("no memories yet: " + out.Hint), out, nil
	}
	for _, it := range res.Items {
		out.Items = append(out.Items, RecallItem{
			MemoryID: it.MemoryID, VersionID: it.VersionID, Kind: string(it.Kind), Type: string(it.Type),
			Content: it.Content, Score: it.Score, Trust: it.Trust, Action: string(it.Action),
			EpisodeIDs: nonNil(it.EpisodeIDs), Why: it.Explanation,
		})
	}
	body := res.Context
	if body == "" {
		body = "no memories match this query"
	}
	return text(fmt.Sprintf("%s\n\n(retrieval %s, %d tokens)", body, res.RetrievalID, res.TokensUsed)), out, nil
}

// RespondInput is the respond tool's arguments.
type RespondInput struct {
	Query       string `json:"query" jsonschema:"the question or task to answer, in natural language"`
	TokenBudget int    `json:"token_budget,omitempty" jsonschema:"tokens the packed context may use, 1 to 200000 (0 or absent: the default, 1000)"`
	Limit       int    `json:"limit,omitempty" jsonschema:"most memories recalled for the answer, 1 to 100 (0 or absent: the default, 10)"`
	TaskType    string `json:"task_type,omitempty" jsonschema:"the kind of task, to favour memories of that type"`
	MaxTokens   int    `json:"max_tokens,omitempty" jsonschema:"tokens the answer may use, 1 to 8192 (0 or absent: 512)"`
	ScopeInput
}

// UsedMemory is a memory an answer cited.
type UsedMemory struct {
	MemoryID  string `json:"memory_id"`
	VersionID string `json:"version_id"`
	Content   string `json:"content"`
}

// RespondOutput is the respond tool's result.
type RespondOutput struct {
	Answer      string       `json:"answer"`
	RetrievalID string       `json:"retrieval_id" jsonschema:"names the retrieval the answer was given, for feedback; its trace marks the memories used"`
	Used        []UsedMemory `json:"used" jsonschema:"the memories the answer cited"`
	Model       string       `json:"model"`
	Notes       []string     `json:"notes,omitempty"`
}

func (t *tools) respond(ctx context.Context, _ *mcp.CallToolRequest, in RespondInput) (*mcp.CallToolResult, RespondOutput, error) {
	ans, err := t.eng.Respond(ctx, engine.RespondParams{
		RetrieveParams: engine.RetrieveParams{Namespace: t.ns, Query: in.Query, Limit: in.Limit, TokenBudget: in.TokenBudget,
			TaskType: in.TaskType, Scope: in.scope()},
		MaxTokens: in.MaxTokens,
	})
	if err != nil {
		return nil, RespondOutput{}, t.fail(err, "")
	}
	out := RespondOutput{Answer: ans.Answer, RetrievalID: ans.Retrieval.RetrievalID, Used: []UsedMemory{}, Model: ans.Model, Notes: ans.Notes}
	var cites []string
	for _, it := range ans.Used {
		out.Used = append(out.Used, UsedMemory{MemoryID: it.MemoryID, VersionID: it.VersionID, Content: it.Content})
		cites = append(cites, it.MemoryID)
	}
	body := ans.Answer
	if len(cites) > 0 {
		body += "\n\n(used " + strings.Join(cites, ", ") + ")"
	}
	if out.RetrievalID != "" {
		body += fmt.Sprintf("\n(retrieval %s)", out.RetrievalID)
	}
	return text(body), out, nil
}

// IDInput names one memory (mem_…) or version (ver_…).
type IDInput struct {
	ID string `json:"id" jsonschema:"a memory id (mem_…) or version id (ver_…)"`
}

// ForgetOutput is the forget tool's result.
type ForgetOutput struct {
	MemoryID string   `json:"memory_id"`
	Versions []string `json:"versions" jsonschema:"versions marked deleted by this call"`
	Episodes []string `json:"episodes" jsonschema:"episodic memories of its statements marked deleted"`
}

func (t *tools) forget(ctx context.Context, _ *mcp.CallToolRequest, in IDInput) (*mcp.CallToolResult, ForgetOutput, error) {
	res, err := t.eng.Forget(ctx, t.ns, in.ID)
	if err != nil {
		return nil, ForgetOutput{}, t.fail(err, in.ID)
	}
	out := ForgetOutput{MemoryID: res.MemoryID, Versions: nonNil(res.Versions), Episodes: nonNil(res.Episodes)}
	msg := fmt.Sprintf("forgot %s: %d versions and %d statements left retrieval", res.MemoryID, len(res.Versions), len(res.Episodes))
	if len(res.Versions) == 0 && len(res.Episodes) == 0 {
		msg = res.MemoryID + " was already forgotten"
	}
	return text(msg), out, nil
}

// ListFactsInput is the list_facts tool's arguments.
type ListFactsInput struct {
	Subject        string `json:"subject,omitempty" jsonschema:"only facts about this subject (e.g. user)"`
	IncludeHistory bool   `json:"include_history,omitempty" jsonschema:"also superseded and expired versions"`
	Limit          int    `json:"limit,omitempty" jsonschema:"at most this many, 1 to 1000 (0 or absent: the default, 100)"`
}

// Fact is one version of a distilled memory.
type Fact struct {
	MemoryID  string     `json:"memory_id"`
	VersionID string     `json:"version_id"`
	Seq       int        `json:"seq"`
	Type      string     `json:"type"`
	Subject   string     `json:"subject"`
	Key       string     `json:"key"`
	Value     string     `json:"value,omitempty"`
	Content   string     `json:"content"`
	Status    string     `json:"status"`
	Operation string     `json:"operation"`
	ValidFrom time.Time  `json:"valid_from"`
	ValidTo   *time.Time `json:"valid_to,omitempty"`
}

// FactsOutput is the list_facts tool's result.
type FactsOutput struct {
	Facts []Fact `json:"facts"`
}

func (t *tools) listFacts(ctx context.Context, _ *mcp.CallToolRequest, in ListFactsInput) (*mcp.CallToolResult, FactsOutput, error) {
	if in.Limit < 0 || in.Limit > 1000 {
		return nil, FactsOutput{}, fmt.Errorf("limit %d: use 1 to 1000, or 0 for the default (100)", in.Limit)
	}
	limit := in.Limit
	if limit == 0 {
		limit = 100
	}
	subject := strings.ToLower(strings.TrimSpace(in.Subject)) // subjects are stored lowercase, as the CLI reads them
	vs, err := t.eng.Facts(ctx, engine.FactsParams{Namespace: t.ns, Subject: subject, IncludeHistory: in.IncludeHistory, Limit: limit})
	if err != nil {
		return nil, FactsOutput{}, t.fail(err, "")
	}
	out := FactsOutput{Facts: []Fact{}}
	var lines []string
	for _, v := range vs {
		out.Facts = append(out.Facts, factOf(v))
		lines = append(lines, fmt.Sprintf("%s [%s] %s", v.MemoryID, v.Status, v.Content))
	}
	if len(lines) == 0 {
		msg, err := t.noFacts(ctx, subject, in.IncludeHistory)
		if err != nil {
			return nil, FactsOutput{}, t.fail(err, "")
		}
		lines = append(lines, msg)
	}
	return text(strings.Join(lines, "\n")), out, nil
}

// maxSubjectsNamed bounds the subjects an empty list_facts names.
const maxSubjectsNamed = 20

// noFacts says why list_facts found nothing: nothing is stored, or nothing
// about that subject, naming the subjects there are facts about so the
// model can ask again.
func (t *tools) noFacts(ctx context.Context, subject string, history bool) (string, error) {
	if subject == "" {
		return "no facts stored yet", nil
	}
	all, err := t.eng.Facts(ctx, engine.FactsParams{Namespace: t.ns, IncludeHistory: history})
	if err != nil {
		return "", err
	}
	var subjects []string
	for _, v := range all {
		if !slices.Contains(subjects, v.Subject) {
			subjects = append(subjects, v.Subject)
		}
	}
	if len(subjects) == 0 {
		return fmt.Sprintf("no facts about %q: no facts stored yet", subject), nil
	}
	slices.Sort(subjects)
	named := strings.Join(subjects[:min(len(subjects), maxSubjectsNamed)], ", ")
	if len(subjects) > maxSubjectsNamed {
		named += fmt.Sprintf(" and %d more", len(subjects)-maxSubjectsNamed)
	}
	return fmt.Sprintf("no facts about %q; there are facts about: %s", subject, named), nil
}

func factOf(v *memory.Version) Fact {
	return Fact{
		MemoryID: v.MemoryID, VersionID: v.ID, Seq: v.Seq, Type: string(v.Type), Subject: v.Subject, Key: v.Key,
		Value: v.Value, Content: v.Content, Status: string(v.Status), Operation: string(v.Operation),
		ValidFrom: v.ValidFrom, ValidTo: v.ValidTo,
	}
}

// HistoryOutput is the history tool's result: a memory's versions, oldest first.
type HistoryOutput struct {
	MemoryID string `json:"memory_id"`
	Subject  string `json:"subject"`
	Key      string `json:"key"`
	Versions []Fact `json:"versions"`
}

func (t *tools) history(ctx context.Context, _ *mcp.CallToolRequest, in IDInput) (*mcp.CallToolResult, HistoryOutput, error) {
	view, err := t.eng.Show(ctx, t.ns, in.ID)
	if err != nil {
		return nil, HistoryOutput{}, t.fail(err, in.ID)
	}
	if view.Memory == nil {
		return nil, HistoryOutput{}, fmt.Errorf("%s is not a memory or version id", in.ID)
	}
	out := HistoryOutput{MemoryID: view.Memory.ID, Subject: view.Memory.Subject, Key: view.Memory.Key, Versions: []Fact{}}
	lines := []string{fmt.Sprintf("%s (%s / %s):", view.Memory.ID, view.Memory.Subject, view.Memory.Key)}
	for _, v := range view.Versions {
		out.Versions = append(out.Versions, factOf(v))
		line := fmt.Sprintf("  v%d %s %s: %s", v.Seq, v.Operation, v.Status, v.Content)
		if v.SupersededBy != "" {
			line += " → superseded by " + v.SupersededBy
		}
		if v.Status == memory.StatusContested {
			// The log is newest first: the latest statement that said it changed.
			for _, a := range view.Admissions {
				if a.VersionID == v.ID && a.Extractor == engine.ChangeExtractor {
					line += " → contested: " + a.Content
					break
				}
			}
		}
		lines = append(lines, line)
	}
	return text(strings.Join(lines, "\n")), out, nil
}

// fail turns an engine error into a tool error a model can act on: the
// message of the *memory.Error it carries, never the engine's error chain.
// A time's error starts with its code, invalid_timestamp, as the HTTP
// API's problem: a client can branch on it.
func (t *tools) fail(err error, id string) error {
	var pe *memory.Error
	switch {
	case errors.Is(err, memory.ErrNotFound):
		if id != "" {
			return fmt.Errorf("%s: not found in namespace %q", id, t.ns)
		}
		return fmt.Errorf("not found in namespace %q", t.ns)
	case errors.As(err, &pe) && pe.Code == memory.CodeInvalidTimestamp:
		return errors.New(pe.Code + ": " + pe.Message)
	case errors.As(err, &pe) && (errors.Is(pe.Kind, memory.ErrInvalid) || errors.Is(pe.Kind, memory.ErrConflict)):
		return errors.New(pe.Message)
	case errors.Is(err, memory.ErrReadOnly):
		return errors.New(memory.CodeStoreReadOnly + ": this server opened the database read-only (a read replica); nothing was stored; send writes to a server that opened it read-write")
	case errors.Is(err, memory.ErrStorageFull):
		t.log.Error("mcp tool failed: storage full", "namespace", t.ns, "error", err)
		return errors.New("storage_full: the disk holding the memory is full; nothing was stored; try again once space is freed")
	case errors.As(err, &pe) && errors.Is(pe.Kind, memory.ErrModelNotConfigured):
		return errors.New(pe.Code + ": " + pe.Message)
	case errors.As(err, &pe) && pe.Code == memory.CodeModelUnavailable && pe.Cause == nil:
		// Refused before any call (the daily token budget).
		return errors.New(pe.Code + ": " + pe.Message)
	case errors.Is(err, memory.ErrModelUnavailable):
		t.log.Error("mcp tool failed: model provider", "namespace", t.ns, "error", err)
		return errors.New("model_unavailable: the model provider did not answer; nothing was stored; try again later (mnemon doctor checks the provider)")
	case errors.Is(err, memory.ErrModelBadReply):
		t.log.Error("mcp tool failed: model provider", "namespace", t.ns, "error", err)
		return errors.New("model_bad_reply: the model provider's reply could not be used; nothing was stored (mnemon doctor checks the provider)")
	}
	t.log.Error("mcp tool failed", "namespace", t.ns, "error", err)
	return errors.New("internal error; the server log has the details")
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

type bindingKey struct{}

// WithBinding returns ctx carrying the binding an HTTP request was
// authenticated as; HTTPHandler serves it.
func WithBinding(ctx context.Context, b Binding) context.Context {
	return context.WithValue(ctx, bindingKey{}, b)
}

// HTTPHandler serves MCP over streamable HTTP. It trusts the Binding the
// caller's authentication put in the request context (WithBinding) and
// answers 400 without one. It is stateless (every POST is a whole
// exchange, answered as JSON), so it needs no session affinity and each
// request is authenticated on its own.
func HTTPHandler(eng *engine.Engine, opts Options) http.Handler {
	var servers sync.Map // Binding → *mcp.Server: tools and schemas are built once per binding
	return mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		b, ok := r.Context().Value(bindingKey{}).(Binding)
		if !ok {
			return nil
		}
		if s, ok := servers.Load(b); ok {
			return s.(*mcp.Server)
		}
		s, _ := servers.LoadOrStore(b, New(eng, b, opts))
		return s.(*mcp.Server)
	}, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: opts.Logger})
}
