package extract

import "strings"

// vform is a verb's inflection.
type vform uint8

const (
	fBase     vform = iota // live
	fThird                 // lives
	fPast                  // lived (also the participle of regular verbs)
	fGerund                // living
	fPartOnly              // been, gone, chosen: participles that are never simple past
)

type verb struct {
	lemma string
	form  vform
}

// verbs maps the inflections of every verb a rule reacts to: the
// [inflections] and [inflection-fixes] tables of lexicons/verbs.txt.
var verbs = buildVerbs(wordList("verbs", "inflections"), wordList("verbs", "inflection-fixes"))

// vforms names the forms of [inflection-fixes].
var vforms = map[string]vform{"base": fBase, "third": fThird, "past": fPast, "gerund": fGerund, "participle": fPartOnly}

func buildVerbs(rows, fixes []string) map[string]verb {
	m := make(map[string]verb, len(rows)*4)
	for _, line := range rows {
		r := strings.Fields(line)
		if len(r) < 4 {
			lexiconProblems = append(lexiconProblems, "lexicons/verbs.txt [inflections] "+line+": want lemma, third, past, gerund")
			continue
		}
		lemma := r[0]
		m[r[0]] = verb{lemma, fBase}
		m[r[1]] = verb{lemma, fThird}
		m[r[2]] = verb{lemma, fPast}
		m[r[3]] = verb{lemma, fGerund}
		for _, extra := range r[4:] {
			m[extra] = verb{lemma, fPartOnly}
		}
	}
	for _, line := range fixes {
		r := strings.Fields(line)
		f, ok := vform(0), false
		if len(r) == 3 {
			f, ok = vforms[r[2]]
		}
		if !ok {
			lexiconProblems = append(lexiconProblems, "lexicons/verbs.txt [inflection-fixes] "+line+": want form, lemma, base|third|past|gerund|participle")
			continue
		}
		m[r[0]] = verb{r[1], f}
	}
	return m
}

// changeVerbs are past-tense verbs that announce the new state rather than
// describe an old one: "I moved to Porto" means Porto is home now.
var changeVerbs = wordSet("verbs", "change-verbs")

// personVerbs, after a capitalised word, make it a person's or project's
// name rather than a sentence opener: "Bob prefers Emacs", "Atlas uses
// pnpm".
var personVerbs = wordSet("verbs", "person-verbs")

// adverbs between a subject and its verb. Some carry a cue or a hedge.
var adverbs = wordSet("verbs", "adverbs")

// corrAdverbs and hedgeAdverbs set flags when they sit between subject and
// verb: "I now live in Porto", "I probably prefer Vim".
var corrAdverbs = wordSet("verbs", "corr-adverbs")
var hedgeAdverbs = wordSet("verbs", "hedge-adverbs")
