package engine

import (
	"context"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// retrievalOutcome is what a retrieval answers and what its trace holds,
// compared whole by the tests that check two ways of retrieving serve the
// same (one scan or two, channels spread or not, the common request's
// marks or each entry).
type retrievalOutcome struct {
	Items   []Item
	Context string
	Used    int
	Cands   int
	Trace   []memory.TraceItem
}

// retrieveOutcome runs p on e and reads its trace back at once (a trace is
// readable the moment its retrieval returns).
func retrieveOutcome(t testing.TB, e *Engine, p RetrieveParams) retrievalOutcome {
	t.Helper()
	ctx := context.Background()
	res, err := e.Retrieve(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.Trace(ctx, p.Namespace, res.RetrievalID)
	if err != nil {
		t.Fatal(err)
	}
	return retrievalOutcome{res.Items, res.Context, res.TokensUsed, res.Candidates, tr.Items}
}
