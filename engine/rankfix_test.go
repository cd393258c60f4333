package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// A query that says "the user" must not match every turn the user spoke:
// the speaker label is not a word of the turn.
func TestSpeakerLabelIsNotAQueryTerm(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-3 * day)
	captureSession(t, e, "ns", "a", start, "ok cool", "yep", "lol fair", "sounds good to me")
	captureSession(t, e, "ns", "b", start.Add(day), "the new hatchback handles snow way better than I expected")
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "how does the user's hatchback do in the snow?",
		Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "hatchback") {
		t.Fatalf("top item %v, want the hatchback turn", contents(res))
	}
	for _, it := range res.Items[1:] {
		if _, ok := it.Channels[engine.ChannelLexical]; ok {
			t.Errorf("small talk %q matched the query's words: %s", it.Content, it.Explanation)
		}
	}
}

// The same words are one item: said in three sessions, they take one line
// citing all three turns; a note kept from a turn takes the turn's place.
func TestSameTextPackedOnce(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-5 * day)
	var turns []string
	for i, s := range []string{"mon", "wed", "fri"} {
		turns = append(turns, captureSession(t, e, "ns", s, start.Add(time.Duration(i)*day), "the printer on floor 3 is jammed again")...)
	}
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "what's wrong with the printer on floor 3?",
		Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
	var printer []engine.Item
	for _, it := range res.Items {
		if strings.Contains(it.Content, "printer") {
			printer = append(printer, it)
		}
	}
	if len(printer) != 1 {
		t.Fatalf("the repeated turn was packed %d times: %v", len(printer), contents(res))
	}
	for _, id := range turns {
		if !slices.Contains(printer[0].EpisodeIDs, id) {
			t.Errorf("the packed item does not cite %s: %v", id, printer[0].EpisodeIDs)
		}
	}

	// remember keeps a statement no rule reads as a note with the very
	// words of its episode: one item, the note, at the better rank.
	text := "The quarterly offsite budget got moved to the March planning doc."
	rr := remember(t, e, "ns2", text, clk.Now().Add(-time.Hour))
	var note string
	for _, o := range rr.Outcomes {
		if o.Operation == memory.OpAdd {
			note = o.MemoryID
		}
	}
	if note == "" {
		t.Fatalf("remember kept no note: %+v", rr.Outcomes)
	}
	res = retrieve(t, e, engine.RetrieveParams{Namespace: "ns2", Query: "where did the offsite budget go?"})
	same := 0
	for _, it := range res.Items {
		if it.Content == text {
			same++
		}
	}
	if same != 1 || res.Items[0].MemoryID != note {
		t.Fatalf("items %v (first %s), want the note %s once, first", contents(res), res.Items[0].MemoryID, note)
	}
}

// A question about the past asks for the value the current one replaced,
// not the oldest of several.
func TestPreviousValueFirst(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	at := clk.Now().Add(-30 * day)
	for _, text := range []string{
		"My favorite editor is Vim.",
		"Actually, I switched to Emacs for my editor.",
		"Actually, I switched to Neovim for my editor.",
	} {
		remember(t, e, "ns", text, at)
		at = at.Add(10 * day)
	}
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "which editor did the user use before?", IncludeHistory: true, Limit: 3})
	if len(res.Items) == 0 || res.Items[0].Value != "Emacs" {
		t.Fatalf("top %v, want Emacs (the value Neovim replaced)", contents(res))
	}
	if !strings.Contains(res.Items[0].Explanation, "previous") {
		t.Errorf("explanation does not say why: %s", res.Items[0].Explanation)
	}
}

// A turn that asks states nothing: it is marked down (term "question"),
// the answer is not.
func TestQuestionTurnMarkedDown(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-2 * day)
	captureSession(t, e, "ns", "a", start,
		"hey, does Priya still go to the gym?",
		"yes, Priya still goes to the climbing gym on Harbour Street.")
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "which gym does Priya go to?",
		Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext, Limit: 2})
	if len(res.Items) != 2 {
		t.Fatalf("items %v", contents(res))
	}
	for _, it := range res.Items {
		q, marked := it.Terms["question"]
		if asks := strings.HasSuffix(it.Content, "?"); asks != marked || (marked && q != -0.05) {
			t.Errorf("%q: question term %v (%v)", it.Content, q, marked)
		}
	}
}

