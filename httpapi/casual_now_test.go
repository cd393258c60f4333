package httpapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// A question that asks what to stay away from wants the user's rules: a
// turn saying something else changed (a new coffee order, a new desk)
// is no answer however recent, and its change cue must not lift it over
// the allergy said in passing two weeks before.
func TestE2ERuleQuestionPrefersTheRuleOverAChange(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	hdr := []string{"X-Mnemon-Namespace", "rules"}
	f.e2eCapture(t, "chat-mon", []map[string]any{
		e2eEvent("user_message", "heads up i'm allergic to peanuts, like epipen allergic lol", day),
		e2eEvent("user_message", "and our build server is TeamCity, dont ask", day.Add(time.Minute)),
	}, hdr...)
	f.e2eCapture(t, "chat-thu", []map[string]any{
		e2eEvent("user_message", "switched from flat whites to cold brew this week, summer mode lol", day.Add(10*24*time.Hour)),
		e2eEvent("user_message", "moved my desk over by the window now, so much better light", day.Add(10*24*time.Hour+time.Minute)),
	}, hdr...)
	for _, q := range []string{"anything I should avoid when ordering dinner?", "is there food I must stay away from?"} {
		res := f.e2eRetrieve(t, q, hdr...)
		if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "peanut") {
			t.Errorf("%q: top %q, want the peanut allergy first (%v)", q, first(res), e2eContents(res.Items))
		}
	}
	// The change cue still lifts a turn on the question's topic.
	f.e2eCapture(t, "chat-old", []map[string]any{
		e2eEvent("user_message", "my usual coffee order is a flat white with oat milk", day.Add(-20*24*time.Hour)),
	}, hdr...)
	res := f.e2eRetrieve(t, "what coffee do I drink these days?", hdr...)
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "cold brew") {
		t.Errorf("top %q, want the switch to cold brew first (%v)", first(res), e2eContents(res.Items))
	}
}

func first(res e2eRetrieveResp) string {
	if len(res.Items) == 0 {
		return ""
	}
	return res.Items[0].Content
}

// Giving up an activity that involves a tool ("gave up on fixing the
// flaky test in Jenkins", "quit trying to tune Postgres") says nothing of
// leaving the tool: the fact stays active. Giving up the tool, or giving
// up using it, still contests it.
func TestE2EGivingUpAnActivityKeepsTheTool(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 3, 9, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		before, after, subject, value string
		contested                     bool
	}{
		{"we run our CI on GitLab", "gave up on debugging the flaky e2e job in GitLab today, meh", "team", "GitLab", false},
		{"we run our CI on GitLab", "ngl gave up trying to speed up GitLab pipelines, they're just slow", "team", "GitLab", false},
		{"our database is Postgres", "quit tuning Postgres for the night, brain is fried lol", "team", "Postgres", false},
		{"we run our CI on GitLab", "gave up on GitLab last month, everything's on Buildkite now", "team", "GitLab", true},
		{"our database is Postgres", "we gave up using Postgres, it's all SQLite now", "team", "Postgres", true},
	}
	for i, c := range cases {
		ns := "giveup" + string(rune('a'+i))
		hdr := []string{"X-Mnemon-Namespace", ns}
		f.e2eCapture(t, "chat-"+ns+"-1", []map[string]any{e2eEvent("user_message", c.before, day)}, hdr...)
		fact := factWithValue(f.e2eFacts(t, ns), c.subject, c.value)
		if fact == nil || fact.Status != "active" {
			t.Errorf("%q stored no active %s fact %q: %+v", c.before, c.subject, c.value, f.e2eFacts(t, ns))
			continue
		}
		f.e2eCapture(t, "chat-"+ns+"-2", []map[string]any{e2eEvent("user_message", c.after, day.Add(5*24*time.Hour))}, hdr...)
		after := factWithValue(f.e2eFacts(t, ns), c.subject, c.value)
		if left := after == nil || after.Status != "active"; left != c.contested {
			t.Errorf("after %q the fact %q is %+v, want it left (contested or ended) %v", c.after, c.value, after, c.contested)
		}
	}
}

