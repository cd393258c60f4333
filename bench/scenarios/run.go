package scenarios

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/bench"
	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

// DefaultLimit is how many items each question retrieves: hit@5 needs five.
const DefaultLimit = 5

// Options tune a run.
type Options struct {
	Limit    int       // items per retrieval, at least 5; 0: DefaultLimit
	Progress io.Writer // where progress is drawn; nil: nowhere
	// Now is when the questions are asked; sessions lie days before it.
	// Zero: the time Run starts.
	Now time.Time
	// Filler is the pool of small-talk sessions mixed into each scenario
	// (see Filler and fillerFor); nil: none.
	Filler []Session
	// FillerPerScenario is how many filler sessions each scenario gets;
	// 0: DefaultFiller.
	FillerPerScenario int
}

// DefaultFiller is how many small-talk sessions each scenario gets.
const DefaultFiller = 4

// Report is the outcome of a run.
type Report struct {
	Scenarios int `json:"scenarios"`
	Sessions  int `json:"sessions"`
	Turns     int `json:"turns"`
	// FillerSessions and FillerTurns are the small talk mixed in.
	FillerSessions int `json:"filler_sessions"`
	FillerTurns    int `json:"filler_turns"`
	Questions      int `json:"questions"`
	// Categories are scored in Categories() order; never-stated
	// questions have no answer, so they count only in NeverStated.
	Categories  []CategoryScore  `json:"categories"`
	Overall     CategoryScore    `json:"overall"`
	NeverStated NeverStatedScore `json:"never_stated"`
	// Facts are every fact (semantic or procedural memory, any status)
	// the extractor wrote, for a person to audit.
	Facts        []Fact        `json:"facts"`
	FactsFlagged int           `json:"facts_flagged"`
	LatencyP50Ms float64       `json:"latency_p50_ms"`
	LatencyP95Ms float64       `json:"latency_p95_ms"`
	Results      []Result      `json:"results"`
	Took         time.Duration `json:"took_ns"`
}

// CategoryScore is one category's (or all answerable questions') scores.
type CategoryScore struct {
	Name      string  `json:"name"`
	Questions int     `json:"questions"`
	Hits1     int     `json:"hits_at_1"`
	Hits5     int     `json:"hits_at_5"`
	Hit1      float64 `json:"hit_at_1"`
	Hit5      float64 `json:"hit_at_5"`
	// AsFacts counts the questions whose first item stating the answer
	// (in the top five) is a fact rather than an episode or note.
	AsFacts     int     `json:"answers_as_facts"`
	AsFactShare float64 `json:"answers_as_facts_share"`
	// WrongFirst counts questions whose first item holds a value the
	// question lists as wrong (a stale or someone else's value) and not
	// the answer.
	WrongFirst int `json:"wrong_first"`
}

// NeverStatedScore counts never-stated questions whose first item holds
// a planted wrong value.
type NeverStatedScore struct {
	Questions  int `json:"questions"`
	Violations int `json:"violations"`
	// ByFact counts the violations whose first item is a fact (an
	// extracted claim about the wrong person, say) rather than a turn
	// that names the value.
	ByFact int `json:"violations_by_fact"`
}

// Fact is one fact written, as the audit shows it.
type Fact struct {
	Scenario string        `json:"scenario"`
	Subject  string        `json:"subject"`
	Key      string        `json:"key"`
	Value    string        `json:"value"`
	Status   memory.Status `json:"status"`
	Content  string        `json:"content"`
	// Flag says why the fact looks wrong: its value is a filler word, or
	// it contradicts the scenario's expect_facts. Empty: not flagged
	// (which is not the same as checked right).
	Flag string `json:"flag,omitempty"`
}