// A question in the first person is about the user: someone else's fact
// does not answer it (term other_subject), the user's own does.
func TestFirstPersonQuestionIsAboutTheUser(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	remember(t, e, "ns", "My roommate works at Brightfield Analytics.", clk.Now().Add(-2*day))
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "which company do I work for?"})
	for _, it := range res.Items {
		if it.Kind != memory.KindEpisodic && it.Terms["other_subject"] == 0 {
			t.Fatalf("the roommate's fact answers a first-person question unmarked: %s", it.Explanation)
		}
	}
	remember(t, e, "ns", "I work at Norrhaven Shipping.", clk.Now().Add(-day))
	res = retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "which company do I work for?"})
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "Norrhaven") {
		t.Fatalf("items %v, want the user's employer first", contents(res))
	}
}

// How a turn is said counts: small talk answers nothing however recent,
// a turn about someone else does not answer a question about the user, a
// quantity question prefers a turn that says a number, and the turn that
// says a value changed goes before the value it replaced.
func TestTurnShapesRank(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-6 * day)
	captureSession(t, e, "ns", "a", start, "my flatmate works at a brewery down by the docks", "the pub quiz was a disaster")
	captureSession(t, e, "ns", "b", start.Add(day), "the blog runs on Jekyll, it takes ages to build",
		"membership at the climbing gym is 45 a month")
	captureSession(t, e, "ns", "c", start.Add(2*day), "finally got the job at the harbour museum, I start in the archive on monday",
		"switched the blog to Hugo now, builds in a second")
	captureSession(t, e, "ns", "d", start.Add(3*day), "legend", "haha nice", "cheers")
	scope := memory.Scope{UserID: "u1"}
	top := func(q string) engine.Item {
		t.Helper()
		res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: q, Scope: scope, Context: engine.NoContext})
		if len(res.Items) == 0 {
			t.Fatalf("%q: nothing retrieved", q)
		}
		return res.Items[0]
	}
	if it := top("where do I work?"); strings.Contains(it.Content, "flatmate") {
		t.Errorf("where do I work? -> the flatmate's job first: %s", it.Explanation)
	}
	if it := top("who does my flatmate work for?"); !strings.Contains(it.Content, "brewery") {
		t.Errorf("who does my flatmate work for? -> %q first, want the brewery", it.Content)
	}
	if it := top("how much is my climbing membership?"); !strings.Contains(it.Content, "45") {
		t.Errorf("how much is my climbing membership? -> %q first", it.Content)
	}
	if it := top("what does my blog run on?"); !strings.Contains(it.Content, "Hugo") {
		t.Errorf("what does my blog run on? -> %q first, want the switch to Hugo: %v", it.Content, it.Terms)
	}
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "which museum hired me?", Scope: scope, Context: engine.NoContext})
	for i, it := range res.Items {
		if it.Content == "legend" || it.Content == "cheers" {
			if i < 2 {
				t.Errorf("small talk %q ranked %d: %v", it.Content, i+1, contents(res))
			}
			if it.Terms["chatter"] >= 0 {
				t.Errorf("small talk %q has no chatter term: %v", it.Content, it.Terms)
			}
		}
	}
}

// The user's own reply after a turn about other people answers a question
// about the user, though it shares no word with it.
func TestReplyAfterOthersAnswers(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-4 * day)
	_, err := e.Capture(t.Context(), engine.CaptureParams{Namespace: "ns", Scope: memory.Scope{UserID: "u1", SessionID: "s1"},
		Events: []engine.Event{
			{Kind: memory.EpisodeUserMessage, Content: "ordering the team's lunch: Pieter wants the falafel wrap, Ines the lentil soup", OccurredAt: start},
			{Kind: memory.EpisodeAgentMessage, Speaker: "assistant", Content: "Noted. Anything for you?", OccurredAt: start.Add(time.Minute)},
			{Kind: memory.EpisodeUserMessage, Content: "the halloumi salad for me, same as every week", OccurredAt: start.Add(2 * time.Minute)},
		}})
	if err != nil {
		t.Fatal(err)
	}
	captureSession(t, e, "ns", "s2", start.Add(day), "the bus was late again", "lol yes")
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "what do I usually get for lunch?",
		Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "halloumi") {
		t.Fatalf("top items %v; want the user's own order first", contents(res))
	}
	if res.Items[0].Terms["reply"] <= 0 {
		t.Errorf("the reply was not lifted as one: %v", res.Items[0].Terms)
	}
	// About someone else, the reply is not lifted.
	res = retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "what does Pieter get for lunch?",
		Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "Pieter") {
		t.Fatalf("top items %v; want Pieter's order first", contents(res))
	}
}

