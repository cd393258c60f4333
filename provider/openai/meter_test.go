package openai

import (
	"context"
	"sync"
	"testing"

	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
)

// TestTallyCountsOneRequest: the calls made with a context carrying a
// Tally count in it, beside the shared Meter; calls of other requests on
// the same client, at the same time, do not; a failed call counts as an
// error.
func TestTallyCountsOneRequest(t *testing.T) {
	t.Parallel()
	fake := openaitest.New(t, testModel, 4)
	c := newTestClient(t, fake, func(cfg *Config) { cfg.MaxRetries = -1 })
	meter := NewMeter()
	c.SetMeter(meter)

	var mine Tally
	ctx := WithTally(context.Background(), &mine)
	if TallyOf(ctx) != &mine || TallyOf(context.Background()) != nil {
		t.Fatal("TallyOf does not return the context's Tally")
	}
	var wg sync.WaitGroup
	for range 4 { // other requests, concurrently
		wg.Go(func() {
			if _, err := c.Embed(context.Background(), []string{"other"}, 0); err != nil {
				t.Error(err)
			}
		})
	}
	if _, err := c.Embed(ctx, []string{"one", "two"}, 0); err != nil {
		t.Fatal(err)
	}
	wg.Wait() // before the scripted failure, which is for this request
	fake.Script("/v1/embeddings", openaitest.Reply{Status: 500})
	if _, err := c.Embed(ctx, []string{"three"}, 0); err == nil {
		t.Fatal("a 500 without retries did not fail")
	}
	got := mine.Stats()
	if len(got) != 1 || got[0].Model != testModel || got[0].Endpoint != "embeddings" || got[0].Calls != 2 || got[0].Errors != 1 ||
		got[0].TokensIn <= 0 || got[0].Seconds <= 0 {
		t.Fatalf("the request's tally %+v; want its 2 embeddings calls, 1 failed, with tokens and time", got)
	}
	if all := meter.Snapshot(); len(all) != 1 || all[0].Calls != 6 {
		t.Fatalf("the meter %+v; want all 6 calls", all)
	}
	var none *Tally
	if none.Stats() != nil {
		t.Fatal("a nil Tally has stats")
	}
}