// Result is one question's outcome.
type Result struct {
	Scenario   string   `json:"scenario"`
	Category   string   `json:"category"`
	Question   string   `json:"question"`
	Answer     []string `json:"answer,omitempty"`
	Wrong      []string `json:"wrong,omitempty"`
	Hit1       bool     `json:"hit_at_1"`
	Hit5       bool     `json:"hit_at_5"`
	AsFact     bool     `json:"answer_as_fact"`
	WrongFirst bool     `json:"wrong_first"`
	// WrongFirstFact says the wrong first item is a fact.
	WrongFirstFact bool    `json:"wrong_first_fact,omitempty"`
	Top            []Top   `json:"top"` // the first three items
	LatencyMs      float64 `json:"latency_ms"`
}

// Miss reports whether the result is worth showing a person: the answer
// is not first, or a wrong value is.
func (r Result) Miss() bool { return r.WrongFirst || len(r.Answer) > 0 && !r.Hit1 }

// Top is one retrieved item, shortened.
type Top struct {
	Kind    memory.Kind   `json:"kind"`
	Status  memory.Status `json:"status"`
	Content string        `json:"content"`
}

// Namespace is where a scenario is stored: one namespace each.
func Namespace(id string) string { return "scenario-" + id }

// QuestionSession is the session a scenario's questions are asked from: a
// later conversation than any captured.
func QuestionSession(id string) string { return id + "-questions" }

// Run ingests each scenario into its own namespace of eng through the
// capture path (one capture per session, with its session id, as an agent
// does), asks every question with engine.Retrieve from a later session,
// and scores the answers. Questions run one at a time, so latencies are of
// one retrieval on an otherwise idle process.
func Run(ctx context.Context, eng *engine.Engine, scs []Scenario, opt Options) (*Report, error) {
	began := time.Now()
	limit := opt.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	if limit < 5 || limit > engine.MaxLimit {
		return nil, fmt.Errorf("limit %d: use 5 to %d", limit, engine.MaxLimit)
	}
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	rep := &Report{Scenarios: len(scs)}
	for _, s := range scs {
		rep.Sessions += len(s.Sessions)
		for _, ss := range s.Sessions {
			rep.Turns += len(ss.Turns)
		}
		rep.Questions += len(s.Questions)
	}
	perScenario := opt.FillerPerScenario
	if perScenario == 0 {
		perScenario = DefaultFiller
	}
	prog := bench.NewProgress(opt.Progress, "scenarios", rep.Questions)
	var lat []time.Duration
	for i := range scs {
		s := &scs[i]
		filler := fillerFor(s, opt.Filler, perScenario)
		for _, f := range filler {
			rep.FillerSessions++
			rep.FillerTurns += len(f.Turns)
		}
		if err := ingest(ctx, eng, s, filler, now); err != nil {
			return nil, err
		}
		facts, err := auditFacts(ctx, eng, s)
		if err != nil {
			return nil, err
		}
		rep.Facts = append(rep.Facts, facts...)
		for _, q := range s.Questions {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t0 := time.Now()
			res, err := eng.Retrieve(ctx, engine.RetrieveParams{
				Namespace: Namespace(s.ID), Query: q.Text, Limit: limit, TokenBudget: engine.MaxTokenBudget,
				Scope:          memory.Scope{UserID: s.User, AgentID: s.Agent, SessionID: QuestionSession(s.ID)},
				IncludeHistory: q.History,
			})
			d := time.Since(t0)
			if err != nil {
				return nil, fmt.Errorf("scenario %s: %q: %w", s.ID, q.Text, err)
			}
			lat = append(lat, d)
			r := Score(res.Items, q)
			r.Scenario, r.Category, r.Question = s.ID, s.CategoryOf(q), q.Text
			r.LatencyMs = float64(d) / float64(time.Millisecond)
			rep.Results = append(rep.Results, r)
			prog.Add(1)
		}
	}
	prog.Done()
	rep.tally()
	ms := bench.Millis(lat)
	rep.LatencyP50Ms, rep.LatencyP95Ms = bench.Percentile(ms, 50), bench.Percentile(ms, 95)
	rep.Took = time.Since(began).Round(time.Millisecond)
	return rep, nil
}

