package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// e2eFact is a fact as GET /v1/memories lists it.
type e2eFact struct {
	ID           string   `json:"id"`
	MemoryID     string   `json:"memory_id"`
	Seq          int      `json:"seq"`
	Subject      string   `json:"subject"`
	Key          string   `json:"key"`
	Value        string   `json:"value"`
	Status       string   `json:"status"`
	SupersededBy string   `json:"superseded_by"`
	Evidence     []string `json:"evidence_episode_ids"`
}

func (f *e2eFixture) e2eFacts(t *testing.T, ns string) []e2eFact {
	t.Helper()
	var b struct {
		Memories []e2eFact `json:"memories"`
	}
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories?include_history=true&limit=1000", nil, "X-Mnemon-Namespace", ns), http.StatusOK, &b)
	return b.Memories
}

func factWithValue(fs []e2eFact, subject, value string) *e2eFact {
	for i := range fs {
		if fs[i].Subject == subject && strings.EqualFold(fs[i].Value, value) {
			return &fs[i]
		}
	}
	return nil
}

// A fact a later message says changed is contested in storage, not only
// ranked below the message: the facts listing says so, and explain cites
// the message. Questions, plans, hedges, negations, conditions, other
// people's changes and values named only inside a bigger phrase leave it
// active. Each case is one user's chat over two sessions, a week apart,
// captured through the API as an agent's hook would.
func TestE2EChangeContestsFact(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 4, 6, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		name, before, after string
		subject, value      string
		contested           bool
	}{
		{"a tool ditched", "we deploy with Jenkins", "ugh, finally ditched Jenkins last sprint, github actions does it all",
			"team", "Jenkins", true},
		{"an app quit, no new value read", "I use Notion for my notes", "quit Notion, everything lives in plain markdown files now",
			"user", "Notion", true},
		{"someone else's tool, named", "Ines uses Figma for everything", "Ines dropped Figma, she's all in on Penpot",
			"ines", "Figma", true},
		{"a question", "we deploy with Jenkins", "did we ever get rid of Jenkins?", "team", "Jenkins", false},
		{"a plan", "we deploy with Jenkins", "we're going to ditch Jenkins", "team", "Jenkins", false},
		{"a plan with a date", "we deploy with Jenkins", "ditching Jenkins next quarter probably", "team", "Jenkins", false},
		{"a condition", "we deploy with Jenkins", "if we ditched Jenkins, who'd maintain Drone?", "team", "Jenkins", false},
		{"a negation", "we deploy with Jenkins", "nope, never got rid of Jenkins", "team", "Jenkins", false},
		{"part of a bigger phrase", "we deploy with Jenkins", "got rid of the Jenkins plugins that kept breaking", "team", "Jenkins", false},
		{"another person's change", "we deploy with Jenkins", "Marta ditched Jenkins on her side project", "team", "Jenkins", false},
		{"the speaker's change, not the named person's", "Ines uses Figma for everything", "I dropped Figma ages ago", "ines", "Figma", false},
	}
	for i, c := range cases {
		ns := fmt.Sprintf("contest%d", i)
		f.e2eCapture(t, "chat-"+ns+"-a", []map[string]any{e2eEvent("user_message", c.before, day)}, "X-Mnemon-Namespace", ns)
		first := factWithValue(f.e2eFacts(t, ns), c.subject, c.value)
		if first == nil || first.Status != "active" {
			t.Fatalf("%s: %q stored no active %s fact %q: %+v", c.name, c.before, c.subject, c.value, f.e2eFacts(t, ns))
		}
		after := f.e2eCapture(t, "chat-"+ns+"-b", []map[string]any{e2eEvent("user_message", c.after, day.Add(7*24*time.Hour))}, "X-Mnemon-Namespace", ns)
		var fact *e2eFact
		for _, fc := range f.e2eFacts(t, ns) {
			if fc.ID == first.ID {
				fact = &fc
			}
		}
		switch {
		case fact == nil:
			t.Errorf("%s: the fact %s left the listing", c.name, first.ID)
		case c.contested && fact.Status != "contested":
			t.Errorf("%s: after %q the fact %q is %s, want contested", c.name, c.after, c.value, fact.Status)
		case !c.contested && fact.Status != "active":
			t.Errorf("%s: after %q the fact %q is %s, want active", c.name, c.after, c.value, fact.Status)
		}
		if fact == nil || !c.contested {
			continue
		}
		// Explain says why, citing the message that said it changed.
		var ex struct {
			Memory struct {
				Versions []struct {
					Version struct {
						ID string `json:"id"`
					} `json:"version"`
					Admissions []struct {
						EpisodeID string   `json:"episode_id"`
						Reasons   []string `json:"reasons"`
						Operation string   `json:"operation"`
						Content   string   `json:"content"`
					} `json:"admissions"`
					Why []string `json:"why"`
				} `json:"versions"`
			} `json:"memory"`
		}
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories/"+url.PathEscape(fact.ID)+"/explain", nil, "X-Mnemon-Namespace", ns), http.StatusOK, &ex)
		cited := false
		for _, v := range ex.Memory.Versions {
			for _, a := range v.Admissions {
				if slices.Contains(a.Reasons, "change_stated") && a.Operation == "CONTEST" {
					cited = a.EpisodeID == after.EpisodeIDs[0] && strings.Contains(a.Content, after.EpisodeIDs[0]) &&
						strings.Contains(strings.ToLower(a.Content), strings.ToLower(c.value))
				}
			}
			if cited && !slices.ContainsFunc(v.Why, func(s string) bool {
				return strings.Contains(s, "change_stated") && strings.Contains(s, after.EpisodeIDs[0])
			}) {
				t.Errorf("%s: explain's why does not cite the message: %q", c.name, v.Why)
			}
		}
		if !cited {
			t.Errorf("%s: no change_stated admission citing %s: %+v", c.name, after.EpisodeIDs[0], ex.Memory.Versions)
		}
	}
}

