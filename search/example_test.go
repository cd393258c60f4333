package search_test

import (
	"fmt"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/search"
)

func Example() {
	an := search.NewAnalyzer()
	emb := embed.NewBuiltin()
	ix := search.NewIndex()
	for id, text := range map[string]string{
		"m1": "Rosalind lives in Lisbon with her partner.",
		"m2": "Rosalind's favourite editor is Neovim.",
		"m3": "The billing service deploys on Fridays.",
	} {
		ix.Upsert(search.Doc{ID: id, Terms: an.Terms(text), Vector: emb.Vector(text)})
	}

	q := "Which city does Rosalind live in?"
	for _, h := range ix.Lexical(an.QueryTerms(q), 2, nil) {
		fmt.Printf("lexical  %s %.2f", h.ID, h.Score)
		for _, ts := range ix.ExplainLexical(h.ID, an.QueryTerms(q)) {
			fmt.Printf(" %s=%.2f", ts.Term, ts.Score)
		}
		fmt.Println()
	}
	for _, h := range ix.Semantic(emb.Vector(q), 2, 0.2, nil) {
		fmt.Printf("semantic %s %.2f\n", h.ID, h.Score)
	}
	// Output:
	// lexical  m1 1.45 live=0.98 rosalind=0.47
	// lexical  m2 0.47 rosalind=0.47
	// semantic m1 0.62
}
