package extract

import (
	"strings"

	"github.com/mnemon-dev/mnemon/memory"
)

// IsRelationNoun reports whether word (lower case) names a person by their
// relation to the speaker ("sister", "flatmate", "boss"): "my sister ..."
// speaks of her, not of the speaker.
func IsRelationNoun(word string) bool { return relationNouns[word] }

// singleRelations are the relations a person has one of at a time ("my
// wife", "my boss"): their name fills the relation's name slot, and a new
// name replaces it. Others ("my son", "my friend") may be several people,
// each name a slot of its own ("name:theo"). The [single-relations] table
// of lexicons/lexicon.txt.
var singleRelations = wordSet("lexicon", "single-relations")

// relationNames reads a relation named in apposition in the speaker's
// sentence: "my daughter Mira started violin", "my manager, Priya, wants
// the deck", "my brother Ole lives in Oslo". The relation's name is a fact
// of the relation ("the user's daughter's name is Mira"), whatever else
// the sentence says of the person.
func (x *extraction) relationNames(ts []token, f flags) {
	if f.not || f.hedge || f.past {
		return
	}
	for i := 0; i+2 < len(ts); i++ {
		if !is(ts, i, "my") {
			continue
		}
		j := i + 1
		for j < len(ts) && relationAdjectives[ts[j].low] && j < i+3 {
			j++
		}
		if j >= len(ts) || ts[j].kind != tWord || !relationNouns[ts[j].low] || is(ts, j+1, "'s") {
			continue
		}
		noun := ts[j].low
		if strings.HasSuffix(noun, "s") && noun != "boss" || noun == "children" || noun == "family" {
			continue // "my kids Mira and Theo": several people, no one slot
		}
		if is(ts, j-1, "best") {
			noun = "best " + noun
		}
		k := j + 1
		comma := is(ts, k, ",")
		if comma {
			k++
		}
		n := 0
		for k+n < len(ts) && n < 2 && ts[k+n].kind == tWord && ts[k+n].capital && personName(ts[k+n].low) {
			n++
		}
		if n == 0 {
			continue
		}
		e := k + n
		switch {
		case comma && e < len(ts) && !is(ts, e, ",", ".", "!", ";", "-"):
			continue // "my boss, Priya wants it": a vocative or a list, no apposition
		case !comma && e < len(ts) && ts[e].kind == tWord && ts[e].capital:
			continue
		}
		name := x.text(ts[k:], n)
		key := "name"
		if !singleRelations[noun] {
			key = "name:" + Slug(name)
		}
		s := subject{kind: sPerson, id: Slug(noun), name: possessive(x.speaker.name) + " " + noun}
		x.emit(s, flags{}, claim{typ: memory.TypeFact, key: key, value: name, tmpl: tmName})
		i = e - 1
	}
}

// personName reports a word (lower case) that may be a person's first
// name: no word the lexicon knows as a thing, a month, a day or a
// common noun of the rules.
func personName(w string) bool {
	if notNames[w] || subjectStopWords[w] || valueStops[w] || pronounValues[w] || w == "i" {
		return false
	}
	if _, ok := lexicon[w]; ok {
		return false
	}
	return !strings.ContainsAny(w, "0123456789")
}

// phrasalSenses is the [phrasal-senses] table of lexicons/verbs.txt.
var phrasalSenses = wordPairs("verbs", "phrasal-senses")

// PhrasalSenses rewrites the phrasal verbs of text whose verb alone means
// something else ("work out" is no work) as the word a search should read
// ("workout"), so "where do I work out?" matches no employer.
func PhrasalSenses(text string) string {
	low := strings.ToLower(text)
	for phrase, sense := range phrasalSenses {
		for from := 0; ; {
			i := strings.Index(low[from:], phrase)
			if i < 0 {
				break
			}
			i += from
			end := i + len(phrase)
			if (i == 0 || !isWordByte(low[i-1])) && (end == len(low) || !isWordByte(low[end])) {
				text = text[:i] + sense + text[end:]
				low = low[:i] + sense + low[end:]
				end = i + len(sense)
			}
			from = end
		}
	}
	return text
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '\'' || b >= 0x80
}
