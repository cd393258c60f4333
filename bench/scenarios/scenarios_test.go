package scenarios

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/engine/enginetest"
	"github.com/mnemon-dev/mnemon/memory"
)

// The embedded suite loads and validates: every category is present,
// every question is answerable in principle, at least 150 in all.
func TestSuiteLoadsAndValidates(t *testing.T) {
	scs, err := Suite()
	if err != nil {
		t.Fatal(err)
	}
	n := CountByCategory(scs)
	total := 0
	for _, c := range Categories() {
		if n[c] < 10 {
			t.Errorf("category %s has %d questions; want at least 10", c, n[c])
		}
		total += n[c]
	}
	if len(n) != len(Categories()) {
		t.Errorf("questions in unknown categories: %v", n)
	}
	if total < 150 {
		t.Errorf("%d questions; want at least 150", total)
	}
	for _, s := range scs {
		for _, q := range s.Questions {
			if s.CategoryOf(q) != NeverStated && len(q.Answer) == 0 {
				t.Errorf("%s %q: no answer", s.ID, q.Text)
			}
		}
	}
}

func TestValidateRejects(t *testing.T) {
	ok := func() Scenario {
		return Scenario{ID: "a", Category: Updates,
			Sessions:  []Session{{ID: "s1", Turns: []Turn{{Speaker: "user", Text: "I moved to Ostend"}}}},
			Questions: []Question{{Text: "where do I live?", Answer: []string{"Ostend"}}}}
	}
	if err := Validate([]Scenario{ok()}); err != nil {
		t.Fatalf("a valid scenario: %v", err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*Scenario)
		want   string
	}{
		{"bad id", func(s *Scenario) { s.ID = "A B" }, "id"},
		{"unknown category", func(s *Scenario) { s.Category = "gossip" }, `category "gossip"`},
		{"unknown question category", func(s *Scenario) { s.Questions[0].Category = "gossip" }, `category "gossip"`},
		{"no sessions", func(s *Scenario) { s.Sessions = nil }, "no sessions"},
		{"no questions", func(s *Scenario) { s.Questions = nil }, "no questions"},
		{"empty turn", func(s *Scenario) { s.Sessions[0].Turns[0].Text = " " }, "needs a speaker and text"},
		{"days backwards", func(s *Scenario) {
			s.Sessions = append(s.Sessions, Session{ID: "s0", Day: -1, Turns: s.Sessions[0].Turns})
		}, "before the previous"},
		{"session id twice", func(s *Scenario) { s.Sessions = append(s.Sessions, s.Sessions[0]) }, "its own id"},
		{"no answer", func(s *Scenario) { s.Questions[0].Answer = nil }, "no answer"},
		{"answer never said", func(s *Scenario) { s.Questions[0].Answer = []string{"Bruges"} }, `"Bruges" is said in no turn`},
		{"answer only inside a word", func(s *Scenario) { s.Questions[0].Answer = []string{"Osten"} }, "said in no turn"},
		{"never-stated with an answer", func(s *Scenario) { s.Questions[0].Category = NeverStated }, "has no answer, only wrong values"},
		{"never-stated without wrong values", func(s *Scenario) {
			s.Questions[0].Category, s.Questions[0].Answer = NeverStated, nil
		}, "needs the planted wrong values"},
		{"expect_facts without a value", func(s *Scenario) {
			s.ExpectFacts = []ExpectFact{{Subject: "user", Key: "lives_in"}}
		}, "either value or absent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ok()
			tc.mutate(&s)
			err := Validate([]Scenario{s})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v; want an error with %q", err, tc.want)
			}
		})
	}
	if err := Validate([]Scenario{ok(), ok()}); err == nil || !strings.Contains(err.Error(), "used twice") {
		t.Fatalf("duplicate ids: %v", err)
	}
}

