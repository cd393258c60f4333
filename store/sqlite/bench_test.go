package sqlite_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

const benchNS = "bench"

// fact is what the engine writes for one remembered fact: a new slot, its
// first version and the admission that let it in.
type fact struct {
	m *memory.Memory
	v *memory.Version
	a *memory.Admission
}

// newFact builds fact i deterministically from rng, with an embedding of
// embBytes bytes.
func newFact(rng *rand.Rand, prefix string, i, embBytes int, now time.Time) fact {
	id := fmt.Sprintf("%s%09d", prefix, i)
	scope := memory.Scope{UserID: fmt.Sprintf("u%d", rng.IntN(10))}
	m := &memory.Memory{
		ID: "mem_" + id, Namespace: benchNS, Scope: scope, Kind: memory.KindSemantic,
		Subject: "user", Key: "fact:" + id, CreatedAt: now, UpdatedAt: now,
	}
	emb := make([]byte, 0, embBytes)
	for len(emb) < embBytes {
		emb = binary.LittleEndian.AppendUint32(emb, math.Float32bits(rng.Float32()*2-1))
	}
	ep := "ep_" + id
	v := &memory.Version{
		ID: "ver_" + id, MemoryID: m.ID, Namespace: benchNS, Seq: 1, Scope: scope,
		Kind: memory.KindSemantic, Type: memory.TypeFact, Subject: "user", Key: m.Key,
		Value:       fmt.Sprintf("value %d", rng.IntN(1000)),
		Content:     fmt.Sprintf("The user's project number %d uses pnpm and deploys on Fridays (%s).", rng.IntN(100000), id),
		Criticality: memory.CriticalityNormal, Confidence: 0.8, Usefulness: 0.5, Trust: 0.6,
		Status: memory.StatusActive, Operation: memory.OpAdd,
		ObservedAt: now, RecordedAt: now, ValidFrom: now, UpdatedAt: now,
		EvidenceEpisodeIDs: []string{ep},
		EvidenceSpans:      []memory.Span{{EpisodeID: ep, Start: 0, End: 40}},
		Provenance:         memory.Provenance{Extractor: "rules", Embedder: "builtin", EmbedderDim: 384, Source: "remember"},
		Tokens:             18,
		Embedding:          emb,
	}
	a := &memory.Admission{
		ID: "adm_" + id, Namespace: benchNS, EpisodeID: ep, MemoryID: m.ID, VersionID: v.ID,
		Decision: memory.AdmitAccept, Reasons: []string{"direct"}, Operation: memory.OpAdd,
		Content: v.Content, Extractor: "rules", CreatedAt: now,
	}
	return fact{m, v, a}
}

// remember does what the engine's remember does per fact: look the slot
// up, read its history, then write slot, version and admission.
func remember(ctx context.Context, tx memory.Executor, f fact) error {
	_, err := tx.FindMemory(ctx, memory.FindMemoryParams{Namespace: benchNS, Scope: f.m.Scope, Subject: f.m.Subject, Key: f.m.Key})
	if err == nil {
		return fmt.Errorf("slot %s exists", f.m.Key)
	}
	if _, err := tx.ListVersions(ctx, memory.ListVersionsParams{Namespace: benchNS, MemoryID: f.m.ID}); err != nil {
		return err
	}
	if err := tx.CreateMemory(ctx, f.m); err != nil {
		return err
	}
	if err := tx.CreateVersion(ctx, f.v); err != nil {
		return err
	}
	return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: benchNS, Admissions: []*memory.Admission{f.a}})
}

