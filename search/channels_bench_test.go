package search_test

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/internal/testutil"
	"github.com/mnemon-dev/mnemon/search"
	"github.com/mnemon-dev/mnemon/search/searchtest"
)

// BenchmarkChannelsLoCoMo measures retrieval quality, not speed: recall@10
// of the lexical channel, the semantic channel with the built-in embedder
// (floor 0.2), and their reciprocal rank fusion (k = 60, top 50 of each)
// with the semantic list weighted 1 and 0.25, on LoCoMo padded to 100k
// documents. It tells the engine how much to trust each channel.
func BenchmarkChannelsLoCoMo(b *testing.B) {
	s, ok := search.LoadLoCoMo(b)
	if !ok {
		b.Skip("LoCoMo data not found (shared/data/locomo/locomo-dev.json)")
	}
	an, emb := search.NewAnalyzer(), embed.NewBuiltin()
	docs := make([]search.Doc, len(s.IDs))
	for i := range s.IDs {
		docs[i] = search.Doc{ID: s.IDs[i], Terms: an.Terms(s.Texts[i]), Vector: emb.Vector(s.Texts[i])}
	}
	ix := search.NewIndex()
	ix.Build(docs)

	recall := func(i int, hits []search.Hit) float64 {
		found := 0
		for _, h := range hits[:min(len(hits), 10)] {
			if s.Relevant[i][h.ID] {
				found++
			}
		}
		return float64(found) / float64(len(s.Relevant[i]))
	}
	fuse := func(lex, sem []search.Hit, w float64) []search.Hit {
		score := map[string]float64{}
		for r, h := range lex {
			score[h.ID] += 1 / float64(60+r)
		}
		for r, h := range sem {
			score[h.ID] += w / float64(60+r)
		}
		out := make([]search.Hit, 0, len(score))
		for id, sc := range score {
			out = append(out, search.Hit{ID: id, Score: sc})
		}
		slices.SortFunc(out, func(a, b search.Hit) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
		return out
	}
	var rl, rs, rf1, rf4 float64
	for b.Loop() {
		rl, rs, rf1, rf4 = 0, 0, 0, 0
		for i, q := range s.Queries {
			lex := ix.Lexical(an.QueryTerms(q), 50, nil)
			sem := ix.Semantic(emb.Vector(q), 50, 0.2, nil)
			rl += recall(i, lex)
			rs += recall(i, sem)
			rf1 += recall(i, fuse(lex, sem, 1))
			rf4 += recall(i, fuse(lex, sem, 0.25))
		}
	}
	n := float64(len(s.Queries))
	b.ReportMetric(rl/n, "recall@10_lexical")
	b.ReportMetric(rs/n, "recall@10_semantic")
	b.ReportMetric(rf1/n, "recall@10_rrf_1:1")
	b.ReportMetric(rf4/n, "recall@10_rrf_1:0.25")
}

// BenchmarkSemanticEmbedders10k measures the semantic channel alone on 10k generated
// sentences with each built-in embedder: hashed features only (posting
// lists), and word vectors (posting lists plus a 64-dim dense tail scanned
// for every document), with a filter like the engine's.
func BenchmarkSemanticEmbedders10k(b *testing.B) {
	texts := searchtest.NewGenerator(3).Sentences(10_000)
	queries := searchtest.NewGenerator(4).Sentences(200)
	for _, tc := range []struct {
		name string
		emb  interface {
			Vector(string) search.Vector
			Dim() int
		}
		tail int
	}{
		{"hashed", embed.NewBuiltin(), 0},
		{"wordvectors", embed.NewWordVectors(), embed.NewWordVectors().DenseTail()},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ix := search.NewIndex()
			ix.SetDenseTail(tc.emb.Dim(), tc.tail)
			docs := make([]search.Doc, len(texts))
			for i, t := range texts {
				docs[i] = search.Doc{ID: fmt.Sprintf("d%05d", i), Vector: tc.emb.Vector(t)}
			}
			ix.Build(docs)
			qs := make([]search.Vector, len(queries))
			for i, q := range queries {
				qs[i] = tc.emb.Vector(q)
			}
			keep := func(id string) bool { return id[len(id)-1] != '9' }
			i := 0
			for b.Loop() {
				ix.Semantic(qs[i%len(qs)], 50, 0.2, keep)
				i++
			}
		})
	}
}

