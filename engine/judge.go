package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mnemon-dev/mnemon/provider/openai"
)

// The duplicate judge. Dedupe links two facts whose embeddings are at
// least the threshold apart by cosine (0.92); below it, down to the band's
// floor (DefaultJudgeFloor), two facts may be one fact told in other words
// or two facts that share words ("Greta works at Acme" / "Greta worked at
// Acme until 2023"), and cosine cannot tell. With a chat model and
// Config.DuplicateJudge, Dedupe asks the model about such pairs: at most
// JudgeCalls a run, each pair once per process (its verdict is kept), and
// only the answer "same" merges. "different", "unsure", a malformed reply,
// an error, a spent token budget or no call left keep both: a missed
// duplicate costs a line of context, a wrong merge loses a fact.

// Duplicate judge defaults.
const (
	// DefaultJudgeFloor is the lowest cosine the judge is asked about.
	DefaultJudgeFloor = 0.80
	// DefaultJudgeCalls bounds the judge's calls in one dedupe run.
	DefaultJudgeCalls = 20
)

// JudgeConfig turns the duplicate judge on (Config.DuplicateJudge).
type JudgeConfig struct {
	// Floor is the lowest cosine of the ambiguous band (0:
	// DefaultJudgeFloor); the band ends at the dedupe threshold.
	Floor float64
	// Calls bounds the model calls of one run (0: DefaultJudgeCalls).
	Calls int
}

// Verdicts of the judge.
const (
	verdictSame      = "same"
	verdictDifferent = "different"
	verdictUnsure    = "unsure"
)

const judgeSchema = `{"type":"object","additionalProperties":false,"required":["verdict"],` +
	`"properties":{"verdict":{"type":"string","enum":["same","different","unsure"]}}}`

const judgeSystem = `You decide whether two remembered statements are the same fact.
"same": both say the same thing about the same subject; keeping one loses nothing (different wording, same meaning).
"different": they differ in subject, value, time, polarity or detail, or one says more than the other.
"unsure": anything else. When in doubt, answer "unsure".
Reply with JSON only: {"verdict": "same" | "different" | "unsure"}.`

// dupJudge asks the chat model about one dedupe run's ambiguous pairs. A
// nil *dupJudge judges nothing.
type dupJudge struct {
	e         *Engine
	ctx       context.Context
	ns        string
	floor     float64
	calls     int // left this run
	rep       *DedupeReport
	skipped   bool            // a pair of the band went unasked (no call left)
	sameMerge map[string]bool // pairs judged same this run, for the change's detail
}

// verdictKey names a pair of versions for the verdict cache, in either
// order.
func verdictKey(ns, a, b string) string {
	if a > b {
		a, b = b, a
	}
	return ns + "\x00" + a + "\x00" + b
}

// newJudge returns the judge of one dedupe run, or nil when there is none
// (no chat model, not configured, or a threshold at or below the floor).
func (e *Engine) newJudge(ctx context.Context, ns string, threshold float64, rep *DedupeReport) *dupJudge {
	if e.chat == nil || e.judge == nil {
		return nil
	}
	floor := e.judge.Floor
	if floor <= 0 {
		floor = DefaultJudgeFloor
	}
	calls := e.judge.Calls
	if calls <= 0 {
		calls = DefaultJudgeCalls
	}
	if floor >= threshold {
		return nil
	}
	return &dupJudge{e: e, ctx: ctx, ns: ns, floor: floor, calls: calls, rep: rep, sameMerge: map[string]bool{}}
}

// same reports whether the pair, at cosine cos below the threshold, is
// one fact by the model's verdict (asked now, or remembered).
func (j *dupJudge) same(a, b *dedupeFact, cos float64) bool {
	if j == nil || cos < j.floor {
		return false
	}
	key := verdictKey(j.ns, a.v.ID, b.v.ID)
	if v, ok := j.e.verdicts.Load(key); ok {
		if v.(string) == verdictSame {
			j.sameMerge[key] = true
			return true
		}
		return false
	}
	if j.calls <= 0 || j.ctx.Err() != nil || !j.e.budget.allowed(j.ns, j.e.clock.Now()) {
		j.skipped = true
		return false
	}
	j.calls--
	j.rep.Judged++
	verdict, err := j.ask(a.v.Content, b.v.Content)
	if err != nil {
		// No answer (down, out of time): both kept, asked again next run.
		j.e.log.Warn("duplicate judge: no answer, keeping both", "namespace", j.ns, "a", a.v.ID, "b", b.v.ID, "error", err)
		j.skipped = true
		return false
	}
	j.e.verdicts.Store(key, verdict)
	if verdict != verdictSame {
		return false
	}
	j.rep.JudgedSame++
	j.sameMerge[key] = true
	return true
}

// ask calls the model about one pair. A reply that is no verdict (not
// JSON, another shape, another word) is "unsure", logged; an error means
// the model gave no answer.
func (j *dupJudge) ask(a, b string) (string, error) {
	temp := 0.0
	rep, err := j.e.chat.Chat(j.ctx, openai.ChatRequest{
		Messages: []openai.Message{
			{Role: "system", Content: judgeSystem},
			{Role: "user", Content: "A: " + a + "\nB: " + b},
		},
		Schema:    &openai.JSONSchema{Name: "mnemon_duplicate", Schema: json.RawMessage(judgeSchema), Strict: true},
		MaxTokens: 20, Temperature: &temp,
	})
	if rep == nil {
		return "", err
	}
	j.e.budget.spend(j.ns, j.e.clock.Now(), rep.Usage.PromptTokens+rep.Usage.CompletionTokens)
	var v struct {
		Verdict string `json:"verdict"`
	}
	if err == nil {
		err = json.Unmarshal([]byte(strings.TrimSpace(rep.Content)), &v)
	}
	switch {
	case err != nil:
		j.e.log.Warn("duplicate judge: the reply is no verdict; keeping both", "namespace", j.ns, "reply", clip(rep.Content, 80))
		return verdictUnsure, nil
	case v.Verdict == verdictSame || v.Verdict == verdictDifferent || v.Verdict == verdictUnsure:
		return v.Verdict, nil
	}
	j.e.log.Warn("duplicate judge: the verdict is not same, different or unsure; keeping both", "namespace", j.ns, "verdict", clip(v.Verdict, 40))
	return verdictUnsure, nil
}

// leftOver reports whether a pair of the band went unasked this run.
func (j *dupJudge) leftOver() bool { return j != nil && j.skipped }

// detail is what a merge's change says when the model judged the pair.
func (j *dupJudge) detail(a, b *dedupeFact) string {
	if j == nil || !j.sameMerge[verdictKey(j.ns, a.v.ID, b.v.ID)] {
		return ""
	}
	return fmt.Sprintf("; below the threshold, judged the same fact by %s", j.e.chat.Config().Model)
}