// seed writes n facts to a new file at path, in large transactions.
func seed(b *testing.B, path string, n, embBytes int) {
	b.Helper()
	ctx := b.Context()
	s, err := sqlite.Open(ctx, path, sqlite.Options{Synchronous: "NORMAL"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	const batch = 5000
	for start := 0; start < n; start += batch {
		err := s.InTx(ctx, func(tx memory.Executor) error {
			for i := start; i < min(start+batch, n); i++ {
				f := newFact(rng, "s", i, embBytes, now.Add(time.Duration(i)*time.Millisecond))
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
			b.Fatal(err)
		}
	}
}

func scanAll(b *testing.B, s *sqlite.Store, want int) {
	n := 0
	err := s.ScanVersions(b.Context(), memory.ScanParams{Namespace: benchNS}, func(v *memory.Version) error {
		n++
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if n != want {
		b.Fatalf("scanned %d versions, want %d", n, want)
	}
}

// BenchmarkScanVersions100k measures what the engine does at start: open a
// file of 100k versions and stream them all to rebuild its index. The
// embedding dominates a row: 512 bytes is what the built-in sparse embedder
// stores for a sentence, 1536 bytes a dense 384-dimension float32 vector.
func BenchmarkScanVersions100k(b *testing.B) {
	const n = 100_000
	for _, embBytes := range []int{512, 1536} {
		b.Run(fmt.Sprintf("emb=%dB", embBytes), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "scan.db")
			seed(b, path, n, embBytes)
			b.Run("OpenAndScan", func(b *testing.B) {
				for b.Loop() {
					s, err := sqlite.Open(b.Context(), path, sqlite.Options{})
					if err != nil {
						b.Fatal(err)
					}
					scanAll(b, s, n)
					if err := s.Close(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "versions/s")
			})
			b.Run("Scan", func(b *testing.B) {
				s, err := sqlite.Open(b.Context(), path, sqlite.Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				for b.Loop() {
					scanAll(b, s, n)
				}
				b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "versions/s")
			})
		})
	}
}

// BenchmarkBatchWrite measures the engine's batched remember: 100 facts per
// transaction, synchronous=FULL.
func BenchmarkBatchWrite(b *testing.B) {
	const batch = 100
	s := openTemp(b, sqlite.Options{})
	ctx := b.Context()
	rng := rand.New(rand.NewPCG(3, 4))
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	i := 0
	for b.Loop() {
		err := s.InTx(ctx, func(tx memory.Executor) error {
			for range batch {
				if err := remember(ctx, tx, newFact(rng, "b", i, 512, now)); err != nil {
					return err
				}
				i++
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "facts/s")
}

// BenchmarkSingleDurableWrite measures one remember per transaction with
// synchronous=FULL: every fact waits for its own fsync.
func BenchmarkSingleDurableWrite(b *testing.B) {
	s := openTemp(b, sqlite.Options{})
	ctx := b.Context()
	rng := rand.New(rand.NewPCG(5, 6))
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	i := 0
	for b.Loop() {
		f := newFact(rng, "d", i, 512, now)
		i++
		if err := s.InTx(ctx, func(tx memory.Executor) error { return remember(ctx, tx, f) }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}

// BenchmarkPageVersions100k measures the inspector's memory list on a
// namespace of 100k versions: the first page of 50, a page deep in the
// namespace (after a cursor), and a filtered page (scope, type and a
// word of the content), each read from versions_by_recency.
func BenchmarkPageVersions100k(b *testing.B) {
	const n = 100_000
	path := filepath.Join(b.TempDir(), "page.db")
	seed(b, path, n, 64)
	s, err := sqlite.Open(b.Context(), path, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	deep := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(10_000 * time.Millisecond) // the 90,000th newest
	cases := []struct {
		name string
		p    memory.PageVersionsParams
	}{
		{"First", memory.PageVersionsParams{}},
		{"Deep", memory.PageVersionsParams{After: &memory.VersionCursor{RecordedAt: deep, ID: fmt.Sprintf("ver_s%09d", 10_000)}}},
		{"Filtered", memory.PageVersionsParams{Statuses: []memory.Status{memory.StatusActive}, Types: []memory.Type{memory.TypeFact},
			Scope: memory.Scope{UserID: "u3"}, Text: "number 1"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			p := c.p
			p.Namespace, p.Limit = benchNS, 50
			for b.Loop() {
				vs, err := s.PageVersions(b.Context(), p)
				if err != nil {
					b.Fatal(err)
				}
				if len(vs) != 50 {
					b.Fatalf("page of %d versions, want 50", len(vs))
				}
			}
		})
	}
}

// BenchmarkSlotRead compares the two ways reconciliation reads a slot in a
// write transaction, over 10,000 one-version slots and one slot of 200
// versions (one live): FindMemory then ListVersions of the whole history
// (without embeddings), and ReadSlotHead. "missing" is a new slot (most
// remembers), "one" a slot of one version, "history200" the long one.
func BenchmarkSlotRead(b *testing.B) {
	path := filepath.Join(b.TempDir(), "slots.db")
	seed(b, path, 10_000, 320)
	ctx := b.Context()
	s, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	long := &memory.Memory{ID: "mem_long", Namespace: benchNS, Kind: memory.KindSemantic, Subject: "user", Key: "decision:language"}
	rng := rand.New(rand.NewPCG(3, 4))
	now := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	err = s.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateMemory(ctx, long); err != nil {
			return err
		}
		for i := 1; i <= 200; i++ {
			v := newFact(rng, "l", i, 320, now.Add(time.Duration(i)*time.Minute)).v
			v.MemoryID, v.Seq, v.Key, v.Scope = long.ID, i, long.Key, long.Scope
			if i < 200 {
				v.Status = memory.StatusSuperseded
			}
			if err := tx.CreateVersion(ctx, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	one := newFact(rand.New(rand.NewPCG(1, 2)), "s", 0, 320, now).m
	slots := map[string]memory.FindMemoryParams{
		"missing":    {Namespace: benchNS, Subject: "user", Key: "fact:none"},
		"one":        {Namespace: benchNS, Scope: one.Scope, Subject: "user", Key: one.Key},
		"history200": {Namespace: benchNS, Subject: "user", Key: long.Key},
	}
	for _, name := range []string{"missing", "one", "history200"} {
		p := slots[name]
		b.Run(name+"/FindMemory+ListVersions", func(b *testing.B) {
			for b.Loop() {
				_ = s.InTx(ctx, func(tx memory.Executor) error {
					m, err := tx.FindMemory(ctx, p)
					if err != nil {
						return nil
					}
					_, err = tx.ListVersions(ctx, memory.ListVersionsParams{Namespace: benchNS, MemoryID: m.ID, WithoutEmbeddings: true})
					return err
				})
			}
		})
		b.Run(name+"/ReadSlotHead", func(b *testing.B) {
			for b.Loop() {
				_ = s.InTx(ctx, func(tx memory.Executor) error {
					_, err := tx.(memory.SlotHeadReader).ReadSlotHead(ctx, p)
					return err
				})
			}
		})
	}
}
