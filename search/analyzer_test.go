package search

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestAnalyzerTerms(t *testing.T) {
	t.Parallel()
	a := NewAnalyzer()
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"The quick brown foxes are running", []string{"quick", "brown", "fox", "run"}},
		{"Rosalind's beekeeping club", []string{"rosalind", "beekeep", "club"}},
		{"I don't like it; they're late", []string{"like", "late"}},
		{"O'Brien lives in Lisbon", []string{"obrien", "live", "lisbon"}},
		{"Café CAFÉ cafe\u0301", []string{"cafe", "cafe", "cafe"}},
		{"Straße Ærø", []string{"strass", "aero"}},
		{"I code in C++ and C#, not c++11", []string{"code", "c++", "c#", "c", "11"}},
		{"notepad++ rocks", []string{"notepad++", "rock"}},
		{"issue#42 and #hashtag", []string{"issu", "42", "hashtag"}},
		{"GPT4 mp3 2023-05-07", []string{"gpt4", "mp3", "2023", "05", "07"}},
		{"東京タワー", []string{"東", "京", "タ", "ワ", "ー"}},
		{"naïve résumé façade", []string{"naiv", "resum", "facad"}},
		{"It’s Imogen’s", []string{"imogen"}},
		{"running runs ran", []string{"run", "run", "ran"}},
		{"rock'n'roll", []string{"rocknrol"}},
		{"'quoted' words'", []string{"quot", "word"}},
	}
	for _, tt := range tests {
		got := a.Terms(tt.in)
		if len(got) == 0 && len(tt.want) == 0 {
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Terms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAnalyzerQueryTermsDedup(t *testing.T) {
	t.Parallel()
	a := NewAnalyzer()
	got := a.QueryTerms("Running, runs and the RUN; painting paintings")
	want := []string{"run", "paint"}
	if !slices.Equal(got, want) {
		t.Fatalf("QueryTerms = %q, want %q", got, want)
	}
}

func TestAnalyzerLongTokenCapped(t *testing.T) {
	t.Parallel()
	a := NewAnalyzer()
	got := a.Terms(strings.Repeat("x", 1000) + " é" + strings.Repeat("é", 100))
	for _, term := range got {
		if len(term) > maxTermBytes+utf8.UTFMax {
			t.Fatalf("term of %d bytes", len(term))
		}
	}
}

// The stem cache is shared; hammer it from several goroutines (run with
// -race) and check results do not depend on interleaving.
func TestAnalyzerConcurrent(t *testing.T) {
	t.Parallel()
	a := NewAnalyzer()
	text := "Imogen sketched a lighthouse while Rosalind was running to the beekeeping club meetings"
	want := NewAnalyzer().Terms(text)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if got := a.Terms(text); !slices.Equal(got, want) {
					t.Errorf("got %q", got)
					return
				}
			}
		})
	}
	wg.Wait()
}

func FuzzQueryTerms(f *testing.F) {
	for _, s := range []string{"", "hello world", "C++ c# don't", "Café\u0301", "東京", "\xff\xfe'", "a'", "''s", "++", "x#", strings.Repeat("ab", 100)} {
		f.Add(s)
	}
	a := NewAnalyzer()
	f.Fuzz(func(t *testing.T, s string) {
		q := a.QueryTerms(s)
		doc := a.Terms(s)
		seen := map[string]bool{}
		for _, term := range q {
			if term == "" {
				t.Fatalf("empty term from %q", s)
			}
			if seen[term] {
				t.Fatalf("duplicate term %q from %q", term, s)
			}
			seen[term] = true
			if !slices.Contains(doc, term) {
				t.Fatalf("query term %q not among document terms %q", term, doc)
			}
		}
		if len(seen) != min(len(uniq(doc)), MaxQueryTerms) {
			t.Fatalf("query terms %q vs document terms %q", q, doc)
		}
	})
}

func TestQueryTermsCapAndDedupAtScale(t *testing.T) {
	t.Parallel()
	a := NewAnalyzer()
	var b strings.Builder
	for i := range 2000 {
		b.WriteString(strings.Repeat("x", 1+i%40))
		b.WriteString(" w")
		b.WriteString(strings.Repeat("q", 1+i%7))
		b.WriteString(" ")
	}
	got := a.QueryTerms(b.String())
	if len(got) != 47 || len(uniq(got)) != len(got) {
		t.Fatalf("%d terms, %d distinct", len(got), len(uniq(got)))
	}
	var many []string
	for i := range 1000 {
		many = append(many, "w"+strconv.Itoa(i)+"k")
	}
	if got := a.QueryTerms(strings.Join(many, " ")); len(got) != MaxQueryTerms {
		t.Fatalf("cap: %d terms", len(got))
	}
}

func uniq(s []string) []string {
	m := map[string]bool{}
	var out []string
	for _, x := range s {
		if !m[x] {
			m[x] = true
			out = append(out, x)
		}
	}
	return out
}

func BenchmarkAnalyzerTerms(b *testing.B) {
	a := NewAnalyzer()
	text := "Imogen sketched a lighthouse last year and shared it with her kids; Rosalind's beekeeping club meets on Tuesdays."
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		a.Terms(text)
	}
}

// A closed compound the vocabulary does not know is indexed by its parts
// too, so a query for the head word finds it; a query keeps the whole word,
// and a known word, a short one or a suffix is never split.
func TestAnalyzerCompounds(t *testing.T) {
	t.Parallel()
	a := NewAnalyzer()
	tests := []struct {
		doc   string
		query string
		match bool
	}{
		{"packed my snowboots for the trip", "which boots did I pack?", true},
		{"the desklamp flickers again", "is the lamp broken?", true},
		{"the desklamp flickers again", "what is on my desk?", true},
		{"a long weekend in the hills", "how did it end?", false},       // "weekend" is a known word
		{"reset the password twice", "which word did I forget?", false}, // so is "password"
		{"the litter is scoopable", "am I able to come?", false},        // "-able" is a suffix, not a head
		{"my bookcase is full", "which case?", false},                   // too short to split
	}
	for _, tc := range tests {
		doc := a.Terms(tc.doc)
		got := false
		for _, q := range a.QueryTerms(tc.query) {
			got = got || slices.Contains(doc, q)
		}
		if got != tc.match {
			t.Errorf("%q for %q: match %v, want %v (doc terms %v)", tc.doc, tc.query, got, tc.match, doc)
		}
	}
	// The query side keeps the compound whole.
	if q := a.QueryTerms("where are my snowboots?"); slices.Contains(q, "boot") || slices.Contains(q, "snow") {
		t.Errorf("query terms %v split the compound", q)
	}
}

// Words the stemmer folds into a word of another meaning keep their own
// term: "likely" is no form of "like", "evening" none of "even".
func TestAnalyzerStemExceptions(t *testing.T) {
	t.Parallel()
	a := NewAnalyzer()
	for _, tc := range []struct{ a, b string }{
		{"rain is likely tonight", "what do I like?"},
		{"quiet evenings at home", "is it even?"},
		{"she applied to the university", "a theory of the universe"},
		{"I've hardly slept", "that was hard"},
	} {
		da, qb := a.Terms(tc.a), a.QueryTerms(tc.b)
		for _, q := range qb {
			if slices.Contains(da, q) {
				t.Errorf("%q matches %q on %q", tc.a, tc.b, q)
			}
		}
	}
	// The exceptions still match themselves.
	if q := a.QueryTerms("likely"); !slices.Contains(a.Terms("it is likely"), q[0]) {
		t.Errorf("likely does not match itself")
	}
}