// fillerFor picks n filler sessions for s from pool: consecutive ones
// from a place fixed by the scenario's id, skipping any that says one of
// the scenario's answers or planted values (it would score as a hit). They
// are spread evenly over the scenario's days, or over the week after a
// scenario of one day, so the scenario's own turns are not all the newest.
func fillerFor(s *Scenario, pool []Session, n int) []Session {
	if len(pool) == 0 || n <= 0 {
		return nil
	}
	var phrases []string
	for _, q := range s.Questions {
		phrases = append(phrases, q.Answer...)
		phrases = append(phrases, q.Wrong...)
	}
	h := fnv.New32a()
	h.Write([]byte(s.ID))
	start := int(h.Sum32() % uint32(len(pool)))
	var out []Session
	for i := 0; i < len(pool) && len(out) < n; i++ {
		f := pool[(start+i)%len(pool)]
		clash := false
		for _, t := range f.Turns {
			clash = clash || containsAny(t.Text, phrases)
		}
		if !clash {
			out = append(out, f)
		}
	}
	span := max(s.Sessions[len(s.Sessions)-1].Day, 6)
	for k := range out {
		out[k].ID = "filler-" + out[k].ID
		out[k].Day = span * float64(k+1) / float64(len(out)+1)
	}
	return out
}

// ingest captures each session of s, with its filler sessions, in day
// order: the sessions lie before now, the last a day before it, and a
// session's turns are a minute apart.
func ingest(ctx context.Context, eng *engine.Engine, s *Scenario, filler []Session, now time.Time) error {
	sessions := append(slices.Clone(s.Sessions), filler...)
	slices.SortStableFunc(sessions, func(a, b Session) int { return cmp.Compare(a.Day, b.Day) })
	last := sessions[len(sessions)-1].Day
	start := now.Add(-time.Duration((last + 1) * float64(24*time.Hour)))
	for _, ss := range sessions {
		at := start.Add(time.Duration(ss.Day * float64(24*time.Hour)))
		evs := make([]engine.Event, len(ss.Turns))
		for j, t := range ss.Turns {
			kind := memory.EpisodeUserMessage
			if isAgent(t.Speaker) {
				kind = memory.EpisodeAgentMessage
			}
			evs[j] = engine.Event{Kind: kind, Content: t.Text, Speaker: t.Speaker, OccurredAt: at.Add(time.Duration(j) * time.Minute)}
		}
		_, err := eng.Capture(ctx, engine.CaptureParams{
			Namespace: Namespace(s.ID), Events: evs,
			Scope: memory.Scope{UserID: s.User, AgentID: s.Agent, SessionID: s.ID + "-" + ss.ID},
		})
		if err != nil {
			return fmt.Errorf("scenario %s session %s: %w", s.ID, ss.ID, err)
		}
	}
	return nil
}

func isAgent(speaker string) bool {
	switch strings.ToLower(speaker) {
	case "assistant", "agent":
		return true
	}
	return false
}

// Score scores one question against the items retrieved, best first.
func Score(items []engine.Item, q Question) Result {
	r := Result{Answer: q.Answer, Wrong: q.Wrong}
	for i, it := range items {
		if i >= 5 {
			break
		}
		if containsAny(itemText(it), q.Answer) {
			if i == 0 {
				r.Hit1 = true
			}
			if !r.Hit5 {
				r.Hit5 = true
				r.AsFact = isFact(it)
			}
		}
	}
	// A first item that states a wrong value is wrong unless it states
	// the answer too (the turn announcing a change names both).
	if len(items) > 0 && containsAny(itemText(items[0]), q.Wrong) && !r.Hit1 {
		r.WrongFirst = true
		r.WrongFirstFact = isFact(items[0])
	}
	for i := 0; i < len(items) && i < 3; i++ {
		r.Top = append(r.Top, Top{Kind: items[i].Kind, Status: items[i].Status, Content: items[i].Content})
	}
	return r
}