// BenchmarkSemanticPeers10k is the semantic channel alone on the peers
// workload (../shared/peers, gen_workload.py; point MNEMON_PEERS_WORKLOAD
// at it): its 10,000 notes with the word-vector embedder, seven in ten
// indexed twice as the engine does (the episode and the note of the very
// same text), and its 200 queries with a filter like the engine's. It
// compares the tail scan with and without seeding (tailSeeds); cpu_ns/op is
// the process's CPU time per query, the figure to read on a loaded machine.
func BenchmarkSemanticPeers10k(b *testing.B) {
	dir := os.Getenv("MNEMON_PEERS_WORKLOAD")
	if dir == "" {
		b.Skip("MNEMON_PEERS_WORKLOAD names no directory")
	}
	notes, queries := peersTexts(b, dir)
	emb := embed.NewWordVectors()
	ix := search.NewIndex()
	ix.SetDenseTail(emb.Dim(), emb.DenseTail())
	var docs []search.Doc
	for i, t := range notes {
		v := emb.Vector(t)
		docs = append(docs, search.Doc{ID: fmt.Sprintf("ep%05d", i), Vector: v})
		if i%10 < 7 {
			docs = append(docs, search.Doc{ID: fmt.Sprintf("no%05d", i), Vector: v})
		}
	}
	ix.Build(docs)
	search.WaitRotations(ix)
	qs := make([]search.Vector, len(queries))
	for i, q := range queries {
		qs[i] = emb.Vector(q)
	}
	benchSemanticBothWays(b, ix, qs, "seeded", search.SetTailSeeding)
}

// benchSemanticBothWays runs the semantic channel over qs with a tail-scan
// switch on and then off (name=true, name=false), leaving it on, and
// reports the CPU a query took.
func benchSemanticBothWays(b *testing.B, ix *search.Index, qs []search.Vector, name string, set func(bool)) {
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("%s=%v", name, on), func(b *testing.B) {
			set(on)
			defer set(true)
			semanticLoop(b, ix, qs)
		})
	}
}

// semanticLoop runs the semantic channel over qs, round after round, with
// a filter like the engine's, and reports the process's CPU a query took.
func semanticLoop(b *testing.B, ix *search.Index, qs []search.Vector) {
	keep := func(id string) bool { return id[len(id)-1] != '9' }
	i := 0
	cpu0 := cpuNow()
	for b.Loop() {
		ix.Semantic(qs[i%len(qs)], 50, 0.2, keep)
		i++
	}
	b.ReportMetric(float64(cpuNow()-cpu0)/float64(b.N), "cpu_ns/op")
}

// peersVectors embeds notes (each one document, "no" and its number) and
// queries with the word-vector embedder.
func peersVectors(notes, queries []string) (*embed.WordVectors, []search.Doc, []search.Vector) {
	emb := embed.NewWordVectors()
	docs := make([]search.Doc, len(notes))
	for i, t := range notes {
		docs[i] = search.Doc{ID: fmt.Sprintf("no%06d", i), Vector: emb.Vector(t)}
	}
	qs := make([]search.Vector, len(queries))
	for i, q := range queries {
		qs[i] = emb.Vector(q)
	}
	return emb, docs, qs
}

// builtIndex indexes docs with emb's dense tail and waits for the tail
// block's axes, as a loaded namespace has them.
func builtIndex(emb *embed.WordVectors, docs []search.Doc) *search.Index {
	ix := search.NewIndex()
	ix.SetDenseTail(emb.Dim(), emb.DenseTail())
	ix.Build(docs)
	search.WaitRotations(ix)
	return ix
}