// "I don't drink X anymore, only Y" ends X and states Y in one breath: the
// short clause after the comma borrows the first one's verb, so Y is the
// slot's value now, not a turn left for ranking to find.
func TestE2EOnlyTailStatesTheNewValue(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 3, 16, 9, 0, 0, 0, time.UTC)
	cases := []struct{ before, after, key, old, now string }{
		{"I drink coffee all day tbh", "I don't drink coffee anymore, only green tea", "prefers:drink", "coffee", "green tea"},
		{"I drink coffee all day tbh", "i dont really drink coffee anymore lol, just rooibos", "prefers:drink", "coffee", "rooibos"},
		{"my editor is Vim", "I don't use Vim anymore, mostly Helix these days", "prefers:editor", "Vim", "Helix"},
	}
	for i, c := range cases {
		ns := "tail" + string(rune('a'+i))
		hdr := []string{"X-Mnemon-Namespace", ns}
		f.e2eCapture(t, "chat-"+ns+"-1", []map[string]any{e2eEvent("user_message", c.before, day)}, hdr...)
		f.e2eCapture(t, "chat-"+ns+"-2", []map[string]any{e2eEvent("user_message", c.after, day.Add(7*24*time.Hour))}, hdr...)
		var live, old *e2eFact
		facts := f.e2eFacts(t, ns)
		for j := range facts {
			fc := &facts[j]
			if fc.Subject != "user" || fc.Key != c.key {
				continue
			}
			switch {
			case strings.EqualFold(fc.Value, c.now) && fc.Status == "active":
				live = fc
			case strings.EqualFold(fc.Value, c.old):
				old = fc
			}
		}
		if live == nil {
			t.Errorf("%q: no active %s = %q: %+v", c.after, c.key, c.now, facts)
		}
		if old == nil || old.Status == "active" {
			t.Errorf("%q: the old value %q is still active: %+v", c.after, c.old, old)
		}
	}
}

// A chat particle before a statement ("ngl", "tbh", "fwiw", "imo") says
// nothing about it: the statement is read as without it.
func TestE2EChatParticleOpenerKeepsTheStatement(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 3, 23, 9, 0, 0, 0, time.UTC)
	cases := []struct{ text, key, value string }{
		{"ngl I'm allergic to penicillin, found out the hard way", "allergic_to:penicillin", "penicillin"},
		{"tbh I hate olives", "dislikes:olives", "olives"},
		{"fwiw I live in Tartu", "lives_in", "Tartu"},
		{"imo my favorite editor is Zed", "prefers:editor", "Zed"},
		{"lowkey I work at Bolt now", "works_at", "Bolt"},
	}
	for i, c := range cases {
		ns := "particle" + string(rune('a'+i))
		hdr := []string{"X-Mnemon-Namespace", ns}
		f.e2eCapture(t, "chat-"+ns, []map[string]any{e2eEvent("user_message", c.text, day)}, hdr...)
		fc := factWithValue(f.e2eFacts(t, ns), "user", c.value)
		if fc == nil || fc.Key != c.key || fc.Status != "active" {
			t.Errorf("%q: want active user %s = %q, got %+v", c.text, c.key, c.value, f.e2eFacts(t, ns))
		}
	}
}

// A capture may leave occurred_at out: the event happened when the server
// received it. Its facts are written like any other's.
func TestE2ECaptureWithoutOccurredAt(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	hdr := []string{"X-Mnemon-Namespace", "notime"}
	before := time.Now().Add(-time.Second)
	var c e2eCaptureResp
	r := f.e2eDo(t, "POST", "/v1/episodes?wait=true", map[string]any{"session_id": "chat-1",
		"events": []map[string]any{{"kind": "user_message", "content": "fwiw I moved to Tampere last month"}}}, hdr...)
	e2eJSON(t, r, http.StatusOK, &c)
	if len(c.EpisodeIDs) != 1 {
		t.Fatalf("capture: %s", r.body)
	}
	var ep struct {
		Episode struct {
			OccurredAt time.Time `json:"occurred_at"`
		} `json:"episode"`
	}
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories/"+c.EpisodeIDs[0], nil, hdr...), http.StatusOK, &ep)
	if at := ep.Episode.OccurredAt; at.Before(before) || at.After(time.Now().Add(time.Second)) {
		t.Errorf("occurred_at %v, want the server's time of receipt", at)
	}
	if fc := factWithValue(f.e2eFacts(t, "notime"), "user", "Tampere"); fc == nil || fc.Status != "active" {
		t.Errorf("no active lives_in Tampere: %+v", f.e2eFacts(t, "notime"))
	}
	// A time given but empty of meaning is still refused.
	r = f.e2eDo(t, "POST", "/v1/episodes", map[string]any{"session_id": "chat-1",
		"events": []map[string]any{{"kind": "user_message", "content": "hi", "occurred_at": "yesterday-ish"}}}, hdr...)
	e2eProblem(t, r, http.StatusBadRequest, "invalid_timestamp")
}