// isFact reports whether an item is a fact the extractor distilled: not
// an episode, a note (a statement kept under its own words) or a summary.
func isFact(it engine.Item) bool {
	return it.Kind != memory.KindEpisodic && it.Type != memory.TypeSummary && !strings.HasPrefix(it.Key, "note:")
}

// itemText is what an answer is looked for in: the item's own content and
// value, never the neighbouring turns shown with it.
func itemText(it engine.Item) string { return it.Content + "\n" + it.Value }

func containsAny(text string, phrases []string) bool {
	for _, p := range phrases {
		if Contains(text, p) {
			return true
		}
	}
	return false
}

// tally fills the category, overall and never-stated scores from Results.
func (r *Report) tally() {
	by := map[string]*CategoryScore{}
	r.Overall = CategoryScore{Name: "overall"}
	r.NeverStated = NeverStatedScore{}
	for _, res := range r.Results {
		if res.Category == NeverStated {
			r.NeverStated.Questions++
			if res.WrongFirst {
				r.NeverStated.Violations++
				r.NeverStated.ByFact += b2i(res.WrongFirstFact)
			}
			continue
		}
		c := by[res.Category]
		if c == nil {
			c = &CategoryScore{Name: res.Category}
			by[res.Category] = c
		}
		for _, s := range []*CategoryScore{c, &r.Overall} {
			s.Questions++
			s.Hits1 += b2i(res.Hit1)
			s.Hits5 += b2i(res.Hit5)
			s.AsFacts += b2i(res.AsFact)
			s.WrongFirst += b2i(res.WrongFirst)
		}
	}
	r.Categories = nil
	for _, name := range Categories() {
		if c := by[name]; c != nil {
			c.means()
			r.Categories = append(r.Categories, *c)
		}
	}
	r.Overall.means()
	r.FactsFlagged = 0
	for _, f := range r.Facts {
		if f.Flag != "" {
			r.FactsFlagged++
		}
	}
}

func (c *CategoryScore) means() {
	if c.Questions == 0 {
		return
	}
	n := float64(c.Questions)
	c.Hit1, c.Hit5, c.AsFactShare = float64(c.Hits1)/n, float64(c.Hits5)/n, float64(c.AsFacts)/n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// auditFacts lists the facts written for s, flagging those that look
// wrong.
func auditFacts(ctx context.Context, eng *engine.Engine, s *Scenario) ([]Fact, error) {
	vs, err := eng.Facts(ctx, engine.FactsParams{Namespace: Namespace(s.ID), IncludeHistory: true})
	if err != nil {
		return nil, fmt.Errorf("scenario %s: list facts: %w", s.ID, err)
	}
	out := make([]Fact, 0, len(vs))
	for _, v := range vs {
		out = append(out, Fact{
			Scenario: s.ID, Subject: v.Subject, Key: v.Key, Value: v.Value, Status: v.Status, Content: v.Content,
			Flag: flag(s, v),
		})
	}
	return out, nil
}

// fillers are words that are never a value: casual speech puts them
// where a value would go ("I'm at Lumen now, finally").
var fillers = []string{"finally", "though", "yeah", "yes", "no", "seriously", "actually", "anyway", "anyways",
	"honestly", "now", "too", "lol", "haha", "ok", "okay", "cool", "right", "really", "basically", "literally",
	"already", "again", "still", "just", "then", "there", "here", "it", "that", "this", "thing", "stuff", "lately", "soon"}

func flag(s *Scenario, v *memory.Version) string {
	val := strings.Trim(strings.ToLower(strings.TrimSpace(v.Value)), ".,!?;:'\"")
	if slices.Contains(fillers, val) {
		return "value is a filler word"
	}
	if !v.Status.Live() {
		return ""
	}
	for _, e := range s.ExpectFacts {
		switch {
		case !e.Covers(v.Subject, v.Key):
		case e.Absent:
			return fmt.Sprintf("expected no %s %s fact", e.Subject, e.Key)
		case !Contains(v.Value, e.Value):
			return fmt.Sprintf("expected %s %s %q", e.Subject, e.Key, e.Value)
		}
	}
	return ""
}
