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
var places = set(append(wordList("places", "places"), wordList("places", "countries")...)...)

// regions follow a city after a comma and end its name: states, provinces
// and countries ("Athens, Georgia", "Kingston, Ontario", "Valencia, Spain").
var regions = set(append(wordList("places", "regions"), wordList("places", "countries")...)...)

// regionAfter returns how many tokens of ts, from k, name a region (up to
// three words, the longest listed), or 0.
func regionAfter(ts []token, k int) int {
	for n := 3; n >= 1; n-- {
		if k+n > len(ts) {
			continue
		}
		words := make([]string, n)
		for i := range n {
			if ts[k+i].kind != tWord || !ts[k+i].capital {
				words = nil
				break
			}
			words[i] = ts[k+i].low
		}
		if words != nil && regions[strings.Join(words, " ")] {
			return n
		}
	}
	return 0
}

// cityRegion reports whether the comma at ts[k], inside the list ts[:end],
// joins a place to its region rather than separating two items: a
// capitalised name that is not itself a region, then a region that ends
// the list. "Athens, Georgia" is one place (or a title named after one);
// "Spain, France and Italy" and "Berlin, Paris" are lists.
func cityRegion(ts []token, k, end int) bool {
	if k == 0 || k+1 >= end || !ts[k-1].capital || ts[k-1].kind != tWord {
		return false
	}
	start := k - 1
	for start > 0 && ts[start-1].kind == tWord && ts[start-1].capital && k-start < 3 {
		start--
	}
	if regionAfter(ts[start:k], 0) == k-start {
		return false // the name before the comma is a region itself
	}
	n := regionAfter(ts, k+1)
	return n > 0 && k+1+n == end
}

// cityRegionEnds reports whether the comma at ts[k] joins a place to a
// region that ends the value: after the region comes the end, a
// punctuation mark or a word that cannot continue a name, never "and",
// "or" or another capital ("Athens, Georgia is my favourite town", not
// "Athens, Georgia and Utah").
func cityRegionEnds(ts []token, k int) bool {
	n := regionAfter(ts, k+1)
	if n == 0 {
		return false
	}
	j := k + 1 + n
	if j < len(ts) && (ts[j].kind == tWord && (ts[j].capital || is(ts, j, "and", "or")) || ts[j].kind == tQuote) {
		return false
	}
	return cityRegion(ts, k, j)
}

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

// futureTime reports a time ahead within the next few words of a move:
// "next year", "in the spring", "in a few weeks", "this coming June",
// "soon". With a verb that is not past it makes the move a plan.
func futureTime(ts []token) bool {
	for k := 0; k < len(ts) && k < 10; k++ {
		if ts[k].kind == tPunct && ts[k].low != "," {
			return false
		}
		if _, ok := firstCueAt(futureTimeCues, ts, k); ok { // [future-times]
			return true
		}
	}
	return false
}