func TestContains(t *testing.T) {
	for _, tc := range []struct {
		text, phrase string
		want         bool
	}{
		{"I'm on a borrowed Gazelle", "gazelle", true},
		{"Karima is in legal", "Karim", false},
		{"and Karim is my manager", "Karim", true},
		{"it's on thursdays now", "Thursday", false},
		{"paste it into Sublime Text", "Sublime", true},
		{"St Columba’s on tuesday", "St Columba's", true},
		{"I'm in C# all day", "C#", true},
		{"leaves at 7:50", "7:5", false},
		{"anything", "", false},
	} {
		if got := Contains(tc.text, tc.phrase); got != tc.want {
			t.Errorf("Contains(%q, %q) = %v; want %v", tc.text, tc.phrase, got, tc.want)
		}
	}
}

// Score on hand-built rankings.
func TestScore(t *testing.T) {
	ep := func(s string) engine.Item { return engine.Item{Kind: memory.KindEpisodic, Content: s} }
	fact := func(s, v string) engine.Item { return engine.Item{Kind: memory.KindSemantic, Content: s, Value: v} }
	q := Question{Text: "where do I work?", Answer: []string{"Tidewell"}, Wrong: []string{"Larkspur"}}
	for _, tc := range []struct {
		name  string
		items []engine.Item
		want  Result
	}{
		{"fact first", []engine.Item{fact("The user works at Tidewell.", "Tidewell"), ep("Larkspur")},
			Result{Hit1: true, Hit5: true, AsFact: true}},
		{"the change itself first: names both, not wrong", []engine.Item{ep("last shift at Larkspur, now Tidewell")},
			Result{Hit1: true, Hit5: true}},
		{"stale value first, answer third", []engine.Item{ep("loading trailers at Larkspur"), ep("ok"), ep("dispatch at Tidewell")},
			Result{Hit5: true, WrongFirst: true}},
		{"answer sixth is no hit", []engine.Item{ep("a"), ep("b"), ep("c"), ep("d"), ep("e"), ep("Tidewell")},
			Result{}},
		{"first hit decides held-as-fact", []engine.Item{ep("x"), ep("Tidewell it is"), fact("The user works at Tidewell.", "Tidewell")},
			Result{Hit5: true}},
		{"value only in the fact's value", []engine.Item{fact("The user's employer changed.", "Tidewell")},
			Result{Hit1: true, Hit5: true, AsFact: true}},
		{"a note is not a fact", []engine.Item{{Kind: memory.KindSemantic, Key: "note:dispatch_at_tidewell", Content: "dispatch at Tidewell"}},
			Result{Hit1: true, Hit5: true}},
		{"nothing retrieved", nil, Result{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Score(tc.items, q)
			if r.Hit1 != tc.want.Hit1 || r.Hit5 != tc.want.Hit5 || r.AsFact != tc.want.AsFact || r.WrongFirst != tc.want.WrongFirst {
				t.Fatalf("got hit1=%v hit5=%v fact=%v wrong=%v; want %+v", r.Hit1, r.Hit5, r.AsFact, r.WrongFirst, tc.want)
			}
			if len(r.Top) != min(3, len(tc.items)) {
				t.Fatalf("top: %d items", len(r.Top))
			}
		})
	}
	ns := Question{Text: "what's my sister's name?", Wrong: []string{"Vesna"}}
	if r := Score([]engine.Item{ep("Petra's sister Vesna")}, ns); !r.WrongFirst || r.WrongFirstFact || !r.Miss() {
		t.Fatalf("never-stated, planted value first: %+v", r)
	}
	if r := Score([]engine.Item{fact("Petra's sister is Vesna.", "Vesna")}, ns); !r.WrongFirst || !r.WrongFirstFact {
		t.Fatalf("never-stated, planted value first in a fact: %+v", r)
	}
	if r := Score([]engine.Item{ep("nothing"), ep("Vesna")}, ns); r.WrongFirst || r.Miss() {
		t.Fatalf("never-stated, planted value second: %+v", r)
	}
}