// When the turn the reply follows is about someone else, and so ranked
// low for a question about the user, the reply still takes its place: the
// turn's words matched, only its subject is wrong.
func TestReplyAfterOthersPenalisedTurn(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-4 * day)
	_, err := e.Capture(t.Context(), engine.CaptureParams{Namespace: "ns", Scope: memory.Scope{UserID: "u1", SessionID: "s1"},
		Events: []engine.Event{
			{Kind: memory.EpisodeUserMessage, Content: "my cousins' birthdays are all in March, Ilse on the 3rd and Joost on the 12th", OccurredAt: start},
			{Kind: memory.EpisodeAgentMessage, Speaker: "assistant", Content: "A busy month for cards.", OccurredAt: start.Add(time.Minute)},
			{Kind: memory.EpisodeUserMessage, Content: "and mine's the 30th of April, nobody remembers it", OccurredAt: start.Add(2 * time.Minute)},
		}})
	if err != nil {
		t.Fatal(err)
	}
	captureSession(t, e, "ns", "s2", start.Add(day), "the heating is on the blink", "ugh")
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "when is my birthday?",
		Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "30th") {
		t.Fatalf("top items %v; want the user's own date first", contents(res))
	}
}

// The speaker's next turn after a turn about someone else is no reply
// when it says something changed of its own: "I switched my gym to …"
// is news, and does not take the top turn's place for a question it
// shares nothing with.
func TestNewsAfterOthersIsNoReply(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-4 * day)
	captureSession(t, e, "ns", "s1", start,
		"we adopted a cat last week, a grey tabby we named Pickle",
		"my neighbour Oskar is scared of cats so he won't come over now",
		"I switched my gym to the one by the station, the old one closed")
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "what's my cat called?", Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "Pickle") {
		t.Fatalf("top items %v; want the turn naming the cat first", contents(res))
	}
	for _, it := range res.Items {
		if it.Terms["reply"] > 0 {
			t.Errorf("%q lifted as a reply: %v", it.Content, it.Terms)
		}
	}
}

// Being among the newest turns is no relevance: a recent turn that no
// other channel found does not outrank an older one that says the answer.
func TestRecentAloneIsNotRelevant(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-10 * day)
	captureSession(t, e, "ns", "s1", start, "my physio appointments are every other Tuesday at nine")
	for i := range 4 {
		captureSession(t, e, "ns", fmt.Sprintf("chat%d", i), start.Add(time.Duration(i+1)*day), "ha, that printer again", "ok cool", "the train was packed")
	}
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "when do I see the physiotherapist?",
		Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "physio") {
		t.Fatalf("top items %v; want the physio turn first", contents(res))
	}
	for _, it := range res.Items {
		if _, recent := it.Channels["recent"]; !recent || len(it.Channels) > 1 {
			continue
		}
		terms := 0.0
		for _, v := range it.Terms {
			terms += v
		}
		if it.Score-terms > 1e-9 {
			t.Errorf("%q, found only as recent, has relevance %.3f (score %.3f, terms %.3f)", it.Content, it.Score-terms, it.Score, terms)
		}
	}
}

