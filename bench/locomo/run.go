package locomo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/mnemon-dev/mnemon/bench"
)

// Arm is one retrieval system under test.
type Arm interface {
	Name() string
	// Retrieve returns at most k items for question over conversation s,
	// best first, each as the turns it cites.
	Retrieve(ctx context.Context, s *Sample, question string, k int) ([]Item, error)
}

// BudgetArm is an arm that packs its own answer within a token budget, as
// mnemon does for a caller that names one. Recall within a budget asks it
// for the budget; other arms are asked for BudgetLimit items and a reader's
// fill (bench.RecallAllWithin) is scored.
type BudgetArm interface {
	Arm
	RetrieveWithin(ctx context.Context, s *Sample, question string, k, budget int) ([]Item, error)
}

// Item is one retrieved item: the turns it cites and its size.
type Item struct {
	Turns  []string
	Tokens int
	// Kind, Content and Channels describe an engine item for the dump
	// (empty for the BM25 arm): what it is, its text, which channels
	// found it.
	Kind     string
	Type     string
	Score    float64
	Content  string
	Channels []string
}

// Options tune a run.
type Options struct {
	Ks []int // cut-offs; default bench.DefaultKs()
	// Budgets are token budgets at which recall_all is also scored: a
	// BudgetArm is asked again with each budget; another arm once more
	// for BudgetLimit items, of which those that fit the budget in rank
	// order count. A question counts when they cite all its evidence.
	// Arms are compared at equal cost this way. Nil: none.
	Budgets  []int
	Progress io.Writer // where progress is drawn; nil: nowhere
	// Dump, when set, receives one JSON line per arm and question (see
	// QuestionResult): what was asked, its evidence and the turns each
	// ranked item cites, so two runs can be compared question by question.
	Dump io.Writer
}

// QuestionResult is one line of Options.Dump.
type QuestionResult struct {
	Arm      string     `json:"arm"`
	Sample   string     `json:"sample"`
	Question string     `json:"question"`
	Category int        `json:"category"`
	Gold     []string   `json:"gold"`
	Ranked   [][]string `json:"ranked"`
	Tokens   []int      `json:"tokens"`
	// Within says, per budget of Options.Budgets, whether what the arm
	// packed within it cited every gold turn (categories 1-4 only).
	Within []bool `json:"within,omitempty"`
	// Items describe each ranked item (engine arms): kind, text, channels.
	Items []DumpItem `json:"items,omitempty"`
}

// DumpItem is what the dump says of one ranked engine item.
type DumpItem struct {
	Kind     string   `json:"kind"`
	Type     string   `json:"type"`
	Score    float64  `json:"score"`
	Content  string   `json:"content"`
	Channels []string `json:"channels,omitempty"`
}

// BudgetLimit is how many items an arm is asked for when recall within
// a token budget is scored: enough that no arm runs out of items before
// its budget (a turn is about 30 tokens; 100 of them exceed 2,000).
const BudgetLimit = 100

// DefaultBudgets are the token budgets `mnemon bench locomo` reports.
func DefaultBudgets() []int { return []int{500, 1000, 2000} }

// Report is the outcome of a run: one result per arm.
type Report struct {
	Conversations int `json:"conversations"`
	Turns         int `json:"turns"`
	// Questions are scored; Skipped had no evidence turn the
	// conversation holds (no evidence, or only missing or malformed ids).
	Questions int         `json:"questions"`
	Skipped   int         `json:"skipped"`
	Arms      []ArmResult `json:"arms"`
	// MainArms is how many of Arms are systems compared; the rest are
	// ablations of the first.
	MainArms int `json:"main_arms"`
}

// ArmResult is one arm's scores.
type ArmResult struct {
	Name string `json:"name"`
	// Headline is categories 1-4 together; category 5 (adversarial) is
	// only in Categories.
	Headline   bench.Scores     `json:"headline"`
	Categories []CategoryScores `json:"categories"`
	// TokensTop10 is the median over questions (categories 1-4) of the
	// tokens of the top 10 items.
	TokensTop10  float64 `json:"tokens_top10_median"`
	LatencyP50Ms float64 `json:"latency_p50_ms"`
	LatencyP95Ms float64 `json:"latency_p95_ms"`
	// Within is recall_all within each of Options.Budgets (categories
	// 1-4, and multi-hop alone), in the order of the budgets.
	Within []BudgetRecall `json:"recall_all_within,omitempty"`
}

// BudgetRecall is recall_all within one token budget.
type BudgetRecall struct {
	Tokens    int     `json:"tokens"`
	RecallAll float64 `json:"recall_all"`
	MultiHop  float64 `json:"multi_hop_recall_all"`
}

// CategoryScores are one category's scores.
type CategoryScores struct {
	Category int    `json:"category"`
	Name     string `json:"name"`
	bench.Scores
}

// Headline reports whether a category counts toward the headline.
func Headline(category int) bool { return category >= MultiHop && category <= SingleHop }

// Gold returns the evidence of q that names turns s holds.
func Gold(s *Sample, q Question) []string {
	var out []string
	for _, id := range q.Evidence {
		if s.HasTurn(id) {
			out = append(out, id)
		}
	}
	return out
}

