// Package wordruns finds the runs of four words two texts share, for the
// tests that keep the extractor's rules and mnemon's own scenarios apart
// from the benchmarks they are measured on: a rule or a scenario sentence
// that shares four words in a row with a benchmark's text was likely
// copied from it.
package wordruns

import (
	"regexp"
	"strings"
)

// Len is how many words make a run.
const Len = 4

var (
	words = regexp.MustCompile(`[a-z0-9']+`)
	// placeholder is a slot of a template ("{v}", "{S}"): not a word, so
	// no run crosses it.
	placeholder = regexp.MustCompile(`\{[A-Za-z]+\}`)
	// common are the words a run of ordinary English is made of; a run
	// of them alone says nothing about where a text came from.
	common = map[string]bool{}
)

func init() {
	for _, w := range strings.Fields(`a an the and or but so if of to in on at by for with from as is are was
		were be been am i i'm me my you your it it's its he she her him his we our they them their this that
		these those there here what who how when where which not no do does did have has had will would can
		could should just all any some one up out about into over then than too very more most`) {
		common[w] = true
	}
}

// Of returns the runs of Len words of text, lowercased, leaving out runs
// of common words only.
func Of(text string) []string {
	var out []string
	for _, piece := range placeholder.Split(text, -1) {
		w := words.FindAllString(strings.ToLower(piece), -1)
		for i := 0; i+Len <= len(w); i++ {
			run := w[i : i+Len]
			plain := true
			for _, x := range run {
				plain = plain && common[x]
			}
			if !plain {
				out = append(out, strings.Join(run, " "))
			}
		}
	}
	return out
}
