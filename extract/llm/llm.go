// Package llm is the model-backed extractor: it asks a chat model for the
// facts an episode states, as a JSON document of a fixed schema, and
// validates every reply deterministically before anything reaches the
// engine. A reply that is not JSON or not of the schema is rejected whole;
// a fact whose value the episode does not state, whose key cannot be put
// in the rules' slot vocabulary, or whose fields are out of range is
// rejected alone. Rejections are reported (the engine logs them in the
// admission log with their reason) and never stored.
//
// The rules stay: in ModeModel they run when the model cannot answer (it
// is unavailable, or its reply was unusable), in ModeBoth they also fill
// the slots the model left out.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai"
)

// Mode says how the model and the rules share extraction.
type Mode string

const (
	// ModeRules: the rules alone (no model is called; the engine does not
	// build this extractor).
	ModeRules Mode = "rules"
	// ModeModel: the model's facts; the rules only when the model cannot
	// answer or its reply is unusable.
	ModeModel Mode = "model"
	// ModeBoth: the model first, then the rules for the slots it left
	// out (and for everything when it cannot answer).
	ModeBoth Mode = "both"
)

// ParseMode reads a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ModeRules, nil
	case ModeRules, ModeModel, ModeBoth:
		return m, nil
	}
	return "", memory.FieldInvalidf(memory.CodeInvalid, "models.extraction", "models.extraction %q: use rules, model or both", s)
}

// Rejection reasons, the stable codes before ": detail".
const (
	ReasonReplyInvalid     = "model_reply_invalid"
	ReasonValueUnsupported = "model_value_unsupported"
	ReasonKeyUnknown       = "model_key_unknown"
	ReasonFieldInvalid     = "model_field_invalid"
	// NoteFallback is the note of an extraction the rules did because
	// the model could not.
	NoteFallback = "models.extractor_fallback"
)

// maxFacts bounds the facts taken from one reply.
const maxFacts = 32

// Extractor is the model-backed extractor. It is safe for concurrent use.
type Extractor struct {
	client *openai.Client
	rules  extract.Extractor
	mode   Mode
	name   string
}

var _ extract.Reporter = (*Extractor)(nil)

// New returns an extractor calling client's chat model; rules is the
// fallback (extract.NewRules() when nil). mode is ModeModel or ModeBoth.
func New(client *openai.Client, rules extract.Extractor, mode Mode) (*Extractor, error) {
	if client == nil {
		return nil, errors.New("llm extractor: a chat client is required")
	}
	if mode != ModeModel && mode != ModeBoth {
		return nil, fmt.Errorf("llm extractor: mode %q: use model or both", mode)
	}
	if rules == nil {
		rules = extract.NewRules()
	}
	return &Extractor{client: client, rules: rules, mode: mode, name: "llm:" + client.Config().Model}, nil
}

// Name is "llm:<model>".
func (x *Extractor) Name() string { return x.name }

// Mode is the extractor's mode.
func (x *Extractor) Mode() Mode { return x.mode }

// Rules is the fallback extractor.
func (x *Extractor) Rules() extract.Extractor { return x.rules }

// Extract returns the report's candidates (the extract.Extractor view).
func (x *Extractor) Extract(ctx context.Context, ev extract.Event) ([]extract.Candidate, error) {
	rep, err := x.Report(ctx, ev)
	if err != nil {
		return nil, err
	}
	out := make([]extract.Candidate, len(rep.Proposals))
	for i, p := range rep.Proposals {
		out[i] = p.Candidate
	}
	return out, nil
}

// Report asks the model, validates its reply, and adds the rules' part as
// the mode says. Only the caller's own cancellation is an error: a model
// that fails is a note and a fallback.
func (x *Extractor) Report(ctx context.Context, ev extract.Event) (*extract.Report, error) {
	rep := &extract.Report{}
	reply, err := x.client.Chat(ctx, openai.ChatRequest{
		Messages:    []openai.Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: userPrompt(ev)}},
		Schema:      &openai.JSONSchema{Name: "mnemon_facts", Schema: json.RawMessage(schema), Strict: true},
		Temperature: new(float64),
	})
	rep.ModelCalls = 1
	if reply != nil {
		rep.TokensIn, rep.TokensOut = reply.Usage.PromptTokens, reply.Usage.CompletionTokens
	}
	fallback := false
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, memory.ErrModelBadReply):
		rep.Rejected = append(rep.Rejected, extract.Rejection{Content: clip(ev.Content), Reason: ReasonReplyInvalid + ": the reply is not JSON", Extractor: x.name})
		fallback = true
	case err != nil:
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s: the chat model did not answer (%s); the rules extracted", NoteFallback, publicMessage(err)))
		fallback = true
	default:
		props, rejected, whole := x.validate(ev, reply.Content)
		rep.Proposals, rep.Rejected = props, rejected
		fallback = whole
	}
	if fallback || x.mode == ModeBoth {
		cs, err := x.rules.Extract(ctx, ev)
		if err != nil {
			return nil, err
		}
		filled := map[string]bool{}
		for _, p := range rep.Proposals {
			filled[p.Subject+"\x00"+p.Key] = true
		}
		for _, c := range cs {
			if !filled[c.Subject+"\x00"+c.Key] {
				rep.Proposals = append(rep.Proposals, extract.Proposal{Candidate: c, Extractor: x.rules.Name()})
			}
		}
		if fallback && len(rep.Notes) == 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: the chat model's reply was rejected; the rules extracted", NoteFallback))
		}
	}
	return rep, nil
}