// An aside after a stated allergy is no allergen and no liking: "found
// out the hard way" is a remark, "like peanuts" gives examples of the
// allergy, "like epipen allergic" is the filler "like". Each turn writes
// exactly the facts listed.
func TestE2EAsidesAfterAStatementWriteNoFacts(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 3, 30, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		text string
		want []string // key=value of the user's facts
	}{
		{"I'm allergic to penicillin, found out the hard way", []string{"allergic_to:penicillin=penicillin"}},
		{"I am allergic to shellfish btw, figured that out on holiday", []string{"allergic_to:shellfish=shellfish"}},
		{"I'm allergic to tree nuts, like walnuts and pecans", []string{"allergic_to:tree_nuts=tree nuts"}},
		{"heads up i'm allergic to peanuts, like epipen allergic lol", []string{"allergic_to:peanuts=peanuts"}},
		{"I like board games, like the classics", []string{"likes:board_games=board games", "likes:classics=the classics"}},
		{"I'm allergic to kiwi, mango and latex", []string{"allergic_to:kiwi=kiwi", "allergic_to:mango=mango", "allergic_to:latex=latex"}},
	}
	for i, c := range cases {
		ns := "aside" + string(rune('a'+i))
		hdr := []string{"X-Mnemon-Namespace", ns}
		f.e2eCapture(t, "chat-"+ns, []map[string]any{e2eEvent("user_message", c.text, day)}, hdr...)
		var got []string
		for _, fc := range f.e2eFacts(t, ns) {
			if fc.Subject == "user" && fc.Status == "active" {
				got = append(got, fc.Key+"="+fc.Value)
			}
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(got, want) {
			t.Errorf("%q: facts %q, want %q", c.text, got, want)
		}
	}
}

// A turn the user says for the team ("we moved the wiki off Confluence")
// is not about other people, so the user's next line is no reply to it:
// "what race am I doing?" gets the race, not the unrelated line that
// followed the team's news in the same sitting.
func TestE2ETeamTurnIsNoOneElsesForReplies(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 4, 6, 9, 0, 0, 0, time.UTC)
	hdr := []string{"X-Mnemon-Namespace", "replies"}
	f.e2eCapture(t, "chat-1", []map[string]any{
		e2eEvent("user_message", "also I'm training for the Bruges half marathon in october, pray for me", day),
	}, hdr...)
	f.e2eCapture(t, "chat-2", []map[string]any{
		e2eEvent("user_message", "update: pulled out of the Bruges half, knee is wrecked. doing the Ghent 10k instead", day.Add(9*24*time.Hour)),
	}, hdr...)
	f.e2eCapture(t, "chat-3", []map[string]any{
		e2eEvent("user_message", "we moved the wiki off Confluence onto Outline last sprint, so much nicer", day.Add(15*24*time.Hour)),
		e2eEvent("user_message", "tbh I'm done with my e-reader, reading paper books again", day.Add(15*24*time.Hour+time.Minute)),
	}, hdr...)
	res := f.e2eRetrieve(t, "what race am I doing?", hdr...)
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "10k") {
		t.Errorf("top %q, want the switch to the 10k (%v)", first(res), e2eContents(res.Items))
	}
	for _, it := range res.Items {
		if strings.Contains(it.Content, "e-reader") && strings.Contains(it.Explanation, "reply") {
			t.Errorf("the line after the team's news was lifted as a reply: %s", it.Explanation)
		}
	}

	// The same for the user's own news said without "I": "traded in the
	// Yaris" names a car, not a person.
	hdr = []string{"X-Mnemon-Namespace", "replies2"}
	f.e2eCapture(t, "chat-1", []map[string]any{
		e2eEvent("user_message", "i drive a 2011 Yaris, its held together with tape at this point", day),
	}, hdr...)
	f.e2eCapture(t, "chat-2", []map[string]any{
		e2eEvent("user_message", "traded in the Yaris!! got a used Kona, electric now lol", day.Add(12*24*time.Hour)),
		e2eEvent("user_message", "ugh my boss wants me on the Porto project from june", day.Add(12*24*time.Hour+time.Minute)),
	}, hdr...)
	res = f.e2eRetrieve(t, "what vehicle do I have?", hdr...)
	for _, it := range res.Items {
		if strings.Contains(it.Content, "Porto") && strings.Contains(it.Explanation, "reply") {
			t.Errorf("the line after the user's car news was lifted as a reply: %s (%v)", it.Explanation, e2eContents(res.Items))
		}
	}
}
