package bench

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// BM25 is a plain Okapi BM25 index over short texts, the baseline every
// retrieval suite compares mnemon with: lower-cased runs of letters and
// digits, a short stop list, no stemming, k1 = 1.2, b = 0.75 and the
// non-negative idf ln(1 + (N − df + 0.5) / (df + 0.5)). It is deliberately
// not mnemon's search package, so the baseline stays plain when mnemon's
// tokenisation changes.
type BM25 struct {
	docs  []map[string]int // term frequencies per document
	lens  []int
	df    map[string]int
	avgdl float64
}

// BM25 parameters, as the LoCoMo reference numbers were measured.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// NewBM25 indexes texts; documents are known by their position.
func NewBM25(texts []string) *BM25 {
	ix := &BM25{df: make(map[string]int)}
	total := 0
	for _, t := range texts {
		tf := make(map[string]int)
		n := 0
		for _, w := range PlainTokens(t) {
			tf[w]++
			n++
		}
		for w := range tf {
			ix.df[w]++
		}
		ix.docs = append(ix.docs, tf)
		ix.lens = append(ix.lens, n)
		total += n
	}
	if len(texts) > 0 {
		ix.avgdl = float64(total) / float64(len(texts))
	}
	return ix
}

// Search returns the positions of the top k documents for query, best
// first; ties go to the earlier document. Documents matching no query
// term are not returned.
func (ix *BM25) Search(query string, k int) []int {
	terms := dedupe(PlainTokens(query))
	n := float64(len(ix.docs))
	type hit struct {
		doc   int
		score float64
	}
	var hits []hit
	for d, tf := range ix.docs {
		s := 0.0
		for _, w := range terms {
			f := float64(tf[w])
			if f == 0 {
				continue
			}
			df := float64(ix.df[w])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			s += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(ix.lens[d])/ix.avgdl))
		}
		if s > 0 {
			hits = append(hits, hit{d, s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	out := make([]int, 0, min(k, len(hits)))
	for i := 0; i < len(hits) && i < k; i++ {
		out = append(out, hits[i].doc)
	}
	return out
}

// PlainTokens lower-cases text and splits it into runs of letters and
// digits, dropping stop words.
func PlainTokens(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !plainStop(w) {
			out = append(out, w)
		}
	}
	return out
}

func dedupe(ws []string) []string {
	var out []string
	seen := make(map[string]bool, len(ws))
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// plainStop is the short stop list: articles, conjunctions, common
// prepositions, forms of be/do/have, question words and pronouns.
func plainStop(w string) bool {
	switch w {
	case "a", "an", "the", "and", "or", "of", "to", "in", "on", "at", "for", "with",
		"is", "are", "was", "were", "be", "been", "did", "do", "does", "has", "have", "had",
		"what", "when", "where", "who", "whom", "how", "why", "which", "that", "this", "it",
		"i", "you", "he", "she", "they", "we", "my", "your", "his", "her", "their", "our",
		"me", "him", "them", "us":
		return true
	}
	return false
}