// Run asks every question of every sample of every arm and scores the
// answers. Arms run one after another, questions one at a time, so the
// latencies are of one retrieval on an otherwise idle process.
func Run(ctx context.Context, samples []Sample, arms []Arm, opt Options) (*Report, error) {
	ks := opt.Ks
	if len(ks) == 0 {
		ks = bench.DefaultKs()
	}
	maxK := slices.Max(ks)
	rep := &Report{Conversations: len(samples)}
	total := 0
	for i := range samples {
		rep.Turns += samples[i].Turns()
		for _, q := range samples[i].Questions {
			if len(Gold(&samples[i], q)) == 0 {
				rep.Skipped++
				continue
			}
			total++
		}
	}
	rep.Questions = total
	rep.MainArms = len(arms)
	for _, arm := range arms {
		head := bench.NewTally(ks)
		cats := map[int]*bench.Tally{}
		var lat []time.Duration
		var toks []float64
		within := make([]BudgetRecall, len(opt.Budgets))
		headN, multiN := 0, 0
		prog := bench.NewProgress(opt.Progress, "retrieve: "+arm.Name(), total)
		for i := range samples {
			s := &samples[i]
			group := func(id string) string { return strconv.Itoa(SessionOf(id)) }
			for _, q := range s.Questions {
				gold := Gold(s, q)
				if len(gold) == 0 {
					continue
				}
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				began := time.Now()
				items, err := arm.Retrieve(ctx, s, q.Text, maxK)
				lat = append(lat, time.Since(began))
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %q: %w", arm.Name(), s.ID, q.Text, err)
				}
				ranked := make([][]string, len(items))
				for j, it := range items {
					ranked[j] = it.Turns
				}
				if cats[q.Category] == nil {
					cats[q.Category] = bench.NewTally(ks)
				}
				cats[q.Category].Add(gold, ranked, group)
				if Headline(q.Category) {
					head.Add(gold, ranked, group)
					n := 0
					for j := 0; j < len(items) && j < 10; j++ {
						n += items[j].Tokens
					}
					toks = append(toks, float64(n))
				}
				var inBudget []bool
				if len(opt.Budgets) > 0 && Headline(q.Category) {
					hits, err := scoreWithin(ctx, arm, s, q, gold, opt.Budgets, within)
					if err != nil {
						return nil, err
					}
					inBudget = hits
					headN++
					if q.Category == MultiHop {
						multiN++
					}
				}
				if opt.Dump != nil {
					if err := dumpQuestion(opt.Dump, arm.Name(), s.ID, q, gold, items, inBudget); err != nil {
						return nil, err
					}
				}
				prog.Add(1)
			}
		}
		prog.Done()
		res := ArmResult{
			Name: arm.Name(), Headline: head.Means(), TokensTop10: bench.Percentile(toks, 50),
			LatencyP50Ms: bench.Percentile(bench.Millis(lat), 50), LatencyP95Ms: bench.Percentile(bench.Millis(lat), 95),
		}
		for i := range within {
			within[i].Tokens = opt.Budgets[i]
			within[i].RecallAll = mean(within[i].RecallAll, headN)
			within[i].MultiHop = mean(within[i].MultiHop, multiN)
		}
		if len(within) > 0 {
			res.Within = within
		}
		for c := MultiHop; c <= Adversarial; c++ {
			if t := cats[c]; t != nil {
				res.Categories = append(res.Categories, CategoryScores{Category: c, Name: CategoryName(c), Scores: t.Means()})
			}
		}
		rep.Arms = append(rep.Arms, res)
	}
	return rep, nil
}

// scoreWithin adds, per budget, whether what arm answers within it cites
// every gold turn: to RecallAll, and for a multi-hop question to MultiHop
// too (sums; Run divides); it returns the same per budget, for the dump. A BudgetArm packs each budget itself; any
// other arm is asked once for BudgetLimit items.
func scoreWithin(ctx context.Context, arm Arm, s *Sample, q Question, gold []string, budgets []int, within []BudgetRecall) ([]bool, error) {
	var items []Item
	var err error
	hits := make([]bool, len(budgets))
	for i, b := range budgets {
		if ba, ok := arm.(BudgetArm); ok {
			items, err = ba.RetrieveWithin(ctx, s, q.Text, BudgetLimit, b)
		} else if i == 0 {
			items, err = arm.Retrieve(ctx, s, q.Text, BudgetLimit)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %q: %w", arm.Name(), s.ID, q.Text, err)
		}
		ranked := make([][]string, len(items))
		tokens := make([]int, len(items))
		for j, it := range items {
			ranked[j], tokens[j] = it.Turns, it.Tokens
		}
		if bench.RecallAllWithin(gold, ranked, tokens, b) {
			hits[i] = true
			within[i].RecallAll++
			if q.Category == MultiHop {
				within[i].MultiHop++
			}
		}
	}
	return hits, nil
}

// dumpQuestion writes one QuestionResult line to w.
func dumpQuestion(w io.Writer, arm, sample string, q Question, gold []string, items []Item, within []bool) error {
	r := QuestionResult{Arm: arm, Sample: sample, Question: q.Text, Category: q.Category, Gold: gold, Within: within,
		Ranked: make([][]string, len(items)), Tokens: make([]int, len(items))}
	for j, it := range items {
		r.Ranked[j], r.Tokens[j] = it.Turns, it.Tokens
		if it.Kind != "" {
			r.Items = append(r.Items, DumpItem{Kind: it.Kind, Type: it.Type, Score: it.Score, Content: it.Content, Channels: it.Channels})
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func mean(sum float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