// An agent_message without a speaker is the agent's, not the user's: no
// fact about the user is drawn from it.
func TestAgentMessageDefaultsToTheAgent(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	_, err := e.Capture(t.Context(), engine.CaptureParams{Namespace: "ns", Scope: memory.Scope{UserID: "u1"},
		Events: []engine.Event{{Kind: memory.EpisodeAgentMessage, Content: "I live in Lisbon and I work at Initech.", OccurredAt: clk.Now()}}})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := st.ListVersions(t.Context(), memory.ListVersionsParams{Namespace: "ns"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) == 0 {
		t.Fatal("nothing stored")
	}
	for _, v := range vs {
		if v.Subject == engine.DefaultSpeaker {
			t.Errorf("the agent's words were filed under the user: %s %s %q", v.Kind, v.Key, v.Content)
		}
	}
}

// A request to do something reaches the user's standing rules, though it
// shares no word with them.
func TestTaskReachesRules(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-5 * day)
	captureSession(t, e, "ns", "a", start, "shellfish is off the table for me, I can never eat prawns", "the football last night was grim")
	captureSession(t, e, "ns", "b", start.Add(day), "the heating came on early today", "finished the crossword before lunch")
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "order us a takeaway for tonight",
		Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
	rank := func(res *engine.Result) (int, engine.Item) {
		for i, it := range res.Items {
			if strings.Contains(it.Content, "prawns") {
				return i, it
			}
		}
		return -1, engine.Item{}
	}
	i, it := rank(res)
	if i < 0 || i > 1 || it.Terms["task_rule"] <= 0 {
		t.Fatalf("the shellfish rule ranks %d with terms %v; want it in the top 2, lifted by task_rule: %v", i+1, it.Terms, contents(res))
	}
	// A question is no task: the rule gets no lift.
	res = retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "what did I finish before lunch?",
		Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
	if _, it := rank(res); it.Terms["task_rule"] != 0 {
		t.Errorf("a question lifted the rule: %v", it.Terms)
	}
}

// For a question about now, a later turn that names the top turn's person
// goes before it, though it shares no word with the question.
func TestLaterTurnOnTheSamePersonForNow(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-9 * day)
	captureSession(t, e, "ns", "a", start, "Marek runs the Ghent depot, ask him about the loading bays", "the coffee machine is fixed")
	captureSession(t, e, "ns", "b", start.Add(4*day), "Marek is off until May, Ilse is standing in for him", "rainy again")
	for q, want := range map[string]string{
		"who runs the Ghent depot right now?": "Ilse",
		"who runs the Ghent depot?":           "loading bays", // not asked about now: the plain statement
	} {
		res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: q, Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
		if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, want) {
			t.Errorf("%q: top items %v; want %q first", q, contents(res), want)
		}
	}
}

// "what did I … before X?" is answered by a turn said before the one that
// names X, found by meaning though it shares no word with the question.
func TestBeforeAValueFindsTheEarlierTurn(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-60 * day)
	captureSession(t, e, "ns", "a", start, "my old Subaru needs new brakes again, third time this year", "lol")
	captureSession(t, e, "ns", "b", start.Add(20*day), "the crossword was brutal today", "ok thanks")
	captureSession(t, e, "ns", "c", start.Add(40*day), "picked up the Corolla from the dealer, drives like a dream")
	q := "what car did I drive before the Corolla?"
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: q, Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext, IncludeHistory: true})
	if len(res.Items) < 2 || !strings.Contains(res.Items[0].Content, "Subaru") || !strings.Contains(res.Items[1].Content, "Corolla") {
		t.Fatalf("%q: top items %v; want the Subaru turn, then the Corolla one", q, contents(res))
	}
}

// A turn that says what changed names the earlier value itself ("dropped
// Italian, it's French lessons now"): no weaker earlier turn goes above it,
// and the agent's words are never the user's earlier value.
func TestBeforeAValueKeepsTheChangeTurn(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-60 * day)
	captureSession(t, e, "ns", "a", start, "agent: Good dentists are hard to find.", "the crossword was brutal today")
	captureSession(t, e, "ns", "b", start.Add(20*day), "left the Harbour Street dentist, the Elm Road practice has me now")
	q := "which dentist did I go to before Elm Road?"
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: q, Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext, IncludeHistory: true})
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "Harbour Street") {
		t.Fatalf("%q: top items %v; want the change turn first", q, contents(res))
	}
	for _, it := range res.Items {
		if it.Terms["previous"] > 0 {
			t.Errorf("%q was lifted as the earlier value", it.Content)
		}
	}
}

// For a question about the user, the agent's remark that names nothing
// ("Good landlords are rare.") states nothing about the user and goes below
// the user's own turn, though it shares the question's word; an agent turn
// that names the value keeps its place.
func TestAgentRemarkIsNotTheUsersFact(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-10 * day)
	captureSession(t, e, "ns", "a", start, "the landlord sent someone about the boiler at last, Mrs Okonjo from the agency", "agent: Good landlords are rare, a good landlord is worth a lot.")
	for _, q := range []string{"who is my landlord?", "who is our landlord?"} {
		res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: q, Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
		if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "Okonjo") {
			t.Fatalf("%q: top items %v; want the user's turn first", q, contents(res))
		}
	}
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "who is my landlord?", Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
	for _, it := range res.Items {
		if strings.Contains(it.Content, "Good landlords") && it.Terms["agent_remark"] >= 0 {
			t.Errorf("the agent's remark carries no agent_remark term: %v", it.Terms)
		}
	}
}

