package llm_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/extract/llm"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
)

func newExtractor(t *testing.T, fake *openaitest.Server, mode llm.Mode, meter *openai.Meter) *llm.Extractor {
	t.Helper()
	c, err := openai.New(openai.Config{BaseURL: fake.URL, Model: "fake-chat", MaxRetries: -1, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c.SetMeter(meter)
	t.Cleanup(c.Close)
	x, err := llm.New(c, nil, mode)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

var ev = extract.Event{Kind: memory.EpisodeUserMessage, Speaker: "ana", Content: "Actually I moved to Porto last month. My favourite editor is Helix.",
	OccurredAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}

const good = `{"facts":[
 {"subject":"I","key":"location","value":"Porto","type":"fact","confidence":0.9,"valid_from":"2026-02-01","valid_to":null,"operation":"update","content":"Ana lives in Porto."},
 {"subject":"user","key":"favorite text editor","value":"Helix","type":"preference","confidence":0.8,"valid_from":null,"valid_to":null,"operation":"add","content":"Ana's favourite editor is Helix."}]}`

func TestReportValidatesAndNormalises(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, "fake-embed", 8)
	meter := openai.NewMeter()
	x := newExtractor(t, fake, llm.ModeModel, meter)
	fake.Script("/v1/chat/completions", openaitest.Reply{Content: good})
	rep, err := x.Report(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rejected) != 0 || len(rep.Notes) != 0 || len(rep.Proposals) != 2 {
		t.Fatalf("report %+v", rep)
	}
	p := rep.Proposals[0]
	if p.Subject != "ana" || p.Key != "lives_in" || p.Value != "Porto" || p.Cue != extract.CueCorrection || p.ValidFrom == nil ||
		!p.ValidFrom.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) || p.Extractor != "llm:fake-chat" {
		t.Fatalf("first proposal %+v", p)
	}
	if got := ev.Content[p.Start:p.End]; got != "Actually I moved to Porto last month." {
		t.Fatalf("span %q", got)
	}
	if q := rep.Proposals[1]; q.Key != "prefers:editor" || q.Type != memory.TypePreference {
		t.Fatalf("second proposal %+v: the key is not the rules' slot", q)
	}
	// The request asked for the schema, and the meter counted the call.
	body := fake.Bodies()[0]
	if !strings.Contains(body, `"json_schema"`) || !strings.Contains(body, "Actually I moved to Porto") {
		t.Fatalf("request body %s", body)
	}
	if s := meter.Snapshot(); len(s) != 1 || s[0].Calls != 1 || s[0].Errors != 0 || s[0].TokensIn != 3 || s[0].Endpoint != "chat" {
		t.Fatalf("meter %+v", s)
	}
}

// Every bad reply is rejected with its reason; the rules take over when
// the reply as a whole is unusable.
func TestReportRejectsBadReplies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		reply    openaitest.Reply
		reason   string
		fellBack bool
	}{
		{"malformed JSON", openaitest.Reply{Content: `{"facts": [`}, llm.ReasonReplyInvalid, true},
		{"wrong schema", openaitest.Reply{Content: `{"memories": []}`}, llm.ReasonReplyInvalid, true},
		{"facts not an array", openaitest.Reply{Content: `{"facts": "Porto"}`}, llm.ReasonReplyInvalid, true},
		{"hallucinated value", openaitest.Reply{Content: `{"facts":[{"subject":"user","key":"lives_in","value":"Madrid","type":"fact","confidence":0.9,"valid_from":null,"valid_to":null,"operation":"add","content":"Ana lives in Madrid."}]}`}, llm.ReasonValueUnsupported, false},
		{"unknown type", openaitest.Reply{Content: `{"facts":[{"subject":"user","key":"lives_in","value":"Porto","type":"rumour","confidence":0.9,"valid_from":null,"valid_to":null,"operation":"add","content":"x"}]}`}, llm.ReasonFieldInvalid, false},
		{"confidence out of range", openaitest.Reply{Content: `{"facts":[{"subject":"user","key":"lives_in","value":"Porto","type":"fact","confidence":7,"valid_from":null,"valid_to":null,"operation":"add","content":"x"}]}`}, llm.ReasonFieldInvalid, false},
		{"bad date", openaitest.Reply{Content: `{"facts":[{"subject":"user","key":"lives_in","value":"Porto","type":"fact","confidence":0.9,"valid_from":"last month","valid_to":null,"operation":"add","content":"x"}]}`}, llm.ReasonFieldInvalid, false},
		{"extra field", openaitest.Reply{Content: `{"facts":[{"subject":"user","key":"lives_in","value":"Porto","type":"fact","confidence":0.9,"valid_from":null,"valid_to":null,"operation":"add","content":"x","secret":1}]}`}, llm.ReasonFieldInvalid, false},
		{"key with no slot", openaitest.Reply{Content: `{"facts":[{"subject":"user","key":"prefers","value":"last month","type":"fact","confidence":0.9,"valid_from":null,"valid_to":null,"operation":"add","content":"x"}]}`}, llm.ReasonKeyUnknown, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := openaitest.New(t, "fake-embed", 8)
			x := newExtractor(t, fake, llm.ModeModel, nil)
			fake.Script("/v1/chat/completions", tc.reply)
			rep, err := x.Report(context.Background(), ev)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Rejected) != 1 || !strings.HasPrefix(rep.Rejected[0].Reason, tc.reason+": ") {
				t.Fatalf("rejected %+v, want one %s", rep.Rejected, tc.reason)
			}
			for _, p := range rep.Proposals {
				if p.Extractor != extract.RulesName {
					t.Fatalf("a bad reply's fact was proposed: %+v", p)
				}
			}
			if fell := len(rep.Proposals) > 0; fell != tc.fellBack {
				t.Fatalf("rules fallback %v, want %v: %+v", fell, tc.fellBack, rep.Proposals)
			}
		})
	}
}