// tally on hand-built results: the numbers are checked by hand.
func TestTally(t *testing.T) {
	rep := &Report{Results: []Result{
		{Category: Updates, Answer: []string{"a"}, Hit1: true, Hit5: true, AsFact: true},
		{Category: Updates, Answer: []string{"a"}, Hit5: true, WrongFirst: true},
		{Category: Updates, Answer: []string{"a"}},
		{Category: Updates, Answer: []string{"a"}, Hit1: true, Hit5: true},
		{Category: Tasks, Answer: []string{"a"}, Hit5: true},
		{Category: NeverStated, Wrong: []string{"w"}, WrongFirst: true},
		{Category: NeverStated, Wrong: []string{"w"}, WrongFirst: true, WrongFirstFact: true},
		{Category: NeverStated, Wrong: []string{"w"}},
	}, Facts: []Fact{{Flag: "value is a filler word"}, {}, {Flag: "expected x"}}}
	rep.tally()
	if len(rep.Categories) != 2 || rep.Categories[0].Name != Updates || rep.Categories[1].Name != Tasks {
		t.Fatalf("categories: %+v", rep.Categories)
	}
	u := rep.Categories[0]
	if u.Questions != 4 || u.Hits1 != 2 || u.Hits5 != 3 || u.Hit1 != 0.5 || u.Hit5 != 0.75 || u.AsFacts != 1 || u.AsFactShare != 0.25 || u.WrongFirst != 1 {
		t.Fatalf("updates: %+v", u)
	}
	o := rep.Overall
	if o.Questions != 5 || o.Hit1 != 0.4 || o.Hit5 != 0.8 || o.AsFactShare != 0.2 || o.WrongFirst != 1 {
		t.Fatalf("overall: %+v", o)
	}
	if rep.NeverStated != (NeverStatedScore{Questions: 3, Violations: 2, ByFact: 1}) {
		t.Fatalf("never-stated: %+v", rep.NeverStated)
	}
	if rep.FactsFlagged != 2 {
		t.Fatalf("flagged: %d", rep.FactsFlagged)
	}
}

func TestFlag(t *testing.T) {
	s := &Scenario{ExpectFacts: []ExpectFact{
		{Subject: "user", Key: "likes", Value: "Paris, Texas"},
		{Subject: "noor", Key: "works_at", Absent: true},
	}}
	for _, tc := range []struct {
		v    memory.Version
		want string
	}{
		{memory.Version{Subject: "user", Key: "works_at", Value: "finally", Status: memory.StatusActive}, "value is a filler word"},
		{memory.Version{Subject: "user", Key: "likes:paris", Value: "Paris", Status: memory.StatusActive}, `expected user likes "Paris, Texas"`},
		{memory.Version{Subject: "user", Key: "likes:paris_texas", Value: "Paris, Texas", Status: memory.StatusActive}, ""},
		{memory.Version{Subject: "user", Key: "likes:paris", Value: "Paris", Status: memory.StatusSuperseded}, ""},
		{memory.Version{Subject: "user", Key: "likesx", Value: "Paris", Status: memory.StatusActive}, ""},
		{memory.Version{Subject: "noor", Key: "works_at", Value: "Hillcrest", Status: memory.StatusActive}, "expected no noor works_at fact"},
	} {
		if got := flag(s, &tc.v); got != tc.want {
			t.Errorf("%s %s %q: flag %q; want %q", tc.v.Subject, tc.v.Key, tc.v.Value, got, tc.want)
		}
	}
}

func openEngine(t *testing.T) *engine.Engine { return enginetest.Temp(t) }

