package synthetic

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/bench"
	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/memory"
)

// Condition is what the reader gets to answer from.
type Condition string

// The conditions, from no memory to mnemon's full read path.
const (
	// NoMemory: nothing; the reader can only guess uniformly among the
	// candidates (scored as the guess's expected accuracy).
	NoMemory Condition = "none"
	// Window400 and Window1600: the last 400 or 1,600 words of the
	// conversation, newest turn first, as a context window would hold.
	Window400  Condition = "window400"
	Window1600 Condition = "window1600"
	// Lexical: mnemon's retrieval with the lexical (BM25) channel only.
	Lexical Condition = "lexical"
	// Hybrid: mnemon's full read path, every channel.
	Hybrid Condition = "hybrid"
	// Episodes: the full read path over episodes only (nothing extracted):
	// what mnemon would be as a plain conversation search.
	Episodes Condition = "episodes"
)

// Conditions lists every condition in report order.
func Conditions() []Condition {
	return []Condition{NoMemory, Window400, Window1600, Lexical, Hybrid, Episodes}
}

// windowWords is the size of each window condition.
func windowWords(c Condition) int {
	switch c {
	case Window400:
		return 400
	case Window1600:
		return 1600
	}
	return 0
}

// Opener opens a fresh engine over a real store. name tells stores apart
// (one per extraction setting); a nil extractor means the engine's
// default. close releases the engine and its store.
type Opener func(ctx context.Context, name string, ex extract.Extractor) (eng *engine.Engine, close func() error, err error)

// Options configure a run.
type Options struct {
	Spec       Spec
	Conditions []Condition // default: all
	Open       Opener
	Limit      int       // items per retrieval; default 10
	Budget     int       // tokens per retrieval; default 1000
	Failures   int       // wrong answers kept per condition, for reading
	Progress   io.Writer // nil: no progress
}

// Score is one condition's result.
type Score struct {
	Condition Condition `json:"condition"`
	Questions int       `json:"questions"`
	Current   int       `json:"current_questions"`
	Previous  int       `json:"previous_questions"`
	// Accuracy is the fraction answered right; for NoMemory the expected
	// accuracy of a uniform guess.
	Accuracy         float64 `json:"accuracy"`
	AccuracyCurrent  float64 `json:"accuracy_current"`
	AccuracyPrevious float64 `json:"accuracy_previous"`
	// RecallAt1 and RecallAt5: a gold evidence turn is cited by one of the
	// top 1 or 5 items (for the windows: among the 1 or 5 newest turns).
	RecallAt1         float64 `json:"recall_at_1"`
	RecallAt5         float64 `json:"recall_at_5"`
	RecallAt1Current  float64 `json:"recall_at_1_current"`
	RecallAt5Current  float64 `json:"recall_at_5_current"`
	RecallAt1Previous float64 `json:"recall_at_1_previous"`
	RecallAt5Previous float64 `json:"recall_at_5_previous"`
	ContextWords      float64 `json:"mean_context_words"`
	// Tuning and HeldOut split the questions by the template that stated
	// the answer (heldout.go); tuning seeds have no held-out questions.
	Tuning   SplitScore `json:"tuning_templates"`
	HeldOut  SplitScore `json:"held_out_templates"`
	Failures []Failure  `json:"failures,omitempty"`
}

// Failure is a wrong answer, with the context the reader had.
type Failure struct {
	Question string   `json:"question"`
	ID       string   `json:"id"`
	Asks     Asks     `json:"asks"`
	Want     string   `json:"want"`
	Got      string   `json:"got"`
	Context  []string `json:"context"`
}

// Report is a whole run.
type Report struct {
	Suite     string  `json:"suite"`
	Seed      uint64  `json:"seed"`
	Split     string  `json:"split"`
	Users     int     `json:"users"`
	Sessions  int     `json:"sessions_per_user"`
	Turns     int     `json:"turns"`
	Questions int     `json:"questions"`
	Limit     int     `json:"limit"`
	Budget    int     `json:"token_budget"`
	Scores    []Score `json:"conditions"`
	// Extraction is the rule extractor's precision and recall on the
	// user's statements, by template split.
	Extraction []ExtractionScore `json:"extraction"`
	Took       string            `json:"took"`
	Date       time.Time         `json:"date"`
}

