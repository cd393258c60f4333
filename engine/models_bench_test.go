package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/extract/llm"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/provider/openai/openaitest"
)

// BenchmarkModelExtraction is the background job's cost per episode with
// the model extractor against the fake provider on loopback: the chat
// round trip, validation and the write (a real endpoint adds its own
// generation time). go test ./engine -run '^$' -bench ModelExtraction
func BenchmarkModelExtraction(b *testing.B) {
	for _, mode := range []llm.Mode{llm.ModeModel, llm.ModeBoth} {
		b.Run(string(mode), func(b *testing.B) {
			fake := openaitest.New(b, "fake-embed", 8)
			e, _, _ := modelEngine(b, fake, mode, 0)
			ctx := context.Background()
			q := &queue{}
			b.ResetTimer()
			for i := range b.N {
				fake.Script("/v1/chat/completions", openaitest.Reply{Content: lisbonReply})
				ev := engine.Event{Kind: memory.EpisodeUserMessage, Content: fmt.Sprintf("I live in Lisbon, flat %d.", i), Speaker: "ana", OccurredAt: t0.Add(time.Duration(i) * time.Second)}
				if _, err := e.CaptureDeferred(ctx, engine.CaptureParams{Namespace: "ns", Events: []engine.Event{ev}}, q.enqueue); err != nil {
					b.Fatal(err)
				}
				if _, err := e.Extract(ctx, q.jobs[len(q.jobs)-1]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkQueryFallback is a retrieval whose provider answers (up), one
// that answers after the budget (slow: the budget, 300 ms, bounds it),
// and one that is gone (down: connection refused, retried while the
// budget allows). go test ./engine -run '^$' -bench QueryFallback
func BenchmarkQueryFallback(b *testing.B) {
	for _, state := range []string{"up", "slow", "down"} {
		b.Run(state, func(b *testing.B) {
			fake := openaitest.New(b, "fake-embed", 32)
			e := openEngine(b, filepath.Join(b.TempDir(), "m.db"), engine.Config{Embedder: providerEmbedder(b, fake, 32, 3)})
			ctx := context.Background()
			for i := range 50 {
				if _, err := e.Remember(ctx, engine.RememberParams{Namespace: "ns", Text: fmt.Sprintf("Ticket %d was closed by the night shift.", i)}); err != nil {
					b.Fatal(err)
				}
			}
			if state == "down" {
				fake.Close()
			}
			b.ResetTimer()
			for range b.N {
				if state == "slow" {
					fake.Script("/v1/embeddings", openaitest.Reply{Delay: 2 * time.Second})
				}
				res := retrieve(b, e, engine.RetrieveParams{Namespace: "ns", Query: "which ticket did the night shift close"})
				if (state != "up") != (len(res.Notes) > 0) {
					b.Fatalf("%s: notes %q", state, res.Notes)
				}
			}
		})
	}
}