// fact is one element of the reply's "facts".
type fact struct {
	Subject    *string  `json:"subject"`
	Key        *string  `json:"key"`
	Value      *string  `json:"value"`
	Type       *string  `json:"type"`
	Confidence *float64 `json:"confidence"`
	ValidFrom  *string  `json:"valid_from"`
	ValidTo    *string  `json:"valid_to"`
	Operation  *string  `json:"operation"`
	Content    *string  `json:"content"`
}

var types = map[string]memory.Type{
	"fact": memory.TypeFact, "preference": memory.TypePreference, "decision": memory.TypeDecision,
	"constraint": memory.TypeConstraint, "goal": memory.TypeGoal, "lesson": memory.TypeLesson,
}

var operations = map[string]extract.Cue{
	"add": extract.CueNone, "update": extract.CueCorrection, "end": extract.CueNegation, "past": extract.CuePast,
}

// validate checks a reply: whole says the reply as a whole was unusable
// (not of the schema), so the rules take over.
func (x *Extractor) validate(ev extract.Event, content string) (props []extract.Proposal, rejected []extract.Rejection, whole bool) {
	reject := func(what, reason string) {
		rejected = append(rejected, extract.Rejection{Content: clip(what), Reason: reason, Extractor: x.name})
	}
	var doc struct {
		Facts *[]json.RawMessage `json:"facts"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(strings.TrimSpace(content))))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil || doc.Facts == nil {
		detail := "no \"facts\" array"
		if err != nil {
			detail = "not of the schema: " + err.Error()
		}
		reject(content, ReasonReplyInvalid+": "+detail)
		return nil, rejected, true
	}
	facts := *doc.Facts
	if len(facts) > maxFacts {
		reject(content, fmt.Sprintf("%s: %d facts; at most %d are read", ReasonReplyInvalid, len(facts), maxFacts))
		facts = facts[:maxFacts]
	}
	for _, raw := range facts {
		var f fact
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&f); err != nil {
			reject(string(raw), ReasonFieldInvalid+": "+err.Error())
			continue
		}
		p, reason := x.proposal(ev, f)
		if reason != "" {
			what := string(raw)
			if f.Content != nil && strings.TrimSpace(*f.Content) != "" {
				what = *f.Content
			}
			reject(what, reason)
			continue
		}
		props = append(props, p)
	}
	return props, rejected, false
}

// proposal turns one fact into a proposal, or says why it is rejected.
func (x *Extractor) proposal(ev extract.Event, f fact) (extract.Proposal, string) {
	for name, v := range map[string]*string{"subject": f.Subject, "key": f.Key, "value": f.Value, "type": f.Type, "operation": f.Operation} {
		if v == nil || strings.TrimSpace(*v) == "" {
			return extract.Proposal{}, ReasonFieldInvalid + ": " + name + " is missing"
		}
	}
	if f.Confidence == nil || math.IsNaN(*f.Confidence) || *f.Confidence < 0 || *f.Confidence > 1 {
		return extract.Proposal{}, ReasonFieldInvalid + ": confidence must be a number from 0 to 1"
	}
	typ, ok := types[strings.ToLower(strings.TrimSpace(*f.Type))]
	if !ok {
		return extract.Proposal{}, fmt.Sprintf("%s: type %q is not one of fact, preference, decision, constraint, goal, lesson", ReasonFieldInvalid, *f.Type)
	}
	cue, ok := operations[strings.ToLower(strings.TrimSpace(*f.Operation))]
	if !ok {
		return extract.Proposal{}, fmt.Sprintf("%s: operation %q is not one of add, update, end, past", ReasonFieldInvalid, *f.Operation)
	}
	value := strings.Trim(strings.TrimSpace(*f.Value), ".,;:!?\"'")
	if !extract.Supported(value, ev.Content) {
		return extract.Proposal{}, fmt.Sprintf("%s: the episode does not say %q", ReasonValueUnsupported, value)
	}
	subject, ok := x.subject(ev, *f.Subject)
	if !ok {
		return extract.Proposal{}, fmt.Sprintf("%s: subject %q is not a name", ReasonFieldInvalid, *f.Subject)
	}
	key, ok := extract.NormalizeKey(*f.Key, value)
	if !ok {
		return extract.Proposal{}, fmt.Sprintf("%s: key %q has no slot", ReasonKeyUnknown, *f.Key)
	}
	var from, to *time.Time
	for _, d := range []struct {
		name string
		raw  *string
		dst  **time.Time
	}{{"valid_from", f.ValidFrom, &from}, {"valid_to", f.ValidTo, &to}} {
		if d.raw == nil || strings.TrimSpace(*d.raw) == "" {
			continue
		}
		t, err := parseDate(*d.raw)
		if err != nil {
			return extract.Proposal{}, fmt.Sprintf("%s: %s %q is not a date (YYYY-MM-DD or RFC 3339)", ReasonFieldInvalid, d.name, *d.raw)
		}
		*d.dst = &t
	}
	if from != nil && to != nil && !to.After(*from) {
		return extract.Proposal{}, ReasonFieldInvalid + ": valid_to is not after valid_from"
	}
	text := ""
	if f.Content != nil {
		text = strings.TrimSpace(*f.Content)
	}
	if text == "" {
		text = fmt.Sprintf("%s %s: %s.", subject, strings.ReplaceAll(key, "_", " "), value)
	}
	start, end := extract.SentenceSpan(ev.Content, value)
	c := extract.Candidate{
		Type: typ, Subject: subject, Key: key, Value: value, Content: text,
		Confidence: *f.Confidence, Cue: cue, Criticality: memory.CriticalityNormal, Start: start, End: end,
	}
	if typ == memory.TypeConstraint {
		c.Criticality = memory.CriticalityHigh
	}
	if err := c.Validate(ev.Content); err != nil {
		return extract.Proposal{}, ReasonFieldInvalid + ": " + publicMessage(err)
	}
	return extract.Proposal{Candidate: c, ValidFrom: from, ValidTo: to, Extractor: x.name}, ""
}

// subject maps the model's subject to the rules' subjects: the speaker
// for first person, the project (or "team") for "we", else a slug.
func (x *Extractor) subject(ev extract.Event, s string) (string, bool) {
	speaker := strings.ToLower(strings.TrimSpace(ev.Speaker))
	if speaker == "" {
		speaker = "user"
	}
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "i", "me", "my", "user", "the user", "speaker", "the speaker", "self":
		return extract.Slug(speaker), true
	case "we", "us", "our", "team", "the team", "project", "the project":
		if p := extract.Slug(ev.ProjectID); p != "" {
			return p, true
		}
		return "team", true
	}
	sub := extract.Slug(s)
	return sub, extract.ValidSubject(sub)
}

func parseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	return time.Parse("2006-01-02", s)
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		cut := 300
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func publicMessage(err error) string {
	var me *memory.Error
	if errors.As(err, &me) {
		return me.Message
	}
	return err.Error()
}

// userPrompt is the episode as the model reads it.
func userPrompt(ev extract.Event) string {
	speaker := ev.Speaker
	if speaker == "" {
		speaker = "user"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Speaker: %s\n", speaker)
	if !ev.OccurredAt.IsZero() {
		fmt.Fprintf(&b, "Said on: %s\n", ev.OccurredAt.UTC().Format("2006-01-02"))
	}
	if ev.ProjectID != "" {
		fmt.Fprintf(&b, "Project: %s\n", ev.ProjectID)
	}
	fmt.Fprintf(&b, "Kind: %s\nText:\n%s", ev.Kind, ev.Content)
	return b.String()
}

const systemPrompt = `You extract durable facts from one message for a memory store.
Reply with one JSON object {"facts": [...]} and nothing else. Each fact has:
- subject: "user" for the speaker, "team" for "we/our project", else the person's or project's name in lowercase
- key: the slot, from this vocabulary when it fits: lives_in, from, works_at, role, name, diet, birthday, pronouns, timezone, native_language, nationality, prefers:<category> (prefers:editor, prefers:programming_language, prefers:drink), likes:<thing>, dislikes:<thing>, uses:<category>, speaks:<language>, allergic_to:<thing>, date:<thing>, constraint:<action>, decision:<topic>, goal:<action>; lowercase words joined by _
- value: the value exactly as the message words it (never a word the message does not contain)
- type: fact, preference, decision, constraint, goal or lesson
- confidence: 0 to 1 (at most 0.5 when the speaker hedges)
- valid_from, valid_to: YYYY-MM-DD when the message says when it holds, else null
- operation: add (a new or repeated value), update (replaces an earlier value: "actually", "switched to", "now"), end (no longer holds), past (held before, not now)
- content: one short third-person sentence stating the fact
Leave out questions, hypotheticals, small talk and other people's opinions. Reply {"facts": []} when there is nothing durable.`

// schema is the reply's JSON schema (strict structured outputs).
const schema = `{"type":"object","additionalProperties":false,"required":["facts"],"properties":{"facts":{"type":"array","items":{"type":"object","additionalProperties":false,
"required":["subject","key","value","type","confidence","valid_from","valid_to","operation","content"],
"properties":{"subject":{"type":"string"},"key":{"type":"string"},"value":{"type":"string"},
"type":{"type":"string","enum":["fact","preference","decision","constraint","goal","lesson"]},
"confidence":{"type":"number"},"valid_from":{"type":["string","null"]},"valid_to":{"type":["string","null"]},
"operation":{"type":"string","enum":["add","update","end","past"]},"content":{"type":"string"}}}}}}`
