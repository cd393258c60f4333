// Package mcpserver serves mnemon's memory to agents over the Model Context
// Protocol: tools remember, recall, forget, list_facts and history, with
// typed input schemas and structured output plus readable text.
//
// A server is bound to one namespace when it is made; no tool takes a
// namespace, so a tool call can never reach another one (the engine filters
// every query on the namespace, so an id of another namespace is simply
// not found). Like every transport it is thin: each tool is one engine call.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

// Config wires a server.
type Config struct {
	Engine    *engine.Engine
	Namespace string       // every tool acts in this namespace only
	Version   string       // reported to clients
	Logger    *slog.Logger // default: discard (stdout carries the protocol)
}

// New returns an MCP server with mnemon's tools, bound to cfg.Namespace.
// Run it with (*mcp.Server).Run on a transport (stdio for `mnemon mcp`).
func New(cfg Config) (*mcp.Server, error) {
	if cfg.Engine == nil {
		return nil, errors.New("mcpserver: Engine is required")
	}
	ns := memory.NormalizeNamespace(cfg.Namespace)
	if err := memory.ValidateNamespace(ns); err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "mnemon", Title: "mnemon memory", Version: cfg.Version}, &mcp.ServerOptions{
		Logger: cfg.Logger,
		Instructions: "mnemon is your long-term memory (namespace " + ns + "). Call recall with the task before you start " +
			"and put its context before your work; call remember for durable facts, preferences, decisions and constraints " +
			"(one sentence each); forget removes a memory for good; list_facts and history show what is stored and how it changed.",
	})
	t := &tools{eng: cfg.Engine, ns: ns}
	mcp.AddTool(s, &mcp.Tool{Name: "remember", Title: "Remember a fact",
		Description: "Store a statement now, such as \"Atlas uses pnpm\" or \"I prefer dark mode\". The text is read by the extractor, " +
			"reconciled with what is known (a newer value supersedes an older one, which stays as history) and versioned. " +
			"With key set, the text is stored as exactly one fact with the given subject, key and value.",
		Annotations: &mcp.ToolAnnotations{Title: "Remember a fact", DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, t.remember)
	mcp.AddTool(s, &mcp.Tool{Name: "recall", Title: "Recall memories for a task",
		Description: "Retrieve the memories that matter for a query or task, packed into a token budget, each with the reason it " +
			"was packed and a trust action (FOLLOW or HINT). Put the returned context before your work.",
		Annotations: &mcp.ToolAnnotations{Title: "Recall memories", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, t.recall)
	mcp.AddTool(s, &mcp.Tool{Name: "forget", Title: "Forget a memory",
		Description: "Forget a memory for good: every version, and the statements it was learned from, leave retrieval. " +
			"id is a memory id (mem_...) or one of its version ids (ver_...). Forgetting twice changes nothing.",
		Annotations: &mcp.ToolAnnotations{Title: "Forget a memory", DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, t.forget)
	mcp.AddTool(s, &mcp.Tool{Name: "list_facts", Title: "List stored facts",
		Description: "List the distilled facts (semantic and procedural memories), current ones first; include_history adds " +
			"superseded and expired versions.",
		Annotations: &mcp.ToolAnnotations{Title: "List facts", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, t.listFacts)
	mcp.AddTool(s, &mcp.Tool{Name: "history", Title: "A memory's history",
		Description: "Every version of one memory, oldest first: its values, when each was observed and recorded, how it " +
			"changed (ADD, REINFORCE, SUPERSEDE, CONTEST) and its status now.",
		Annotations: &mcp.ToolAnnotations{Title: "Memory history", ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, t.history)
	return s, nil
}

func ptr[T any](v T) *T { return &v }

// tools holds what the tool handlers share.
type tools struct {
	eng *engine.Engine
	ns  string
}

// RememberInput is the remember tool's arguments.
type RememberInput struct {
	Text        string `json:"text" jsonschema:"the statement to remember, one natural sentence such as: Atlas uses pnpm"`
	Key         string `json:"key,omitempty" jsonschema:"store the text as exactly one fact in this slot, such as prefers:editor"`
	Subject     string `json:"subject,omitempty" jsonschema:"with key: whom or what the fact is about (default user)"`
	Value       string `json:"value,omitempty" jsonschema:"with key: the fact's value, such as vim"`
	Type        string `json:"type,omitempty" jsonschema:"with key: fact, preference, decision, constraint, goal, lesson, procedure or summary"`
	Criticality string `json:"criticality,omitempty" jsonschema:"normal, high or must_include (always recalled)"`
	SessionID   string `json:"session_id,omitempty" jsonschema:"session scope"`
	AgentID     string `json:"agent_id,omitempty" jsonschema:"agent scope"`
	UserID      string `json:"user_id,omitempty" jsonschema:"user scope"`
	ProjectID   string `json:"project_id,omitempty" jsonschema:"project scope"`
}

// RememberOutput says what remember stored.
type RememberOutput struct {
	EpisodeID string          `json:"episode_id" jsonschema:"the episode that records the statement"`
	Memories  []MemoryOutcome `json:"memories" jsonschema:"every memory the statement produced, with its fate"`
}

// MemoryOutcome is one candidate memory's admission and reconciliation.
type MemoryOutcome struct {
	MemoryID  string   `json:"memory_id,omitempty"`
	VersionID string   `json:"version_id,omitempty"`
	Decision  string   `json:"decision" jsonschema:"accept, defer, reject or quarantine"`
	Operation string   `json:"operation,omitempty" jsonschema:"ADD, REINFORCE, SUPERSEDE, CONTEST or NOOP"`
	Content   string   `json:"content"`
	Reasons   []string `json:"reasons"`
}

func (t *tools) remember(ctx context.Context, _ *mcp.CallToolRequest, in RememberInput) (*mcp.CallToolResult, RememberOutput, error) {
	if strings.TrimSpace(in.Text) == "" {
		return nil, RememberOutput{}, errors.New("text is empty: say what to remember, such as \"Atlas uses pnpm\"")
	}
	res, err := t.eng.Remember(ctx, engine.RememberParams{
		Namespace: t.ns, Text: in.Text,
		Scope: memory.Scope{SessionID: in.SessionID, AgentID: in.AgentID, UserID: in.UserID, ProjectID: in.ProjectID},
		Type:  memory.Type(in.Type), Subject: in.Subject, Key: in.Key, Value: in.Value, Criticality: memory.Criticality(in.Criticality),
	})
	if err != nil {
		return nil, RememberOutput{}, t.toolError("remember", err)
	}
	out := RememberOutput{EpisodeID: res.EpisodeID, Memories: make([]MemoryOutcome, 0, len(res.Outcomes))}
	var b strings.Builder
	for _, o := range res.Outcomes {
		reasons := o.Reasons
		if reasons == nil {
			reasons = []string{}
		}
		out.Memories = append(out.Memories, MemoryOutcome{MemoryID: o.MemoryID, VersionID: o.VersionID, Decision: string(o.Decision),
			Operation: string(o.Operation), Content: o.Content, Reasons: reasons})
		switch {
		case o.Decision == memory.AdmitAccept && o.MemoryID != "":
			fmt.Fprintf(&b, "%s %s (%s): %s\n", o.Operation, o.MemoryID, o.Decision, o.Content)
		default:
			fmt.Fprintf(&b, "%s: %s (%s)\n", o.Decision, o.Content, strings.Join(o.Reasons, ", "))
		}
	}
	if len(res.Outcomes) == 0 {
		b.WriteString("nothing to remember: the statement holds no fact (kept as an episode)\n")
	}
	return text(b.String()), out, nil
}

// RecallInput is the recall tool's arguments.
type RecallInput struct {
	Query          string `json:"query" jsonschema:"the task or question, in words (at most 4096 bytes)"`
	Budget         int    `json:"budget,omitempty" jsonschema:"tokens the packed context may use (default 1000)"`
	Limit          int    `json:"limit,omitempty" jsonschema:"items at most, 1 to 100 (default 10)"`
	AsOf           string `json:"as_of,omitempty" jsonschema:"answer with what was true at this time: RFC 3339 or a date such as 2024-06-01"`
	IncludeHistory bool   `json:"include_history,omitempty" jsonschema:"also serve superseded and expired versions"`
	TaskType       string `json:"task_type,omitempty" jsonschema:"task type, to favour matching procedures and memories"`
	SessionID      string `json:"session_id,omitempty"`
	AgentID        string `json:"agent_id,omitempty"`
	UserID         string `json:"user_id,omitempty"`
	ProjectID      string `json:"project_id,omitempty"`
}

// RecallOutput is a packed context and its items, best first.
type RecallOutput struct {
	RetrievalID string       `json:"retrieval_id" jsonschema:"names this retrieval, for feedback and explanations"`
	Context     string       `json:"context" jsonschema:"the packed memories, ready to put before your work"`
	TokensUsed  int          `json:"tokens_used"`
	Items       []RecallItem `json:"items"`
}

// RecallItem is one packed memory.
type RecallItem struct {
	MemoryID    string  `json:"memory_id"`
	VersionID   string  `json:"version_id"`
	Kind        string  `json:"kind" jsonschema:"episodic, semantic or procedural"`
	Type        string  `json:"type"`
	Content     string  `json:"content"`
	Action      string  `json:"action" jsonschema:"FOLLOW (trusted) or HINT"`
	Score       float64 `json:"score"`
	Explanation string  `json:"explanation" jsonschema:"why it was found and packed"`
}

func (t *tools) recall(ctx context.Context, _ *mcp.CallToolRequest, in RecallInput) (*mcp.CallToolResult, RecallOutput, error) {
	switch {
	case strings.TrimSpace(in.Query) == "":
		return nil, RecallOutput{}, errors.New("query is empty: describe the task or ask a question")
	case len(in.Query) > engine.MaxQueryBytes:
		return nil, RecallOutput{}, fmt.Errorf("query is %d bytes; the limit is %d", len(in.Query), engine.MaxQueryBytes)
	case in.Limit < 0 || in.Limit > engine.MaxLimit:
		return nil, RecallOutput{}, fmt.Errorf("limit %d: use 1 to %d", in.Limit, engine.MaxLimit)
	case in.Budget < 0 || in.Budget > engine.MaxTokenBudget:
		return nil, RecallOutput{}, fmt.Errorf("budget %d: use 1 to %d tokens", in.Budget, engine.MaxTokenBudget)
	}
	p := engine.RetrieveParams{Namespace: t.ns, Query: in.Query, Limit: in.Limit, TokenBudget: in.Budget,
		TaskType: in.TaskType, IncludeHistory: in.IncludeHistory,
		Scope: memory.Scope{SessionID: in.SessionID, AgentID: in.AgentID, UserID: in.UserID, ProjectID: in.ProjectID}}
	if in.AsOf != "" {
		at, err := parseTime(in.AsOf)
		if err != nil {
			return nil, RecallOutput{}, fmt.Errorf("as_of %q: %w", in.AsOf, err)
		}
		p.AsOf = &at
	}
	res, err := t.eng.Retrieve(ctx, p)
	if err != nil {
		return nil, RecallOutput{}, t.toolError("recall", err)
	}
	out := RecallOutput{RetrievalID: res.RetrievalID, Context: res.Context, TokensUsed: res.TokensUsed, Items: make([]RecallItem, len(res.Items))}
	for i, it := range res.Items {
		out.Items[i] = RecallItem{MemoryID: it.MemoryID, VersionID: it.VersionID, Kind: string(it.Kind), Type: string(it.Type),
			Content: it.Content, Action: string(it.Action), Score: it.Score, Explanation: it.Explanation}
	}
	if res.Context == "" {
		return text("Nothing in memory matches this (retrieval " + res.RetrievalID + ")."), out, nil
	}
	return text(res.Context + "\n(retrieval " + res.RetrievalID + ")"), out, nil
}

// IDInput names one memory.
type IDInput struct {
	ID string `json:"id" jsonschema:"a memory id (mem_...) or one of its version ids (ver_...)"`
}

// ForgetOutput says what forget took out of retrieval.
type ForgetOutput struct {
	MemoryID string   `json:"memory_id"`
	Versions []string `json:"versions" jsonschema:"version ids marked deleted now (empty: it was already forgotten)"`
	Episodes []string `json:"episodes" jsonschema:"the statements it was learned from, which left retrieval with it"`
}

func (t *tools) forget(ctx context.Context, _ *mcp.CallToolRequest, in IDInput) (*mcp.CallToolResult, ForgetOutput, error) {
	if strings.TrimSpace(in.ID) == "" {
		return nil, ForgetOutput{}, errors.New("id is empty: name a memory (mem_...) or a version (ver_...)")
	}
	res, err := t.eng.Forget(ctx, t.ns, in.ID)
	if err != nil {
		return nil, ForgetOutput{}, t.toolError("forget "+in.ID, err)
	}
	out := ForgetOutput{MemoryID: res.MemoryID, Versions: nonNil(res.Versions), Episodes: nonNil(res.Episodes)}
	if len(res.Versions) == 0 && len(res.Episodes) == 0 {
		return text(res.MemoryID + " was already forgotten; nothing changed."), out, nil
	}
	return text(fmt.Sprintf("Forgot %s: %d versions and %d statements left retrieval.", res.MemoryID, len(res.Versions), len(res.Episodes))), out, nil
}

// ListFactsInput is the list_facts tool's arguments.
type ListFactsInput struct {
	Subject        string `json:"subject,omitempty" jsonschema:"only facts about this subject, such as user or atlas"`
	IncludeHistory bool   `json:"include_history,omitempty" jsonschema:"also superseded and expired versions"`
	Limit          int    `json:"limit,omitempty" jsonschema:"at most this many, 1 to 1000 (default 100)"`
}

// FactsOutput is a list of fact versions.
type FactsOutput struct {
	Facts []Fact `json:"facts"`
}

// Fact is one version of a distilled memory.
type Fact struct {
	MemoryID     string  `json:"memory_id"`
	VersionID    string  `json:"version_id"`
	Seq          int     `json:"seq" jsonschema:"the version's number within its memory, from 1"`
	Type         string  `json:"type"`
	Subject      string  `json:"subject"`
	Key          string  `json:"key"`
	Value        string  `json:"value"`
	Content      string  `json:"content"`
	Status       string  `json:"status" jsonschema:"active, contested, superseded, expired or deleted"`
	Operation    string  `json:"operation" jsonschema:"how this version came: ADD, REINFORCE, SUPERSEDE or CONTEST"`
	Confidence   float64 `json:"confidence"`
	Trust        float64 `json:"trust"`
	ObservedAt   string  `json:"observed_at" jsonschema:"when the source said it (RFC 3339)"`
	RecordedAt   string  `json:"recorded_at" jsonschema:"when mnemon stored it (RFC 3339)"`
	ValidTo      string  `json:"valid_to,omitempty" jsonschema:"when it stops being true (RFC 3339)"`
	SupersededBy string  `json:"superseded_by,omitempty" jsonschema:"the version that replaced it"`
}

func (t *tools) listFacts(ctx context.Context, _ *mcp.CallToolRequest, in ListFactsInput) (*mcp.CallToolResult, FactsOutput, error) {
	if in.Limit < 0 || in.Limit > 1000 {
		return nil, FactsOutput{}, fmt.Errorf("limit %d: use 1 to 1000", in.Limit)
	}
	limit := in.Limit
	if limit == 0 {
		limit = 100
	}
	vs, err := t.eng.Facts(ctx, engine.FactsParams{Namespace: t.ns, Subject: strings.ToLower(strings.TrimSpace(in.Subject)),
		IncludeHistory: in.IncludeHistory, Limit: limit})
	if err != nil {
		return nil, FactsOutput{}, t.toolError("list_facts", err)
	}
	out := FactsOutput{Facts: make([]Fact, len(vs))}
	var b strings.Builder
	for i, v := range vs {
		out.Facts[i] = fact(v)
		fmt.Fprintf(&b, "%s %s@v%d [%s] %s\n", v.Status, v.MemoryID, v.Seq, v.Type, v.Content)
	}
	if len(vs) == 0 {
		b.WriteString("No facts stored yet.\n")
	}
	return text(b.String()), out, nil
}

// HistoryOutput is a memory with every version, oldest first.
type HistoryOutput struct {
	MemoryID string `json:"memory_id"`
	Subject  string `json:"subject"`
	Key      string `json:"key"`
	Versions []Fact `json:"versions"`
}

func (t *tools) history(ctx context.Context, _ *mcp.CallToolRequest, in IDInput) (*mcp.CallToolResult, HistoryOutput, error) {
	if strings.TrimSpace(in.ID) == "" {
		return nil, HistoryOutput{}, errors.New("id is empty: name a memory (mem_...) or a version (ver_...)")
	}
	view, err := t.eng.Show(ctx, t.ns, in.ID)
	if err != nil {
		return nil, HistoryOutput{}, t.toolError("history "+in.ID, err)
	}
	out := HistoryOutput{Versions: make([]Fact, len(view.Versions))}
	if view.Memory != nil {
		out.MemoryID, out.Subject, out.Key = view.Memory.ID, view.Memory.Subject, view.Memory.Key
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s %s), %d versions:\n", out.MemoryID, out.Subject, out.Key, len(view.Versions))
	for i, v := range view.Versions {
		out.Versions[i] = fact(v)
		fmt.Fprintf(&b, "v%d %s %s, observed %s: %s\n", v.Seq, v.Operation, v.Status, v.ObservedAt.UTC().Format(time.RFC3339), v.Content)
	}
	return text(b.String()), out, nil
}

func fact(v *memory.Version) Fact {
	f := Fact{MemoryID: v.MemoryID, VersionID: v.ID, Seq: v.Seq, Type: string(v.Type), Subject: v.Subject, Key: v.Key,
		Value: v.Value, Content: v.Content, Status: string(v.Status), Operation: string(v.Operation),
		Confidence: v.Confidence, Trust: v.Trust, SupersededBy: v.SupersededBy,
		ObservedAt: v.ObservedAt.UTC().Format(time.RFC3339Nano), RecordedAt: v.RecordedAt.UTC().Format(time.RFC3339Nano)}
	if v.ValidTo != nil {
		f.ValidTo = v.ValidTo.UTC().Format(time.RFC3339Nano)
	}
	return f
}

// toolError turns an engine error into the text of a tool error: what the
// caller can act on, never a driver's message.
func (t *tools) toolError(op string, err error) error {
	switch {
	case errors.Is(err, memory.ErrNotFound):
		return fmt.Errorf("%s: not found in namespace %s", op, t.ns)
	case errors.Is(err, memory.ErrInvalid):
		msg := err.Error()
		if i := strings.LastIndex(msg, memory.ErrInvalid.Error()+": "); i >= 0 {
			msg = msg[i+len(memory.ErrInvalid.Error())+2:]
		}
		return fmt.Errorf("%s: %s", op, msg)
	case errors.Is(err, memory.ErrConflict):
		return fmt.Errorf("%s: conflicts with what is stored; try again", op)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: cancelled", op)
	}
	return fmt.Errorf("%s: internal error; see the mnemon log", op)
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.TrimRight(s, "\n")}}}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// parseTime reads RFC 3339 or a date (midnight UTC).
func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, errors.New("use RFC 3339 (2024-06-01T12:00:00Z) or a date (2024-06-01)")
}
