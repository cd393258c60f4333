package scenarios

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/memory"
)

// TestDebugLocal prints, for the scenarios in DEBUG_SC (comma-separated
// ids), each question's top 8 with channels and terms. Local only.
func TestDebugLocal(t *testing.T) {
	ids := os.Getenv("DEBUG_SC")
	if ids == "" {
		t.Skip()
	}
	want := map[string]bool{}
	for _, id := range strings.Split(ids, ",") {
		want[id] = true
	}
	all, err := Suite()
	if err != nil {
		t.Fatal(err)
	}
	var scs []Scenario
	for _, s := range all {
		if want[s.ID] {
			scs = append(scs, s)
		}
	}
	pool, _ := Filler()
	eng := openEngine(t)
	ctx := context.Background()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	for i := range scs {
		s := &scs[i]
		if err := ingest(ctx, eng, s, fillerFor(s, pool, DefaultFiller), now); err != nil {
			t.Fatal(err)
		}
		for _, q := range s.Questions {
			res, err := eng.Retrieve(ctx, engine.RetrieveParams{
				Namespace: Namespace(s.ID), Query: q.Text, Limit: 8, TokenBudget: engine.MaxTokenBudget,
				Scope:          memory.Scope{UserID: s.User, AgentID: s.Agent, SessionID: QuestionSession(s.ID)},
				IncludeHistory: q.History,
			})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("\n== %s %q want %v\n", s.ID, q.Text, q.Answer)
			for k, it := range res.Items {
				var ch, tm []string
				for n, h := range it.Channels {
					ch = append(ch, fmt.Sprintf("%s#%d(%.2f)", n[:3], h.Rank, h.Score))
				}
				for n, v := range it.Terms {
					if v != 0 {
						tm = append(tm, fmt.Sprintf("%s%+.3f", n, v))
					}
				}
				sort.Strings(ch)
				sort.Strings(tm)
				mark := " "
				if containsAny(itemText(it), q.Answer) {
					mark = "*"
				}
				fmt.Printf("%s%d %.3f %-9s %s\n     %s | %s\n", mark, k+1, it.Score, it.Kind, shorten(it.Content, 90), strings.Join(ch, " "), strings.Join(tm, " "))
			}
		}
	}
}