// "who is my favourite author?" asks for the user's favourite, not a
// sibling's: a turn that opens on the user's sister is someone else's.
func TestWhoQuestionAboutTheUsersThing(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	captureSession(t, e, "ns", "a", clk.Now().Add(-3*day), "my sister reads nothing but Murakami, every single summer")
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "who is my favourite author?", Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
	for _, it := range res.Items {
		if strings.Contains(it.Content, "Murakami") && it.Terms["other_subject"] >= 0 {
			t.Errorf("the sister's reading is not marked as someone else's: %v", it.Terms)
		}
	}
}

// A second hop: the turn the question's words find says where to look,
// and the turn it points at (sharing a word with it, none with the
// question) holds the name. For a question asking where, the named one
// goes first; the first hop follows.
func TestBridgeTakesSecondHop(t *testing.T) {
	t.Parallel()
	noBridge, err := engine.DefaultRanking().Without("bridge")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		ranking engine.Ranking
		first   string
	}{
		{"with the step", engine.DefaultRanking(), "Ingrid"},
		{"without it", noBridge, "spare keys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "mnemon.db"), sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			clk := clock.NewManual(t0)
			e, err := engine.New(engine.Config{Store: st, Clock: clk, Ranking: tc.ranking})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.Close(); st.Close() })
			start := clk.Now().Add(-6 * day)
			captureSession(t, e, "ns", "a", start, "the spare keys for the allotment shed are with the neighbour across the lane")
			captureSession(t, e, "ns", "b", start.Add(day), "ok thanks", "what's a good recipe for leek soup")
			captureSession(t, e, "ns", "c", start.Add(2*day), "our neighbour across the lane is Ingrid at number 14, lovely woman")
			captureSession(t, e, "ns", "d", start.Add(3*day), "the boiler is making that clicking noise again")
			res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "where are the spare keys for the shed?",
				Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
			got := contents(res)
			if len(got) == 0 || !strings.Contains(got[0], tc.first) {
				t.Fatalf("order %q; want %q first", got, tc.first)
			}
			if tc.ranking.Bridge == 0 {
				return
			}
			if len(got) < 2 || !strings.Contains(got[1], "spare keys") {
				t.Errorf("order %q; want the keys turn second", got)
			}
			if _, ok := res.Items[0].Terms["bridge"]; !ok {
				t.Errorf("the second hop has no bridge term: %v", res.Items[0].Terms)
			}
		})
	}
}

// A task is steered by the user's own rules: the agent's advice states no
// rule of the user's, and an earlier request, which shares the task's
// words but states nothing, weighs as much against as a rule weighs for.
func TestTaskRequestPrefersTheUsersRules(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-5 * day)
	captureSession(t, e, "ns", "a", start, "can you sort out a hotel in Porto for the conference?",
		"agent: You should always book flights at least three weeks out.")
	captureSession(t, e, "ns", "b", start.Add(day), "no red-eye flights ever again, I'm useless for two days after one")
	captureSession(t, e, "ns", "c", start.Add(2*day), "the gutters need clearing before the rain starts")
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "book me a flight to Lisbon next month",
		Scope: memory.Scope{UserID: "u1", SessionID: "d"}, Context: engine.NoContext})
	got := contents(res)
	if len(got) == 0 || !strings.Contains(got[0], "red-eye") {
		t.Fatalf("order %q; want the user's rule first", got)
	}
	rule := engine.DefaultRanking().TaskRule
	seen := 0
	for _, it := range res.Items {
		if it.Kind != memory.KindEpisodic {
			continue // the fact drawn from the rule ranks by its own terms
		}
		switch {
		case strings.Contains(it.Content, "three weeks"):
			seen++
			if _, ok := it.Terms["task_rule"]; ok {
				t.Errorf("the agent's advice took task_rule: %v", it.Terms)
			}
		case strings.Contains(it.Content, "can you sort out"):
			seen++
			if q := it.Terms["question"]; q != -rule {
				t.Errorf("the earlier request's question term is %v, want %v", q, -rule)
			}
		case strings.Contains(it.Content, "red-eye"):
			seen++
			if tr := it.Terms["task_rule"]; tr != rule {
				t.Errorf("the user's rule has task_rule %v, want %v", tr, rule)
			}
		}
	}
	if seen != 3 {
		t.Errorf("saw %d of the three turns in %q", seen, got)
	}
}