// A confident restatement after a contest makes the fact active again:
// the change was reversed ("back on Jenkins").
func TestE2EChangeContestSettledByRestatement(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 4, 6, 9, 0, 0, 0, time.UTC)
	ns := "restated"
	for i, text := range []string{"we deploy with Jenkins", "ugh, finally ditched Jenkins, github actions does it all", "we deploy with Jenkins"} {
		f.e2eCapture(t, fmt.Sprintf("chat-%d", i), []map[string]any{e2eEvent("user_message", text, day.Add(time.Duration(i)*24*time.Hour))}, "X-Mnemon-Namespace", ns)
		fact := factWithValue(f.e2eFacts(t, ns), "team", "Jenkins")
		want := []string{"active", "contested", "active"}[i]
		if fact == nil || fact.Status != want {
			t.Fatalf("after %q: Jenkins fact %+v, want %s", text, fact, want)
		}
	}
}

// "I'm on X these days, gave up on Y": Y is recorded first and X
// supersedes it, through remember as through capture.
func TestE2EPastValueSaidAfterTheCurrentOne(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	f.e2eRemember(t, map[string]any{"text": "I'm on Manjaro these days, gave up on Debian", "session_id": "laptop-chat"}, "X-Mnemon-Namespace", "os")
	fs := f.e2eFacts(t, "os")
	now, was := factWithValue(fs, "user", "Manjaro"), factWithValue(fs, "user", "Debian")
	if now == nil || was == nil {
		t.Fatalf("facts %+v: want Manjaro and Debian", fs)
	}
	if now.Status != "active" || was.Status != "superseded" || was.SupersededBy != now.ID || was.MemoryID != now.MemoryID || was.Seq >= now.Seq {
		t.Fatalf("Debian v%d %s (superseded by %s), Manjaro v%d %s (%s): want Debian first, superseded by Manjaro",
			was.Seq, was.Status, was.SupersededBy, now.Seq, now.Status, now.ID)
	}
}

// An agent over MCP sees the same: remember reports the contest,
// list_facts lists the fact as contested and history says which
// statement contested it.
func TestE2EMCPChangeContestsFact(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{mcp: true})
	s, err := mcpConnect(t, f, "")
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr := mcpCall(t, s, "remember", map[string]any{"text": "I use Notion for my notes", "session_id": "desk-1"}); isErr {
		t.Fatalf("remember: %s", text)
	}
	text, isErr := mcpCall(t, s, "remember", map[string]any{"text": "quit Notion, everything lives in plain markdown files now", "session_id": "desk-2"})
	if isErr || !strings.Contains(text, "CONTEST mem_") || !strings.Contains(text, "change_stated") {
		t.Fatalf("remember does not report the contest: %v %s", isErr, text)
	}
	facts, isErr := mcpCall(t, s, "list_facts", map[string]any{"subject": "user"})
	i := strings.Index(facts, "[contested]")
	if isErr || i < 0 || !strings.Contains(facts[i:], "Notion") {
		t.Fatalf("list_facts: %v %s", isErr, facts)
	}
	memID := facts[strings.LastIndex(facts[:i], "mem_"):i]
	hist, isErr := mcpCall(t, s, "history", map[string]any{"id": strings.TrimSpace(memID)})
	if isErr || !strings.Contains(hist, `contested: ep_`) || !strings.Contains(hist, `"quit Notion"`) {
		t.Errorf("history does not say what contested it: %v %s", isErr, hist)
	}
}
