package engine

import "testing"

func TestKeywordQuery(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		query string
		terms []string
		want  bool
	}{
		{"friday standup", []string{"friday", "standup"}, true},
		{"Redis timeout, staging", []string{"redi", "timeout", "stage"}, true},
		{"kafka", []string{"kafka"}, false},                                      // one word: nothing to coordinate
		{"where is the app hosted?", []string{"app", "host"}, false},             // a question: stop words dropped
		{"app hosted?", []string{"app", "host"}, false},                          // a question mark
		{"the app hosting", []string{"app", "host"}, false},                      // a stop word dropped
		{"deploy deploy rollback", []string{"deploy", "rollback"}, false},        // a repeated word
		{"a b c d e f g", []string{"b", "c", "d", "e", "f", "g", "h"}, false},    // too many terms for keywords
		{"what does she do on weekends", []string{"weekend"}, false},             // a sentence
		{"postgres pgvector hnsw", []string{"postgr", "pgvector", "hnsw"}, true}, // stems count as the word
		{"café opening hours", []string{"café", "open", "hour"}, true},           // letters beyond ASCII
		{"v2 rollout", []string{"v2", "rollout"}, true},                          // digits are word characters
	} {
		if got := keywordQuery(c.query, c.terms); got != c.want {
			t.Errorf("keywordQuery(%q, %q) = %v, want %v", c.query, c.terms, got, c.want)
		}
	}
}
