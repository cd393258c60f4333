package extract

import "strings"

// household reports whether a bare "we" doing v is the speaker's household
// rather than a team: "we live in", "we moved to Porto", "we settled in
// Porto", "we left Lisbon". A team moves to tools ("we moved to Postgres").
func (x *extraction) household(v verb, ts []token) bool {
	switch v.lemma {
	case "live", "reside":
		return true
	case "settle":
		if is(ts, 0, "down") {
			ts = ts[1:]
		}
		return is(ts, 0, "in", "near")
	case "move", "relocate":
		for k := 0; k < len(ts) && k < 10; k++ {
			if is(ts, k, "to", "into") {
				return !toKnownThing(ts[k:])
			}
		}
		return false
	case "leave":
		return knownPlace(ts)
	}
	return false
}

// knownPlace reports whether ts starts with a well-known city or country
// ("Lisbon", "New York", "the Netherlands"), so "I left Lisbon" is read as a
// move and not as leaving an employer called Lisbon.
func knownPlace(ts []token) bool {
	if is(ts, 0, "the") {
		ts = ts[1:]
	}
	if len(ts) == 0 || !ts[0].capital {
		return false
	}
	for n := 3; n >= 1; n-- {
		if n > len(ts) {
			continue
		}
		words := make([]string, n)
		for i := range n {
			words[i] = ts[i].low
		}
		key := words[0]
		for _, w := range words[1:] {
			key += " " + w
		}
		if places[key] {
			return true
		}
	}
	return false
}

// places are well-known cities and countries.
var places = wordSet("places", "places")

// commonNounCategories hold common nouns: "techno", "green tea", "ramen".
// Their values are stored in lower case whatever the sentence did ("Techno
// is all I put on" and "I listen to techno" store one value); names (editors,
// languages, cities, companies) keep their capitals.
var commonNounCategories = wordSet("places", "common-noun-categories")

// properAdjectives start common-noun values that keep their capital: "Thai
// curry", "French fries".
var properAdjectives = wordSet("places", "proper-adjectives")

// commonCase lowers the capital a common-noun value took from the start of
// a sentence: "Techno" → "techno", "Green tea" → "green tea". A value with
// any other capital ("Earl Grey", "Thai curry") or of another kind is kept.
func commonCase(v string) string {
	c, ok := CategoryOf(v)
	if !ok || !commonNounCategories[c] || v == "" || v[0] < 'A' || v[0] > 'Z' {
		return v
	}
	if strings.ToLower(v[1:]) != v[1:] {
		return v
	}
	first, _, _ := strings.Cut(strings.ToLower(v), " ")
	if properAdjectives[first] {
		return v
	}
	return strings.ToLower(v[:1]) + v[1:]
}
