package extract

import (
	"strings"

	"github.com/mnemon-dev/mnemon/memory"
)

// bareState reads a speaker's diet or allergy said with no subject and no
// verb, as chat does: "Vegetarian since uni.", "Lactose intolerant,
// sadly.", "Severe sesame allergy here.", "Peanut allergy, so no satay".
// Only a clause that opens its sentence counts, and only when the state
// ends there or an aside follows ("since", "now", a comma): "Vegan cheese
// is fine" and "Peanut allergy is on the rise" say nothing of the speaker.
func (x *extraction) bareState(ts []token, f flags) bool {
	if !x.lead && !x.soSelf || f.not {
		return false
	}
	if n := dietLen(ts, 0); n > 0 {
		if is(ts, n, "i") && is(ts, n+1, "suppose", "guess", "think", "reckon") {
			f.hedge = true // "pescatarian I suppose": said, but not firmly
		} else if !bareEnd(ts, n) {
			return false
		}
		x.emit(x.speaker, f, claim{typ: memory.TypeFact, key: "diet", value: strings.ToLower(x.text(ts, n)), tmpl: tmDiet})
		return true
	}
	j := 0
	for allergySeverity[lowAt(ts, j)] {
		j++
	}
	end := allergenEnd(ts, j)
	if end < 0 || !bareEnd(ts, end+1) || !validValue(ts[j:end]) {
		return false
	}
	if is(ts, j, "my", "his", "her", "their", "our", "the", "a", "an", "food", "seasonal") {
		return false // "my allergies", "food allergies": no allergen named
	}
	item := x.text(ts[j:], end-j)
	if rest := item[1:]; strings.ToLower(rest) == rest {
		item = strings.ToLower(item) // "Sesame allergy" opens a sentence; the allergen is "sesame"
	}
	if p, ok := allergenPlurals[strings.ToLower(item)]; ok {
		item = p
	}
	f.high = true
	x.emit(x.speaker, f, claim{typ: memory.TypeFact, key: "allergic_to:" + Slug(item), value: item, tmpl: tmAllergy})
	return true
}

// allergenEnd returns where "allergy" or "allergies" comes after one to
// three words at ts[j] ("a nut allergy", "tree nut allergies"), or -1.
func allergenEnd(ts []token, j int) int {
	end := j
	for end < len(ts) && end < j+3 && ts[end].kind == tWord && !is(ts, end, "allergy", "allergies") {
		end++
	}
	if end == j || !is(ts, end, "allergy", "allergies") {
		return -1
	}
	return end
}

// dietLen returns how many tokens at ts[k] name a diet ("vegan",
// "lactose intolerant"), or 0.
func dietLen(ts []token, k int) int {
	if k+1 < len(ts) && diets[ts[k].low+" "+ts[k+1].low] {
		return 2
	}
	if diets[lowAt(ts, k)] {
		return 1
	}
	return 0
}

// bareEnd reports whether a bare state ends at ts[k]: the clause ends, a
// punctuation mark follows, or a word that adds when or how sure
// ("since", "for years", "now", "here", "sadly").
func bareEnd(ts []token, k int) bool {
	return k >= len(ts) || ts[k].kind == tPunct || bareTails[ts[k].low]
}

// allergySeverity grade an allergy before its allergen: "severe peanut
// allergy".
var allergySeverity = wordSet("identity", "allergy-severity")

// bareTails may follow a bare state: "Vegetarian since uni", "Pescatarian
// these days", "Shellfish allergy here".
var bareTails = wordSet("identity", "bare-state-tails")
