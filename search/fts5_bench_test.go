package search

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mnemon-dev/mnemon/internal/testutil"
	"github.com/mnemon-dev/mnemon/search/searchtest"

	_ "modernc.org/sqlite" // FTS5 baseline, test only
)

// This file compares the lexical channel (Analyzer + Index.Lexical) with
// SQLite FTS5 bm25() (porter unicode61 tokenizer) on the same 100k-document
// corpora and queries: recall@10 against known relevant documents and
// per-query latency. Run with:
//
//	go test -run '^$' -bench FTS5 -benchtime 1x ./search/

// retrievalSet is a corpus with queries and their relevant documents.
type retrievalSet struct {
	ids      []string
	texts    []string
	queries  []string
	relevant []map[string]bool
}

const ftsCorpusSize = 100_000

// padWithFiller adds seeded synthetic sentences until the corpus has n docs.
func (s *retrievalSet) padWithFiller(n int, seed uint64) {
	g := searchtest.NewGenerator(seed)
	for i := 0; len(s.ids) < n; i++ {
		s.ids = append(s.ids, fmt.Sprintf("filler-%06d", i))
		s.texts = append(s.texts, g.Sentence())
	}
}

var evidenceRE = regexp.MustCompile(`D:?(\d+):(\d+)`)

// loadLoCoMo turns LoCoMo conversations into documents (one per turn,
// "Speaker: text", plus the caption of a shared image) and its category 1–4
// questions into queries whose relevant documents are the evidence turns.
func loadLoCoMo(tb testing.TB) (*retrievalSet, bool) {
	path, ok := testutil.FindShared("data/locomo/locomo-dev.json")
	if !ok {
		return nil, false
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var samples []struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []struct {
			Question string   `json:"question"`
			Evidence []string `json:"evidence"`
			Category int      `json:"category"`
		} `json:"qa"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		tb.Fatalf("parse %s: %v", path, err)
	}
	s := &retrievalSet{}
	for _, smp := range samples {
		keys := make([]string, 0, len(smp.Conversation))
		for k := range smp.Conversation {
			keys = append(keys, k)
		}
		slices.Sort(keys) // deterministic document order
		for _, k := range keys {
			var turns []struct {
				Speaker string `json:"speaker"`
				DiaID   string `json:"dia_id"`
				Text    string `json:"text"`
				Caption string `json:"blip_caption"`
			}
			if !strings.HasPrefix(k, "session_") || json.Unmarshal(smp.Conversation[k], &turns) != nil {
				continue
			}
			for _, t := range turns {
				text := t.Speaker + ": " + t.Text
				if t.Caption != "" {
					text += " [shares an image: " + t.Caption + "]"
				}
				s.ids = append(s.ids, smp.SampleID+"/"+t.DiaID)
				s.texts = append(s.texts, text)
			}
		}
		for _, q := range smp.QA {
			if q.Category < 1 || q.Category > 4 {
				continue
			}
			rel := map[string]bool{}
			for _, e := range q.Evidence {
				for _, m := range evidenceRE.FindAllStringSubmatch(e, -1) {
					rel[fmt.Sprintf("%s/D%s:%s", smp.SampleID, m[1], m[2])] = true
				}
			}
			if len(rel) > 0 {
				s.queries = append(s.queries, q.Question)
				s.relevant = append(s.relevant, rel)
			}
		}
	}
	s.padWithFiller(ftsCorpusSize, 101)
	return s, true
}

// plantedSet is a fully synthetic corpus: filler sentences plus, for each of
// 500 queries, 1–3 planted documents that share its rare terms in other word
// forms ("invoice" → "invoices"), among distractors that share some of them.
func plantedSet() *retrievalSet {
	r := rand.New(rand.NewPCG(201, 202))
	g := searchtest.NewGenerator(203)
	s := &retrievalSet{}
	docTemplates := []string{
		"%[1]s told me the %[2]ss from %[3]s were %[4]s again.",
		"%[3]s finally delivered %[1]s's %[2]s, and it looked %[4]s.",
		"According to %[1]s, %[3]s keeps the %[4]s %[2]ss in the back room.",
		"%[1]s complained that %[3]s sold %[5]s a %[4]s %[2]s.",
	}
	queryTemplates := []string{
		"What did %[1]s say about the %[2]s from %[3]s?",
		"%[3]s %[2]s %[1]s",
		"Which %[2]s did %[1]s get from %[3]s?",
	}
	seen := map[string]bool{}
	for q := 0; q < 500; q++ {
		name, noun, sur := g.Word("name"), g.Rare("noun"), g.Rare("surname")
		key := name + noun + sur
		if seen[key] {
			q--
			continue
		}
		seen[key] = true
		rel := map[string]bool{}
		for k := range 1 + r.IntN(3) {
			id := fmt.Sprintf("planted-%03d-%d", q, k)
			s.ids = append(s.ids, id)
			s.texts = append(s.texts, fmt.Sprintf(docTemplates[r.IntN(len(docTemplates))], name, noun, sur, g.Word("adj"), g.Word("name")))
			rel[id] = true
		}
		// Distractors: the same name and noun without the rare surname, and
		// the surname with another noun.
		for k := range 3 {
			s.ids = append(s.ids, fmt.Sprintf("distractor-%03d-%d", q, k))
			if k < 2 {
				s.texts = append(s.texts, fmt.Sprintf("%s bought a %s %s at the market.", name, g.Word("adj"), noun))
			} else {
				s.texts = append(s.texts, fmt.Sprintf("%s from %s fixed the %s.", g.Word("name"), sur, g.Word("noun")))
			}
		}
		s.queries = append(s.queries, fmt.Sprintf(queryTemplates[r.IntN(len(queryTemplates))], name, noun, sur))
		s.relevant = append(s.relevant, rel)
	}
	s.padWithFiller(ftsCorpusSize, 204)
	return s
}

// ftsQuery sanitises free text into an FTS5 query: every word becomes a
// quoted string (quotes split words and are doubled inside a string anyway,
// so no FTS5 syntax can leak through),
// stop words are dropped as the Analyzer drops them, and the terms are
// OR-ed so a document needs only some of them, as with BM25 over the index.
func ftsQuery(text string) string {
	var parts []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if isStopWord(w) || seen[w] {
			continue
		}
		seen[w] = true
		parts = append(parts, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
	}
	return strings.Join(parts, " OR ")
}

func TestFTSQuerySanitiser(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		`What did Rosalind say?`:          `"rosalind" OR "say"`,
		`she said "NEAR(a b)" AND x*`:     `"said" OR "near" OR "b" OR "x"`,
		`inner"quote`:                     `"inner" OR "quote"`,
		`the and of`:                      ``,
		`Café's c++`:                      `"café" OR "c"`,
		`"unbalanced`:                     `"unbalanced"`,
		`col:umn ^start -not {a b} (x y)`: `"col" OR "umn" OR "start" OR "b" OR "x"`,
	}
	for in, want := range tests {
		if got := ftsQuery(in); got != want {
			t.Errorf("ftsQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

type measured struct {
	recall       float64
	p50, p95     time.Duration // wall
	cpu50, cpu95 time.Duration // thread CPU: cost on an idle core
}

// evaluate runs every query twice (the first pass warms caches) and returns
// mean recall@10 and per-query latency percentiles of the second pass.
func evaluate(s *retrievalSet, search func(q string) []string) measured {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var m measured
	var ds, cs []time.Duration
	for pass := range 2 {
		ds, cs = ds[:0], cs[:0]
		var sum float64
		for i, q := range s.queries {
			t0, c0 := time.Now(), searchtest.ThreadCPU()
			top := search(q)
			cs = append(cs, searchtest.ThreadCPU()-c0)
			ds = append(ds, time.Since(t0))
			found := 0
			for _, id := range top {
				if s.relevant[i][id] {
					found++
				}
			}
			sum += float64(found) / float64(len(s.relevant[i]))
		}
		if pass == 1 {
			m.recall = sum / float64(len(s.queries))
		}
	}
	slices.Sort(ds)
	slices.Sort(cs)
	m.p50, m.p95 = ds[len(ds)/2], ds[len(ds)*95/100]
	m.cpu50, m.cpu95 = cs[len(cs)/2], cs[len(cs)*95/100]
	return m
}

func compareWithFTS5(b *testing.B, s *retrievalSet) {
	an := NewAnalyzer()
	docs := make([]Doc, len(s.ids))
	for i := range s.ids {
		docs[i] = Doc{ID: s.ids[i], Terms: an.Terms(s.texts[i])}
	}
	ix := NewIndex()
	ix.Build(docs)

	db, err := sql.Open("sqlite", filepath.Join(b.TempDir(), "fts.db")+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, body, tokenize='porter unicode61')`); err != nil {
		b.Skipf("FTS5 not available in this SQLite build: %v", err)
	}
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	ins, err := tx.Prepare(`INSERT INTO docs(id, body) VALUES (?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	for i := range s.ids {
		if _, err := ins.Exec(s.ids[i], s.texts[i]); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	stmt, err := db.Prepare(`SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 10`)
	if err != nil {
		b.Fatal(err)
	}
	defer stmt.Close()

	lexical := func(q string) []string {
		hits := ix.Lexical(an.QueryTerms(q), 10, nil)
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = h.ID
		}
		return ids
	}
	fts := func(q string) []string {
		fq := ftsQuery(q)
		if fq == "" {
			return nil
		}
		rows, err := stmt.Query(fq)
		if err != nil {
			b.Fatalf("fts query %q: %v", fq, err)
		}
		defer rows.Close()
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				b.Fatal(err)
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		return ids
	}

	var mine, theirs measured
	for b.Loop() {
		mine = evaluate(s, lexical)
		theirs = evaluate(s, fts)
	}
	b.ReportMetric(mine.recall, "recall@10_lexical")
	b.ReportMetric(theirs.recall, "recall@10_fts5")
	b.ReportMetric(float64(mine.p50.Nanoseconds())/1e3, "p50_us_lexical")
	b.ReportMetric(float64(mine.p95.Nanoseconds())/1e3, "p95_us_lexical")
	b.ReportMetric(float64(theirs.p50.Nanoseconds())/1e3, "p50_us_fts5")
	b.ReportMetric(float64(theirs.p95.Nanoseconds())/1e3, "p95_us_fts5")
	b.ReportMetric(float64(mine.cpu50.Nanoseconds())/1e3, "cpu_p50_us_lexical")
	b.ReportMetric(float64(mine.cpu95.Nanoseconds())/1e3, "cpu_p95_us_lexical")
	b.ReportMetric(float64(theirs.cpu50.Nanoseconds())/1e3, "cpu_p50_us_fts5")
	b.ReportMetric(float64(theirs.cpu95.Nanoseconds())/1e3, "cpu_p95_us_fts5")
	b.Logf("%d docs, %d queries\n%-8s %10s %10s %10s %12s %12s\n%-8s %10.3f %10.1f %10.1f %12.1f %12.1f\n%-8s %10.3f %10.1f %10.1f %12.1f %12.1f",
		len(s.ids), len(s.queries), "engine", "recall@10", "p50 µs", "p95 µs", "cpu p50 µs", "cpu p95 µs",
		"lexical", mine.recall, us(mine.p50), us(mine.p95), us(mine.cpu50), us(mine.cpu95),
		"fts5", theirs.recall, us(theirs.p50), us(theirs.p95), us(theirs.cpu50), us(theirs.cpu95))
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// BenchmarkFTS5LoCoMo needs ../shared/data/locomo/locomo-dev.json beside the
// repository and skips without it.
func BenchmarkFTS5LoCoMo(b *testing.B) {
	s, ok := loadLoCoMo(b)
	if !ok {
		b.Skip("LoCoMo data not found (shared/data/locomo/locomo-dev.json)")
	}
	compareWithFTS5(b, s)
}

// BenchmarkFTS5Synthetic always runs: planted relevance in seeded filler.
func BenchmarkFTS5Synthetic(b *testing.B) {
	compareWithFTS5(b, plantedSet())
}
