package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// StreamVersionBatches gives what StreamVersions gives, in the same order,
// however its batches are decoded (here out of order, on several
// goroutines, after the stream has returned): every field equal, and each
// embedding decoding to the same vector, bit for bit, though it comes in
// its stored form.
func TestStreamVersionBatchesMatchesStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "batches.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wv := embed.NewWordVectors()
	rng := rand.New(rand.NewPCG(3, 4))
	now := time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC)
	const n = 700 // three batches, the last one short
	err = s.InTx(ctx, func(tx memory.Executor) error {
		for i := range n {
			f := newFact(rng, "b", i, 0, now.Add(time.Duration(i)*time.Second))
			f.v.Embedding = nil
			switch i % 7 {
			case 0:
				f.v.Status = memory.StatusDeleted // never streamed
			case 1:
				f.v.Status = memory.StatusSuperseded
			case 2:
				f.v.EvidenceEpisodeIDs, f.v.EvidenceSpans = nil, nil
			}
			if i%5 != 4 {
				f.v.Embedding = wv.Vector(fmt.Sprintf("the pump on line %d leaks oil again, week %d", i, i%9)).EncodeCompact()
			}
			if i%3 == 0 {
				f.v.Value = f.v.Content
			}
			if err := tx.CreateMemory(ctx, f.m); err != nil {
				return err
			}
			if err := tx.CreateVersion(ctx, f.v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []*memory.Version
	if err := s.StreamVersions(ctx, memory.ScanParams{Namespace: benchNS}, func(v *memory.Version) error {
		want = append(want, v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var decoders []func() ([]*memory.Version, error)
	if err := s.StreamVersionBatches(ctx, memory.ScanParams{Namespace: benchNS}, func(decode func() ([]*memory.Version, error)) error {
		decoders = append(decoders, decode)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(decoders) != 3 {
		t.Fatalf("%d batches, want 3", len(decoders))
	}
	batches := make([][]*memory.Version, len(decoders))
	errs := make([]error, len(decoders))
	var wg sync.WaitGroup
	for i := len(decoders) - 1; i >= 0; i-- {
		wg.Go(func() { batches[i], errs[i] = decoders[i]() })
	}
	wg.Wait()
	var got []*memory.Version
	for i, b := range batches {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		got = append(got, b...)
	}
	if len(got) != len(want) || len(want) < n/2 {
		t.Fatalf("%d versions from the batches, %d from the stream (of %d written)", len(got), len(want), n)
	}
	vectors, packed := 0, 0
	for i := range want {
		w, g := *want[i], *got[i]
		if (w.Embedding == nil) != (g.Embedding == nil) {
			t.Fatalf("%s: embedding %v against %v", w.ID, w.Embedding != nil, g.Embedding != nil)
		}
		if w.Embedding != nil {
			wv, err1 := search.DecodeVector(w.Embedding)
			gv, err2 := search.DecodeVector(g.Embedding)
			if err1 != nil || err2 != nil || !reflect.DeepEqual(wv, gv) {
				t.Fatalf("%s: vectors differ (%v, %v)", w.ID, err1, err2)
			}
			vectors++
			if search.IsPacked(g.Embedding) {
				packed++
			}
		}
		w.Embedding, g.Embedding = nil, nil
		if !reflect.DeepEqual(w, g) {
			t.Fatalf("version %d differs:\n stream %+v\n batch  %+v", i, w, g)
		}
	}
	if vectors == 0 || packed == 0 {
		t.Fatalf("%d embeddings compared, %d of them in the stored (packed) form", vectors, packed)
	}
	// A stop from fn is returned as is.
	stop := fmt.Errorf("enough")
	if err := s.StreamVersionBatches(ctx, memory.ScanParams{Namespace: benchNS}, func(func() ([]*memory.Version, error)) error {
		return stop
	}); err != stop {
		t.Fatalf("stopped: %v", err)
	}
}
