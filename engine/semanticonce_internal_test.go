package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/store/sqlite"
	"github.com/mnemon-dev/mnemon/store/sqlite/sqlitetest"
)

// TestSemanticOneScanSameResults checks that scanning the semantic channel
// once, to SemanticFloorAlone, and keeping its hits at or above
// SemanticFloor (semanticOneScan) returns what the two scans did (one to
// SemanticFloor, and a second to SemanticFloorAlone when no word of the
// query matched): for queries whose words are stored, queries of words no
// memory holds (the channel looks further down then) and queries mixing
// both, with several limits, every item (its channels, scores, terms and
// explanation), the context, and every trace item are the same. It
// checks that both cases occur: hits below SemanticFloor are served only
// when no word matched.
func TestSemanticOneScanSameResults(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	// Not parallel (it switches semanticOneScan): the migrated template,
	// with synchronous=NORMAL, keeps its 300 writes off the disk's fsync.
	st := sqlitetest.Open(t, sqlite.Options{})
	e, err := New(Config{Store: st, Clock: clock.NewManual(at.Add(1000 * time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r := rand.New(rand.NewPCG(3, 4))
	subjects := []string{"the build server", "our staging database", "the billing service", "the mobile app", "the search cluster", "the nightly backup", "the login page", "the payment gateway"}
	verbs := []string{"crashed after", "was slow during", "recovered after", "was upgraded before", "failed during", "was patched after"}
	events := []string{"the release", "the migration", "the holiday traffic", "the outage", "the audit", "the load test", "the reboot", "the deploy"}
	for i := range 300 {
		text := fmt.Sprintf("%s %s %s", subjects[r.IntN(len(subjects))], verbs[r.IntN(len(verbs))], events[r.IntN(len(events))])
		if i%7 == 0 {
			text = fmt.Sprintf("I prefer %s for %s", []string{"tea", "coffee", "vim", "emacs"}[r.IntN(4)], events[r.IntN(len(events))])
		}
		p := RememberParams{Namespace: "ns", Text: text, ObservedAt: at.Add(time.Duration(i) * time.Minute)}
		if _, err := e.Remember(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	queries := []string{
		"database migration", "billing outage", "mobile app release", "search cluster", "backup", "login",
		"what crashed after the deploy?", "which service was slow", "coffee", "payment gateway patched",
		// No word of these is stored: the channel looks down to SemanticFloorAlone.
		"computer", "automobile", "weather forecast", "lunch", "money", "phone", "invoice", "crash",
		"server crashes", "drink", "holidays", "security review", "network", "upgrade", "failure",
	}
	run := func(q string, limit int) retrievalOutcome {
		return retrieveOutcome(t, e, RetrieveParams{Namespace: "ns", Query: q, Limit: limit})
	}
	defer func() { semanticOneScan = true }()
	below, both := 0, 0
	for _, q := range queries {
		for _, limit := range []int{10, 3} {
			semanticOneScan = true
			got := run(q, limit)
			semanticOneScan = false
			want := run(q, limit)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("query %q limit %d:\n one scan  %+v\n two scans %+v", q, limit, got, want)
			}
			lexical, low := false, false
			for _, ti := range got.Trace {
				for _, h := range ti.Channels {
					if h.Channel == ChannelLexical {
						lexical = true
					}
					if h.Channel == ChannelSemantic && h.Score < e.ranking.SemanticFloor {
						low = true
					}
				}
			}
			if low && lexical {
				t.Fatalf("query %q: a semantic hit below the floor beside lexical hits", q)
			}
			if low {
				below++
			}
			if lexical && strings.Contains(fmt.Sprint(got.Trace), ChannelSemantic) {
				both++
			}
		}
	}
	if below < 4 || both < 4 {
		t.Fatalf("%d retrievals looked below the floor, %d had lexical and semantic hits: the test needs both", below, both)
	}
}