// Run generates the users, feeds them to each condition and scores the
// reader's answers.
func Run(ctx context.Context, o Options) (*Report, error) {
	start := time.Now()
	if o.Limit == 0 {
		o.Limit = 10
	}
	if o.Budget == 0 {
		o.Budget = 1000
	}
	if len(o.Conditions) == 0 {
		o.Conditions = Conditions()
	}
	users := Generate(o.Spec)
	rep := &Report{
		Suite: "synthetic", Seed: o.Spec.Seed, Split: SplitOf(o.Spec.Seed), Users: o.Spec.Users,
		Sessions: max(o.Spec.Sessions, 1), Limit: o.Limit, Budget: o.Budget, Date: start.UTC(),
	}
	for _, u := range users {
		rep.Turns += len(u.Turns)
		rep.Questions += len(u.Questions)
	}

	// One engine per extraction setting, each in its own store, holding
	// every user; one namespace per user, so no user's memories can
	// answer for another's and "the user" is always the one asked about.
	engines := map[string]*ingested{}
	for _, c := range o.Conditions {
		name := storeFor(c)
		if name == "" || engines[name] != nil {
			continue
		}
		var ex extract.Extractor
		if name == "episodes" {
			ex = noExtraction{}
		}
		eng, closeFn, err := o.Open(ctx, name, ex)
		if err != nil {
			return nil, fmt.Errorf("synthetic: open %s store: %w", name, err)
		}
		defer closeFn()
		in, err := ingest(ctx, eng, users, bench.NewProgress(o.Progress, "ingest ("+name+")", len(users)))
		if err != nil {
			return nil, fmt.Errorf("synthetic: ingest %s: %w", name, err)
		}
		engines[name] = in
	}

	ex, err := scoreExtraction(ctx, users)
	if err != nil {
		return nil, fmt.Errorf("synthetic: extraction: %w", err)
	}
	rep.Extraction = ex
	for _, c := range o.Conditions {
		s, err := score(ctx, c, users, engines[storeFor(c)], o)
		if err != nil {
			return nil, err
		}
		rep.Scores = append(rep.Scores, s)
	}
	rep.Took = time.Since(start).Round(time.Millisecond).String()
	return rep, nil
}

// storeFor names the store a condition reads: "memory" (extraction on),
// "episodes" (extraction off) or "" (no store).
func storeFor(c Condition) string {
	switch c {
	case Lexical, Hybrid:
		return "memory"
	case Episodes:
		return "episodes"
	}
	return ""
}

// noExtraction proposes nothing: every event stays an episode only.
type noExtraction struct{}

func (noExtraction) Name() string { return "none" }
func (noExtraction) Extract(context.Context, extract.Event) ([]extract.Candidate, error) {
	return nil, nil
}

// ingested is an engine holding every user, and where each turn went.
type ingested struct {
	eng    *engine.Engine
	turnOf map[string]int // episode id → turn index, per user's namespace
}

// namespaceOf is a user's namespace.
func namespaceOf(u User) string { return "synthetic-" + u.ID }

// ingest captures each user's sessions as production does: one capture
// per session, the user's messages and the assistant's, each with its time
// and speaker, extraction running on the engine's capture path.
func ingest(ctx context.Context, eng *engine.Engine, users []User, p *bench.Progress) (*ingested, error) {
	in := &ingested{eng: eng, turnOf: map[string]int{}}
	for _, u := range users {
		for start := 0; start < len(u.Turns); {
			end := start
			var evs []engine.Event
			for end < len(u.Turns) && u.Turns[end].Session == u.Turns[start].Session {
				t := u.Turns[end]
				kind := memory.EpisodeKind("user_message")
				if t.Speaker == SpeakerAssistant {
					kind = "agent_message"
				}
				evs = append(evs, engine.Event{
					Kind: kind, Content: t.Text, OccurredAt: t.At, Speaker: t.Speaker,
					Metadata: map[string]string{"session": strconv.Itoa(t.Session)},
				})
				end++
			}
			res, err := eng.Capture(ctx, engine.CaptureParams{Namespace: namespaceOf(u), Events: evs})
			if err != nil {
				return nil, fmt.Errorf("user %s session %d: %w", u.ID, u.Turns[start].Session, err)
			}
			for i, id := range res.EpisodeIDs {
				in.turnOf[id] = start + i
			}
			start = end
		}
		p.Add(1)
	}
	p.Done()
	return in, nil
}

// score asks every question under one condition.
func score(ctx context.Context, c Condition, users []User, in *ingested, o Options) (Score, error) {
	s := Score{Condition: c}
	var acc, accCur, accPrev, words float64
	var r1, r5, r1c, r5c, r1p, r5p float64
	var tuning, heldOut splitTally
	total := 0
	for _, u := range users {
		total += len(u.Questions)
	}
	p := bench.NewProgress(o.Progress, "ask ("+string(c)+")", total)
	for _, u := range users {
		for _, q := range u.Questions {
			var items []Item
			var right float64
			switch c {
			case NoMemory:
				right = 1 / float64(len(q.Candidates))
			default:
				var err error
				items, err = contextFor(ctx, c, u, q, in, o)
				if err != nil {
					return s, err
				}
				got := Read(q.Asks, q.Candidates, items)
				if got == q.Answer {
					right = 1
				} else if len(s.Failures) < o.Failures {
					s.Failures = append(s.Failures, failure(q, got, items))
				}
			}
			gold := make([]string, len(q.Evidence))
			for i, e := range q.Evidence {
				gold[i] = strconv.Itoa(e)
			}
			ranked := make([][]string, len(items))
			for i, it := range items {
				ranked[i] = it.Cites
				words += float64(len(strings.Fields(it.Text)))
			}
			hit1 := b2f(bench.RecallAt(gold, ranked, 1).Any)
			hit5 := b2f(bench.RecallAt(gold, ranked, 5).Any)
			if q.HeldOut {
				heldOut.add(right, hit1, hit5)
			} else {
				tuning.add(right, hit1, hit5)
			}
			s.Questions++
			acc += right
			r1 += hit1
			r5 += hit5
			if q.Asks == Current {
				s.Current++
				accCur += right
				r1c += hit1
				r5c += hit5
			} else {
				s.Previous++
				accPrev += right
				r1p += hit1
				r5p += hit5
			}
			p.Add(1)
		}
	}
	p.Done()
	s.Accuracy, s.RecallAt1, s.RecallAt5 = mean(acc, s.Questions), mean(r1, s.Questions), mean(r5, s.Questions)
	s.AccuracyCurrent, s.RecallAt1Current, s.RecallAt5Current = mean(accCur, s.Current), mean(r1c, s.Current), mean(r5c, s.Current)
	s.AccuracyPrevious, s.RecallAt1Previous, s.RecallAt5Previous = mean(accPrev, s.Previous), mean(r1p, s.Previous), mean(r5p, s.Previous)
	s.ContextWords = mean(words, s.Questions)
	s.Tuning, s.HeldOut = tuning.score(), heldOut.score()
	return s, nil
}