// checkConsistent checks a report against its own results: every number
// the report shows is recomputed from the questions' outcomes, and each
// outcome agrees with the items it lists.
func checkConsistent(t *testing.T, scs []Scenario, rep *Report) {
	t.Helper()
	want := CountByCategory(scs)
	got := map[string]int{}
	for _, r := range rep.Results {
		got[r.Category]++
		if r.Hit1 && !r.Hit5 || r.Hit1 && r.WrongFirst {
			t.Errorf("%s %q: impossible outcome %+v", r.Scenario, r.Question, r)
		}
		if len(r.Top) > 0 {
			first := r.Top[0].Content
			if r.Hit1 != (len(r.Answer) > 0 && containsAny(first, r.Answer)) && r.Top[0].Kind == memory.KindEpisodic {
				t.Errorf("%s %q: hit@1 %v but the first item is %q", r.Scenario, r.Question, r.Hit1, first)
			}
		} else if r.Hit5 {
			t.Errorf("%s %q: a hit with nothing retrieved", r.Scenario, r.Question)
		}
	}
	for c, n := range want {
		if got[c] != n {
			t.Errorf("category %s: %d results for %d questions", c, got[c], n)
		}
	}
	copyRep := *rep
	copyRep.tally()
	if copyRep.Overall != rep.Overall || copyRep.NeverStated != rep.NeverStated {
		t.Errorf("the report's totals differ from its results")
	}
	for _, f := range rep.Facts {
		if f.Scenario == "" || f.Key == "" {
			t.Errorf("fact without scenario or key: %+v", f)
		}
	}
}