// A fact whose value a later turn says changed, in lowercase chat with no
// slot the rules read ("finally got rid of teamcity, … on buildkite now"),
// goes below that turn for a question about what holds now.
func TestLaterTurnOvertakesAFact(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-20 * day)
	for i, change := range []string{
		"finally got rid of teamcity, everything runs on buildkite now",
		"we ripped out teamcity last sprint, buildkite does the builds",
		"scrapped teamcity over the holidays, buildkite handles it",
	} {
		ns := fmt.Sprintf("ns%d", i)
		captureSession(t, e, ns, "a", start, "we're still on teamcity for the build pipeline, it's painfully slow", "the standup ran long")
		captureSession(t, e, ns, "b", start.Add(10*day), change, "lunch was good")
		facts, err := e.Facts(context.Background(), engine.FactsParams{Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range facts {
			t.Logf("%s: fact %s %s=%s %q", ns, f.Subject, f.Key, f.Value, f.Content)
		}
		for _, q := range []string{"what do we use for the build pipeline?", "what CI do we use now?"} {
			res := retrieve(t, e, engine.RetrieveParams{Namespace: ns, Query: q, Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
			if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "buildkite") {
				t.Errorf("after %q, %q: top items %v; want buildkite first", change, q, contents(res))
			}
		}
	}
}

// Statements remembered as said (notes, no rule read them) follow each
// other as turns do: the later one that says the value changed goes first.
func TestLaterNoteOvertakesANote(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-30 * day)
	for i, text := range []string{"my daily driver is a Golf.", "the office plants need water", "sold the golf, I bike everywhere now"} {
		if _, err := e.Remember(context.Background(), engine.RememberParams{Namespace: "ns", Scope: memory.Scope{UserID: "u1"},
			Text: text, ObservedAt: start.Add(time.Duration(i) * 5 * day)}); err != nil {
			t.Fatal(err)
		}
	}
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "what car do I drive?", Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "sold the golf") {
		t.Fatalf("top items %v; want the later note first", contents(res))
	}
}

// A rule remembered as a fact binds a task as the turn that said it does,
// and a task asks for no value, so a turn that says something changed
// gets no lift for it.
func TestTaskReachesRuleFacts(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-10 * day)
	// The rule as a structured fact, as an agent stores one.
	if _, err := e.Remember(context.Background(), engine.RememberParams{Namespace: "ns", Scope: memory.Scope{UserID: "u1"},
		Text: "peanuts are a hard no for me", Type: memory.TypeConstraint, Subject: "user", Key: "constraint:peanuts",
		Value: "no peanuts", ObservedAt: start}); err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"the quarterly report went out on time", "the printer on floor two is jammed again",
		"moved my standup to 9:30 now", "the new intern starts monday"} {
		if _, err := e.Remember(context.Background(), engine.RememberParams{Namespace: "ns", Scope: memory.Scope{UserID: "u1"},
			Text: text, ObservedAt: start.Add(time.Duration(i+1) * day)}); err != nil {
			t.Fatal(err)
		}
	}
	captureSession(t, e, "ns", "a", start.Add(6*day), "switched to oat milk in my coffee now", "the weather turned")
	facts, err := e.Facts(context.Background(), engine.FactsParams{Namespace: "ns"})
	if err != nil {
		t.Fatal(err)
	}
	var rule string
	for _, f := range facts {
		if f.Type == memory.TypeConstraint {
			rule = f.Content
		}
	}
	if rule == "" {
		t.Fatalf("no constraint stored from the peanut rule: %v", facts)
	}
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "order us some snacks for the offsite",
		Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
	found := false
	for i, it := range res.Items {
		if it.Content == rule {
			found = true
			if i > 1 || it.Terms["task_rule"] <= 0 {
				t.Errorf("the rule ranks %d with terms %v; want the top 2, lifted by task_rule: %v", i+1, it.Terms, contents(res))
			}
		}
		if it.Terms["change"] != 0 {
			t.Errorf("%q lifted as a change for a task: %v", it.Content, it.Terms)
		}
	}
	if !found {
		t.Errorf("the rule %q is not served for the task: %v", rule, contents(res))
	}
}