// A provider that fails (500, 429, too slow) is a fallback to the rules
// with a note, never an error.
func TestReportFallsBackWhenTheModelFails(t *testing.T) {
	t.Parallel()
	for _, r := range []openaitest.Reply{{Status: 500}, {Status: 429, RetryAfter: "1"}, {Delay: 5 * time.Second}} {
		fake := openaitest.New(t, "fake-embed", 8)
		x := newExtractor(t, fake, llm.ModeModel, nil)
		fake.Script("/v1/chat/completions", r)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		rep, err := x.Report(ctx, ev)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Notes) != 1 || !strings.HasPrefix(rep.Notes[0], llm.NoteFallback+": ") || len(rep.Proposals) == 0 || rep.Proposals[0].Extractor != extract.RulesName {
			t.Fatalf("reply %+v: report %+v", r, rep)
		}
		if strings.Contains(rep.Notes[0], fake.URL) {
			t.Fatalf("the note names the endpoint: %s", rep.Notes[0])
		}
	}
}

// ModeBoth adds the rules' facts for the slots the model left out.
func TestModeBothFillsMissingSlots(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, "fake-embed", 8)
	x := newExtractor(t, fake, llm.ModeBoth, nil)
	fake.Script("/v1/chat/completions", openaitest.Reply{Content: `{"facts":[{"subject":"user","key":"editor","value":"Helix","type":"preference","confidence":0.8,"valid_from":null,"valid_to":null,"operation":"add","content":"Ana's favourite editor is Helix."}]}`})
	rep, err := x.Report(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]string{}
	for _, p := range rep.Proposals {
		if _, dup := by[p.Key]; dup {
			t.Fatalf("two proposals for %s: %+v", p.Key, rep.Proposals)
		}
		by[p.Key] = p.Extractor
	}
	if by["prefers:editor"] != "llm:fake-chat" {
		t.Fatalf("proposals %+v: the model's editor is not kept", rep.Proposals)
	}
	if by["lives_in"] != extract.RulesName {
		t.Fatalf("proposals %+v: the rules did not fill lives_in", rep.Proposals)
	}
}

func TestNormalizeKey(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ key, value, want string }{
		{"employer", "Acme", "works_at"},
		{"Favorite Text Editor", "Helix", "prefers:editor"},
		{"prefers:IDE", "VS Code", "prefers:editor"},
		{"preference", "Neovim", "prefers:editor"},
		{"allergy", "peanuts", "allergic_to:peanuts"},
		{"likes", "rock climbing", "likes:rock_climbing"},
		{"lives_in", "Porto", "lives_in"},
		{"decision:frontend framework", "Svelte", "decision:frontend_framework"},
	} {
		if got, ok := extract.NormalizeKey(c.key, c.value); !ok || got != c.want {
			t.Errorf("NormalizeKey(%q, %q) = %q, %v; want %q", c.key, c.value, got, ok, c.want)
		}
	}
	if got, ok := extract.NormalizeKey("::", "x"); ok {
		t.Errorf("an empty key normalised to %q", got)
	}
}