// The runner on the hand-checked fixture, through the engine's capture
// path and a real SQLite file.
func TestRunFixture(t *testing.T) {
	t.Parallel()
	scs, err := Load(filepath.Join("testdata", "fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	eng := openEngine(t)
	rep, err := Run(context.Background(), eng, scs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scenarios != 2 || rep.Sessions != 3 || rep.Turns != 4 || rep.Questions != 4 || len(rep.Results) != 4 {
		t.Fatalf("counts: %+v", rep)
	}
	checkConsistent(t, scs, rep)
	// The one-turn scenario holds one turn and no fact: whatever is
	// retrieved is that turn, which states the answer and the planted
	// value alike.
	one := rep.Results[0]
	if one.Scenario != "fixture-one-turn" || !one.Hit1 || !one.Hit5 || len(one.Top) == 0 {
		t.Fatalf("one-turn question: %+v", one)
	}
	if rep.NeverStated != (NeverStatedScore{Questions: 1, Violations: 1}) {
		t.Fatalf("never-stated: %+v", rep.NeverStated)
	}
	if rep.Categories[0].Name != Updates || rep.Categories[0].Questions != 1 {
		t.Fatalf("categories in report order: %+v", rep.Categories)
	}
	// Each scenario has its own namespace, captured per session with
	// its session id.
	for _, s := range scs {
		ok, err := eng.HasNamespace(context.Background(), Namespace(s.ID))
		if err != nil || !ok {
			t.Fatalf("namespace of %s: %v %v", s.ID, ok, err)
		}
	}
	var b strings.Builder
	rep.Markdown(&b, MarkdownOptions{Misses: true, Facts: true})
	for _, want := range []string{"| **overall** | 3 |", "Never-stated questions: 1; a planted wrong value ranked first on 1 (0 of them a fact", "### Misses", "### Facts written"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
}

// The fast subset: the first scenario of each category of the real
// suite, run end to end. It asserts the runner, not the engine's scores.
func TestRunSuiteSubset(t *testing.T) {
	t.Parallel()
	all, err := Suite()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var scs []Scenario
	for _, s := range all {
		if !seen[s.Category] {
			seen[s.Category] = true
			scs = append(scs, s)
		}
	}
	rep := runWithFiller(t, scs)
	if rep.Scenarios != len(Categories()) || rep.NeverStated.Questions == 0 {
		t.Fatalf("subset: %d scenarios, %+v", rep.Scenarios, rep.NeverStated)
	}
	if rep.FillerSessions != DefaultFiller*len(scs) || rep.FillerTurns < rep.FillerSessions*2 {
		t.Fatalf("filler: %d sessions, %d turns", rep.FillerSessions, rep.FillerTurns)
	}
	checkConsistent(t, scs, rep)

	if _, err := Run(context.Background(), openEngine(t), scs[:1], Options{Limit: 3}); err == nil {
		t.Fatal("a limit below 5 cannot score hit@5 and must be refused")
	}
}

func TestFilter(t *testing.T) {
	scs, err := Suite()
	if err != nil {
		t.Fatal(err)
	}
	hist := Filter(scs, History)
	n := CountByCategory(hist)
	if len(n) != 1 || n[History] != CountByCategory(scs)[History] {
		t.Fatalf("filter history: %v", n)
	}
	if len(Filter(scs, "")) != len(scs) || len(Filter(scs, "nope")) != 0 {
		t.Fatal("filter: empty keeps all, unknown keeps none")
	}
}

// Filler sessions are picked deterministically, never one saying an
// answer or a planted value, and spread over the scenario's days (over a
// week after a one-day scenario).
func TestFillerFor(t *testing.T) {
	pool := []Session{
		{ID: "a", Turns: []Turn{{Speaker: "user", Text: "nice weather"}}},
		{ID: "b", Turns: []Turn{{Speaker: "user", Text: "I love Ostend in spring"}}},
		{ID: "c", Turns: []Turn{{Speaker: "user", Text: "what's for lunch"}}},
		{ID: "d", Turns: []Turn{{Speaker: "user", Text: "the Bruges train was late"}}},
	}
	s := &Scenario{ID: "x", Sessions: []Session{{ID: "s1", Day: 0}},
		Questions: []Question{{Answer: []string{"Ostend"}}, {Wrong: []string{"Bruges"}}}}
	got := fillerFor(s, pool, 4)
	if len(got) != 2 {
		t.Fatalf("picked %d sessions; want the 2 that say neither Ostend nor Bruges: %+v", len(got), got)
	}
	for _, f := range got {
		if f.ID != "filler-a" && f.ID != "filler-c" {
			t.Fatalf("picked %s", f.ID)
		}
	}
	if got[0].Day != 2 || got[1].Day != 4 {
		t.Fatalf("days %g, %g; want 2 and 4 (a week spread over 3)", got[0].Day, got[1].Day)
	}
	again := fillerFor(s, pool, 4)
	if again[0].ID != got[0].ID || again[1].ID != got[1].ID {
		t.Fatal("the pick is not deterministic")
	}
	if fillerFor(s, nil, 4) != nil || fillerFor(s, pool, 0) != nil {
		t.Fatal("no pool or no count: no filler")
	}
	if pool[0].ID != "a" || pool[0].Day != 0 {
		t.Fatal("fillerFor changed the pool")
	}
}

// The whole suite keeps what the engine has reached: a ranking or
// extraction change that loses answers fails here, not weeks later in a
// benchmark nobody ran. The floors sit just under the numbers recorded in
// docs/benchmarks/scenarios.md; raise them with the numbers when a change
// lifts them.
func TestSuiteFloor(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole suite")
	}
	t.Parallel()
	scs, err := Suite()
	if err != nil {
		t.Fatal(err)
	}
	rep := runWithFiller(t, scs)
	const hit1, hit5, neverStated = 0.765, 0.95, 3
	if o := rep.Overall; o.Hit1 < hit1 || o.Hit5 < hit5 || rep.NeverStated.Violations > neverStated {
		t.Errorf("overall hit@1 %.3f (floor %.2f), hit@5 %.3f (floor %.2f), never-stated violations %d (at most %d)",
			o.Hit1, hit1, o.Hit5, hit5, rep.NeverStated.Violations, neverStated)
		for _, r := range rep.Results {
			if r.Miss() {
				t.Logf("miss: [%s] %s %q", r.Category, r.Scenario, r.Question)
			}
		}
	}
}

// runWithFiller runs scs on a fresh engine with the small-talk pool mixed
// in, as mnemon bench scenarios does.
func runWithFiller(t *testing.T, scs []Scenario) *Report {
	t.Helper()
	filler, err := Filler()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), openEngine(t), scs, Options{Filler: filler})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
