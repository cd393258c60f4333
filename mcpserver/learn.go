package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/httpapi/wireconv"
	"github.com/mnemon-dev/mnemon/memory"
)

// FeedbackInput is the feedback tool's arguments.
type FeedbackInput struct {
	RetrievalID   string   `json:"retrieval_id" jsonschema:"the retrieval judged (ret_…, from recall)"`
	Outcome       string   `json:"outcome" jsonschema:"helpful, unused or harmful"`
	MemoryIDs     []string `json:"memory_ids,omitempty" jsonschema:"the items judged (default: every item the retrieval returned)"`
	Severity      *float64 `json:"severity,omitempty" jsonschema:"how harmful, 0 to 1 (default 1)"`
	Output        string   `json:"output,omitempty" jsonschema:"the agent's output: only memories it used are reinforced"`
	TaskSucceeded *bool    `json:"task_succeeded,omitempty" jsonschema:"whether the task succeeded (default true)"`
}

// FeedbackItem is what a feedback did to one version.
type FeedbackItem struct {
	MemoryID         string  `json:"memory_id"`
	VersionID        string  `json:"version_id"`
	Used             bool    `json:"used"`
	Reinforced       bool    `json:"reinforced"`
	UsefulnessBefore float64 `json:"usefulness_before"`
	UsefulnessAfter  float64 `json:"usefulness_after"`
	TrustBefore      float64 `json:"trust_before"`
	TrustAfter       float64 `json:"trust_after"`
	StatusAfter      string  `json:"status_after"`
}

// FeedbackOutput is the feedback tool's result.
type FeedbackOutput struct {
	RetrievalID string         `json:"retrieval_id"`
	Applied     []FeedbackItem `json:"applied"`
	Duplicates  []string       `json:"duplicates" jsonschema:"versions already judged so: unchanged"`
	Gone        []string       `json:"gone,omitempty" jsonschema:"versions served then and deleted since (pruned history, purged episodes): skipped"`
}

func (t *tools) feedback(ctx context.Context, _ *mcp.CallToolRequest, in FeedbackInput) (*mcp.CallToolResult, FeedbackOutput, error) {
	res, err := t.eng.Feedback(ctx, engine.FeedbackParams{
		Namespace: t.ns, RetrievalID: in.RetrievalID, Outcome: memory.FeedbackOutcome(in.Outcome),
		MemoryIDs: in.MemoryIDs, Severity: in.Severity, Source: memory.SourceAgent,
		Output: in.Output, TaskSucceeded: in.TaskSucceeded,
	})
	if err != nil {
		return nil, FeedbackOutput{}, t.fail(err, in.RetrievalID)
	}
	out := FeedbackOutput{RetrievalID: res.RetrievalID, Applied: []FeedbackItem{}, Duplicates: nonNil(res.Duplicates), Gone: res.Gone}
	var lines []string
	for _, f := range res.Applied {
		out.Applied = append(out.Applied, FeedbackItem{
			MemoryID: f.MemoryID, VersionID: f.VersionID, Used: f.Used, Reinforced: f.Reinforced,
			UsefulnessBefore: f.UsefulnessBefore, UsefulnessAfter: f.UsefulnessAfter,
			TrustBefore: f.TrustBefore, TrustAfter: f.TrustAfter, StatusAfter: string(f.StatusAfter),
		})
		lines = append(lines, fmt.Sprintf("%s: usefulness %.2f → %.2f, trust %.2f → %.2f (%s)",
			f.MemoryID, f.UsefulnessBefore, f.UsefulnessAfter, f.TrustBefore, f.TrustAfter, f.StatusAfter))
	}
	if len(res.Duplicates) > 0 {
		lines = append(lines, fmt.Sprintf("%d already judged so: unchanged", len(res.Duplicates)))
	}
	if len(res.Gone) > 0 {
		lines = append(lines, fmt.Sprintf("%d deleted since the retrieval: skipped", len(res.Gone)))
	}
	return text(strings.Join(lines, "\n")), out, nil
}

// ExplainInput names what to explain.
type ExplainInput struct {
	ID string `json:"id" jsonschema:"a memory (mem_…), version (ver_…) or retrieval (ret_…) id"`
}

// explain answers with the engine's explanation as structured content: why
// a memory is stored and how feedback moved it, or why a retrieval ranked
// what it did.
func (t *tools) explain(ctx context.Context, _ *mcp.CallToolRequest, in ExplainInput) (*mcp.CallToolResult, map[string]any, error) {
	ex, err := t.eng.Explain(ctx, t.ns, in.ID)
	if err != nil {
		return nil, nil, t.fail(err, in.ID)
	}
	// The HTTP API's wire form: one shape of an explanation for both.
	wex := wireconv.Explanation(ex)
	raw, err := json.Marshal(wex)
	if err != nil {
		return nil, nil, t.fail(err, in.ID)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, nil, t.fail(err, in.ID)
	}
	pretty, err := json.MarshalIndent(wex, "", "  ")
	if err != nil {
		return nil, nil, t.fail(err, in.ID)
	}
	return text(string(pretty)), out, nil
}