// BenchmarkSemanticPeersRotation10k is the semantic channel on the peers
// workload's 10,000 notes, each indexed once (as the engine now does: a
// note stands in for its episode), with the tail scan's first checkpoint
// on the block's principal axes (rotated=true, as shipped) and on the
// first coordinates as they are (minRotRows 0). The results are the same
// (TestTailRotationSameHits); cpu_ns/op is the process's CPU per query.
func BenchmarkSemanticPeersRotation10k(b *testing.B) {
	dir := os.Getenv("MNEMON_PEERS_WORKLOAD")
	if dir == "" {
		b.Skip("MNEMON_PEERS_WORKLOAD names no directory")
	}
	emb, docs, qs := peersVectors(peersTexts(b, dir))
	for _, rotated := range []bool{true, false} {
		restore := search.SetMinRotRows(0)
		if rotated {
			search.SetMinRotRows(restore)
		}
		ix := builtIndex(emb, docs)
		search.SetMinRotRows(restore)
		b.Run(fmt.Sprintf("rotated=%v", rotated), func(b *testing.B) { semanticLoop(b, ix, qs) })
	}
}

// BenchmarkSemanticPeersTouched10k is the semantic channel on the peers
// workload's 10,000 notes (indexed once each, rotated axes as shipped),
// scanning only the rows the query's head touched when no other row can
// enter the result (touched=true, as shipped: touchedOnly) and every row
// (touched=false). The results are the same (TestTailSeedsSameHits,
// TestTailTouchedOnlySameHits); cpu_ns/op is the process's CPU per query.
func BenchmarkSemanticPeersTouched10k(b *testing.B) { benchSemanticPeersTouched(b, 1) }

// BenchmarkSemanticPeersTouched100k is BenchmarkSemanticPeersTouched10k on
// 100,000 texts made from the workload's notes: note i's title with the
// text of note (i+7j) mod 10,000 for j = 0..9 (j = 0: the note itself). A
// block of that size is scanned in two concurrent halves when every row is
// scanned; cpu_ns/op counts both.
func BenchmarkSemanticPeersTouched100k(b *testing.B) { benchSemanticPeersTouched(b, 10) }

func benchSemanticPeersTouched(b *testing.B, times int) {
	dir := os.Getenv("MNEMON_PEERS_WORKLOAD")
	if dir == "" {
		b.Skip("MNEMON_PEERS_WORKLOAD names no directory")
	}
	notes, queries := peersTexts(b, dir)
	if times > 1 {
		var titles, texts []string
		for _, n := range testutil.ReadPeersJSONL[struct{ Title, Text string }](b, filepath.Join(dir, "memories_10000.jsonl")) {
			titles, texts = append(titles, n.Title), append(texts, n.Text)
		}
		notes = notes[:0]
		for j := range times {
			for i := range titles {
				notes = append(notes, titles[i]+": "+texts[(i+7*j)%len(texts)])
			}
		}
	}
	emb, docs, qs := peersVectors(notes, queries)
	benchSemanticBothWays(b, builtIndex(emb, docs), qs, "touched", search.SetTailTouchedOnly)
}

// BenchmarkSemanticPeersThird10k is the semantic channel on the peers
// workload's 10,000 notes (indexed once each, rotated axes as shipped) with
// the tail scan's third bound on the axes (third=true, as shipped) and
// without it. rows/op is how many rows a query read whole (past every
// bound on the axes); the hits are the same (TestTailRotationSameHits).
func BenchmarkSemanticPeersThird10k(b *testing.B) {
	dir := os.Getenv("MNEMON_PEERS_WORKLOAD")
	if dir == "" {
		b.Skip("MNEMON_PEERS_WORKLOAD names no directory")
	}
	emb, docs, qs := peersVectors(peersTexts(b, dir))
	ix := builtIndex(emb, docs)
	for _, on := range []bool{true, false} {
		b.Run(fmt.Sprintf("third=%v", on), func(b *testing.B) {
			search.SetTailThird(on)
			defer search.SetTailThird(true)
			stop := search.CountTailRowReads()
			semanticLoop(b, ix, qs)
			b.ReportMetric(float64(stop())/float64(b.N), "rows/op")
		})
	}
}

// peersTexts reads the peers workload's notes (title ": " text) and
// queries from dir.
func peersTexts(b *testing.B, dir string) (notes, queries []string) {
	for _, n := range testutil.ReadPeersJSONL[struct{ Title, Text string }](b, filepath.Join(dir, "memories_10000.jsonl")) {
		notes = append(notes, n.Title+": "+n.Text)
	}
	for _, q := range testutil.ReadPeersJSONL[struct{ Q string }](b, filepath.Join(dir, "queries_200.jsonl")) {
		queries = append(queries, q.Q)
	}
	return notes, queries
}
