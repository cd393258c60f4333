package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/engine"
)

// TestKeywordQueryRanksEveryWordFirst: searched with a few keywords, the
// one note holding all of them comes first, above many shorter notes that
// hold one keyword twice (a title repeating the text's first words): plain
// BM25, which saturates and normalises by length, and the word vectors put
// those first.
var (
	tools = []string{"nginx", "envoy", "vault", "consul", "grafana", "loki", "tempo", "jaeger", "redis", "minio", "etcd"}
	areas = []string{"ingest", "billing", "search", "export", "auth", "upload", "mailer"}
)

func TestKeywordQueryRanksEveryWordFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := openEngine(t, filepath.Join(t.TempDir(), "m.db"), engine.Config{})
	var batch []engine.RememberParams
	for i := range 40 {
		batch = append(batch, engine.RememberParams{Namespace: "ns", Text: fmt.Sprintf("Set kestrel cache timeout to %d: set kestrel cache timeout to %d seconds", 10+i, 10+i)})
	}
	for i := range 60 {
		batch = append(batch, engine.RememberParams{Namespace: "ns", Text: fmt.Sprintf("The data team in Quito reviews the %s migrations every wednesday using %s", tools[i%len(tools)], tools[(i+3)%len(tools)])})
	}
	for i := range 300 {
		batch = append(batch, engine.RememberParams{Namespace: "ns", Text: fmt.Sprintf("Set %s %s timeout to %d seconds", tools[i%len(tools)], areas[i%len(areas)], 20+i)})
	}
	const want = "The platform group in Lagos reviews the pending schema upgrades, the flaky integration suites and the on-call handover notes every wednesday afternoon using kestrel"
	batch = append(batch, engine.RememberParams{Namespace: "ns", Text: want})
	if _, err := e.RememberBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"wednesday kestrel", "kestrel Wednesday"} {
		res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: q, Limit: 5})
		if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, want) {
			top := make([]string, 0, len(res.Items))
			for _, it := range res.Items {
				top = append(top, it.Content)
			}
			t.Errorf("%q: top %q; want the only note holding both words first", q, top)
		}
	}
}

// TestNoteNamingTheSubjectIsAboutThem: a query that names someone whose
// facts are stored ("the contractor likes …") keeps the other_subject
// penalty off a note (a statement no rule parsed, filed under its speaker)
// whose own words name them.
func TestNoteNamingTheSubjectIsAboutThem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := openEngine(t, filepath.Join(t.TempDir(), "m.db"), engine.Config{})
	var batch []engine.RememberParams
	for _, tool := range tools[:4] {
		batch = append(batch, engine.RememberParams{Namespace: "ns", Text: "Contractor likes " + tool + "."})
	}
	for _, area := range areas {
		batch = append(batch, engine.RememberParams{Namespace: "ns", Text: "Intern prefers vim for " + area + " reviews on the gateway"})
	}
	const want = "The contractor in Lima reviews billing changes every thursday using emacs"
	batch = append(batch, engine.RememberParams{Namespace: "ns", Text: want})
	if _, err := e.RememberBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "contractor billing", Limit: 5})
	if len(res.Items) == 0 || !strings.Contains(res.Items[0].Content, want) {
		top := make([]string, 0, len(res.Items))
		for _, it := range res.Items {
			top = append(top, it.Content+" ["+it.Explanation+"]")
		}
		t.Fatalf("top %q; want the note about the contractor's billing reviews first", top)
	}
}