// With history served, a turn whose fact was superseded is still stale for
// a question about now: the change that replaced it goes first, as without
// history; a question about before still gets the value before.
func TestHistoryKeepsStaleTurnsDown(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-30 * day)
	for i, text := range []string{"I use nano for everything.", "I use kakoune now.", "honestly, switched to zed these days, kakoune was too much"} {
		if _, err := e.Remember(context.Background(), engine.RememberParams{Namespace: "ns", Scope: memory.Scope{UserID: "u1"},
			Text: text, ObservedAt: start.Add(time.Duration(i) * 5 * day)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		query   string
		history bool
		want    string
	}{
		{"what editor do I use?", false, "zed"},
		{"what editor do I use?", true, "zed"},
		{"which editor did I use before?", true, "kakoune"},
	} {
		res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: c.query, IncludeHistory: c.history,
			Scope: memory.Scope{UserID: "u1"}, Context: engine.NoContext})
		if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, c.want) {
			t.Errorf("%q (history %v): top items %v; want %q first", c.query, c.history, contents(res), c.want)
		}
	}
}

// What holds now, asked and told in everyday words: the words that say a
// question is about now are no topic ("these days" finds no "long day"), a
// sign-up or a "scratch that" is a change, and a question about one of the
// user's people follows a later change to them as one about the user does.
func TestNowInEverydayWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		sessions [][]string
		query    string
		want     string // in the first item
	}{
		{
			name: "these days is no topic",
			sessions: [][]string{
				{"what a day, the train sat outside the station for forty minutes", "I swim at the lido before work, three mornings a week"},
			},
			query: "how do I keep fit these days?",
			want:  "lido",
		},
		{
			name: "a sign-up is a change",
			sessions: [][]string{
				{"been doing pilates at the community hall on tuesdays"},
				{"pilates wasn't for me tbh, signed up for a rowing club on the river"},
			},
			query: "what do I do to keep fit at the moment?",
			want:  "rowing",
		},
		{
			name: "scratch that is a change",
			sessions: [][]string{
				{"thinking we do the anniversary dinner at Luca's on the 14th"},
				{"scratch Luca's, booked the tasting menu at Marrow instead"},
			},
			query: "where am I having the anniversary dinner?",
			want:  "Marrow",
		},
		{
			name: "the user's people change too",
			sessions: [][]string{
				{"my brother Tomasz is flying in from Gdansk on the 3rd"},
				{"Tomasz pushed his flight, landing on the 10th now"},
			},
			query: "when does my brother get here?",
			want:  "10th",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, clk, _ := newEngine(t)
			start := clk.Now().Add(-10 * day)
			for i, texts := range tt.sessions {
				captureSession(t, e, "ns", fmt.Sprintf("s%d", i), start.Add(time.Duration(i)*2*day), texts...)
			}
			res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: tt.query,
				Scope: memory.Scope{UserID: "u1", SessionID: "later"}, Context: engine.NoContext})
			if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, tt.want) {
				var why []string
				for _, it := range res.Items {
					why = append(why, it.Content+" | "+it.Explanation)
				}
				t.Fatalf("%q: want %q first, got:\n%s", tt.query, tt.want, strings.Join(why, "\n"))
			}
		})
	}
}

// A reaction padded with particles is still small talk: "ok that's
// actually super clear, thanks" says no more than "clear", and must not
// outrank the answer for a question it shares only an adverb with.
func TestParticlesAreNoContent(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	start := clk.Now().Add(-6 * day)
	captureSession(t, e, "ns", "a", start, "can you explain how a heat pump works?", "agent: It moves heat from outside in rather than making it.", "ok that's actually super clear, thanks")
	captureSession(t, e, "ns", "b", start.Add(day), "been devouring Octavia Butler lately, finished Kindred in two nights")
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "which author am I really into?",
		Scope: memory.Scope{UserID: "u1", SessionID: "c"}, Context: engine.NoContext})
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, "Butler") {
		t.Fatalf("want the Butler turn first, got %v", contents(res))
	}
}
