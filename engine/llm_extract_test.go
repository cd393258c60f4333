package engine_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/extract/llm"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// modelEngine is an engine over a real SQLite file whose background
// extraction asks the fake provider's chat model.
func modelEngine(t testing.TB, fake *openaitest.Server, mode llm.Mode, perDay int) (*engine.Engine, memory.Store, *openai.Meter) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := openai.New(openai.Config{BaseURL: fake.URL, Model: "fake-chat", MaxRetries: -1, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	meter := openai.NewMeter()
	c.SetMeter(meter)
	x, err := llm.New(c, nil, mode)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Config{Store: st, Clock: clock.NewManual(t0), ModelExtractor: x, TokensPerDay: perDay, Meter: meter})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close()
		st.Close()
		c.Close()
	})
	return e, st, meter
}

func captureAndExtract(t *testing.T, e *engine.Engine, texts ...string) []string {
	t.Helper()
	ctx := context.Background()
	q := &queue{}
	var evs []engine.Event
	for i, s := range texts {
		evs = append(evs, engine.Event{Kind: memory.EpisodeUserMessage, Content: s, Speaker: "ana", OccurredAt: t0.Add(time.Duration(i) * time.Minute)})
	}
	ack, err := e.CaptureDeferred(ctx, engine.CaptureParams{Namespace: "ns", Events: evs}, q.enqueue)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range q.jobs {
		if _, err := e.Extract(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	return ack.EpisodeIDs
}

const lisbonReply = `{"facts":[{"subject":"I","key":"home city","value":"Lisbon","type":"fact","confidence":0.9,"valid_from":null,"valid_to":null,"operation":"add","content":"Ana lives in Lisbon."}]}`

// TestModelExtractionWritesVersions: the background job's facts come from
// the model, keyed in the rules' vocabulary; a correction supersedes; a
// hallucinated value is rejected into the admission log and not stored.
func TestModelExtractionWritesVersions(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, "fake-embed", 8)
	e, st, meter := modelEngine(t, fake, llm.ModeModel, 0)
	fake.Script("/v1/chat/completions",
		openaitest.Reply{Content: lisbonReply},
		openaitest.Reply{Content: `{"facts":[{"subject":"user","key":"location","value":"Porto","type":"fact","confidence":0.9,"valid_from":null,"valid_to":null,"operation":"update","content":"Ana lives in Porto."},
		 {"subject":"user","key":"employer","value":"Initech","type":"fact","confidence":0.9,"valid_from":null,"valid_to":null,"operation":"add","content":"Ana works at Initech."}]}`})
	eps := captureAndExtract(t, e, "I live in Lisbon these days.", "Actually I moved to Porto.")

	vs := factByKey(t, e, "ns", "lives_in", true)
	var live, old []*memory.Version
	for _, v := range vs {
		if v.Status.Live() {
			live = append(live, v)
		} else {
			old = append(old, v)
		}
	}
	if len(live) != 1 || live[0].Value != "Porto" || live[0].Provenance.Extractor != "llm:fake-chat" || len(old) != 1 || old[0].Value != "Lisbon" {
		t.Fatalf("lives_in versions: %+v", vs)
	}
	if got := factByKey(t, e, "ns", "works_at", true); len(got) != 0 {
		t.Fatalf("a hallucinated value was stored: %+v", got)
	}
	adms, err := st.ListAdmissions(context.Background(), memory.ListAdmissionsParams{Namespace: "ns", EpisodeID: eps[1]})
	if err != nil {
		t.Fatal(err)
	}
	rejected := slices.IndexFunc(adms, func(a *memory.Admission) bool {
		return a.Decision == memory.AdmitReject && slices.ContainsFunc(a.Reasons, func(r string) bool { return strings.HasPrefix(r, llm.ReasonValueUnsupported+": ") })
	})
	if rejected < 0 || adms[rejected].VersionID != "" || !strings.Contains(adms[rejected].Content, "Initech") {
		t.Fatalf("admissions %+v: no rejection of the hallucinated value", adms)
	}
	if s := meter.Snapshot(); len(s) != 1 || s[0].Calls != 2 {
		t.Fatalf("meter %+v", s)
	}
}

// TestModelExtractionBadReplyFallsBack: malformed JSON is rejected with
// its reason and the rules extract; nothing of the reply is stored.
func TestModelExtractionBadReplyFallsBack(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, "fake-embed", 8)
	e, st, _ := modelEngine(t, fake, llm.ModeModel, 0)
	fake.Script("/v1/chat/completions", openaitest.Reply{Content: `{"facts": [{"subject": "user", "key": "lives_in", "value": "Lis`})
	eps := captureAndExtract(t, e, "I live in Lisbon these days.")
	vs := factByKey(t, e, "ns", "lives_in", false)
	if len(vs) != 1 || vs[0].Provenance.Extractor == "llm:fake-chat" {
		t.Fatalf("lives_in %+v: want the rules' version", vs)
	}
	adms, err := st.ListAdmissions(context.Background(), memory.ListAdmissionsParams{Namespace: "ns", EpisodeID: eps[0]})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(adms, func(a *memory.Admission) bool {
		return a.Decision == memory.AdmitReject && slices.ContainsFunc(a.Reasons, func(r string) bool { return strings.HasPrefix(r, llm.ReasonReplyInvalid) })
	}) {
		t.Fatalf("admissions %+v: the malformed reply is not logged", adms)
	}
}

// TestDailyTokenBudget: once a namespace used its tokens for the day, the
// background job extracts with the rules without calling the model.
func TestDailyTokenBudget(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, "fake-embed", 8)
	// The fake reports 4 tokens a chat call: the budget is spent after one.
	e, _, _ := modelEngine(t, fake, llm.ModeModel, 4)
	fake.Script("/v1/chat/completions", openaitest.Reply{Content: lisbonReply})
	captureAndExtract(t, e, "I live in Lisbon these days.")
	if n := e.ModelTokensToday("ns"); n != 4 {
		t.Fatalf("tokens today %d, want 4", n)
	}
	captureAndExtract(t, e, "I work at Initech now.")
	if n := fake.Requests("/v1/chat/completions"); n != 1 {
		t.Fatalf("%d chat calls: the budget did not stop the model", n)
	}
	if vs := factByKey(t, e, "ns", "works_at", false); len(vs) != 1 || vs[0].Provenance.Extractor == "llm:fake-chat" {
		t.Fatalf("works_at %+v: want the rules' version", vs)
	}
}
