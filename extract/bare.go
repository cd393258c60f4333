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
	return x.readSlot(bareAllergySlots, x.speaker, verb{}, ts, f) // [bare-allergies]
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

// bareTails may follow a bare state: "Vegetarian since uni", "Pescatarian
// these days", "Shellfish allergy here".
var bareTails = wordSet("identity", "bare-state-tails")