// contextFor builds what the reader sees for q under condition c.
func contextFor(ctx context.Context, c Condition, u User, q Question, in *ingested, o Options) ([]Item, error) {
	if n := windowWords(c); n > 0 {
		return window(u.Turns, n), nil
	}
	p := engine.RetrieveParams{
		Namespace: namespaceOf(u), Query: q.Text, Limit: o.Limit, TokenBudget: o.Budget,
		// An agent asking about the past asks for history too, as
		// `mnemon recall --history` does; the question says which.
		IncludeHistory: q.Asks == Previous,
	}
	if c == Lexical {
		for _, ch := range engine.Channels {
			if ch != engine.ChannelLexical {
				p.Disable = append(p.Disable, ch)
			}
		}
	}
	res, err := in.eng.Retrieve(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("synthetic: %s: retrieve %s: %w", c, q.ID, err)
	}
	items := make([]Item, 0, len(res.Items))
	for _, it := range res.Items {
		at := it.ValidFrom
		if at.IsZero() {
			at = it.ObservedAt
		}
		cites := make([]string, 0, len(it.EpisodeIDs))
		for _, id := range it.EpisodeIDs {
			if t, ok := in.turnOf[id]; ok {
				cites = append(cites, strconv.Itoa(t))
			}
		}
		about := ""
		if it.Kind != memory.KindEpisodic {
			// An episode's subject is its speaker, not what it is about.
			about = it.Subject
		}
		items = append(items, Item{
			Text: it.Content, Time: at, Cites: cites, About: about,
			Ended: it.ValidTo != nil || it.Status.History(), Unsettled: it.Status == memory.StatusContested,
		})
	}
	return items, nil
}

// window returns the conversation's last turns, newest first, up to n
// words (whole turns only).
func window(turns []Turn, n int) []Item {
	var items []Item
	words := 0
	for i := len(turns) - 1; i >= 0; i-- {
		w := len(strings.Fields(turns[i].Text))
		if words+w > n {
			break
		}
		words += w
		items = append(items, Item{Text: turns[i].Text, Time: turns[i].At, Cites: []string{strconv.Itoa(turns[i].Index)}})
	}
	return items
}

func failure(q Question, got string, items []Item) Failure {
	f := Failure{Question: q.Text, ID: q.ID, Asks: q.Asks, Want: q.Answer, Got: got}
	for _, it := range items[:min(len(items), 6)] {
		mark := ""
		if it.Ended {
			mark = " (ended)"
		}
		if it.Unsettled {
			mark += " (contested)"
		}
		f.Context = append(f.Context, it.Time.Format("2006-01-02 15:04")+mark+" "+it.Text)
	}
	return f
}

func mean(sum float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Tuning seeds. Engine changes are tuned by reading the failures on these
// seeds only; the test set is any other seed (default 1), so a score on it
// is measured on data nobody tuned against.
const (
	TuneSeedMin = 1000
	TuneSeedMax = 1999
)

// SplitOf names the split a seed belongs to: "tuning" or "test".
func SplitOf(seed uint64) string {
	if seed >= TuneSeedMin && seed <= TuneSeedMax {
		return "tuning"
	}
	return "test"
}

// ConditionNames lists the conditions' names, for flags and help.
func ConditionNames() []string {
	var out []string
	for _, c := range Conditions() {
		out = append(out, string(c))
	}
	return out
}

// ParseConditions reads a comma-separated list of condition names.
func ParseConditions(s string) ([]Condition, error) {
	var out []Condition
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !slices.Contains(ConditionNames(), f) {
			return nil, fmt.Errorf("unknown condition %q: use %s", f, strings.Join(ConditionNames(), ", "))
		}
		if !slices.Contains(out, Condition(f)) {
			out = append(out, Condition(f))
		}
	}
	return out, nil
}
