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
var places = set(
	// cities
	"amsterdam", "athens", "atlanta", "austin", "auckland", "bangalore", "bangkok", "barcelona",
	"beijing", "belgrade", "berlin", "bogota", "boston", "brisbane", "brussels", "bucharest",
	"budapest", "buenos aires", "cairo", "calgary", "cape town", "chicago", "copenhagen",
	"dallas", "delhi", "denver", "detroit", "dubai", "dublin", "edinburgh", "frankfurt",
	"geneva", "glasgow", "hamburg", "helsinki", "hong kong", "honolulu", "houston", "istanbul",
	"jakarta", "johannesburg", "kyiv", "kiev", "kyoto", "lagos", "lima", "lisbon", "london",
	"los angeles", "lyon", "madrid", "manchester", "manila", "marseille", "melbourne",
	"mexico city", "miami", "milan", "montreal", "moscow", "mumbai", "munich", "nairobi",
	"naples", "new york", "new york city", "nyc", "oakland", "osaka", "oslo", "ottawa", "paris",
	"perth", "philadelphia", "phoenix", "portland", "porto", "prague", "reykjavik", "riga",
	"rio", "rio de janeiro", "rome", "rotterdam", "san diego", "san francisco", "san jose",
	"santiago", "sao paulo", "seattle", "seoul", "shanghai", "singapore", "sofia",
	"stockholm", "sydney", "taipei", "tallinn", "tel aviv", "tokyo", "toronto", "turin",
	"vancouver", "venice", "vienna", "vilnius", "warsaw", "washington", "wellington", "zagreb",
	"zurich", "la", "sf", "bay area",
	// countries
	"argentina", "australia", "austria", "belgium", "brazil", "canada", "chile", "china",
	"colombia", "croatia", "czechia", "denmark", "egypt", "england", "estonia", "finland",
	"france", "germany", "greece", "hungary", "iceland", "india", "indonesia", "ireland",
	"israel", "italy", "japan", "kenya", "korea", "latvia", "lithuania", "mexico", "morocco",
	"netherlands", "new zealand", "nigeria", "norway", "peru", "philippines", "poland",
	"portugal", "romania", "russia", "scotland", "serbia", "singapore", "south africa",
	"spain", "sweden", "switzerland", "taiwan", "thailand", "turkey", "ukraine", "uk",
	"united kingdom", "united states", "usa", "us", "vietnam", "wales")

// commonNounCategories hold common nouns: "techno", "green tea", "ramen".
// Their values are stored in lower case whatever the sentence did ("Techno
// is all I put on" and "I listen to techno" store one value); names (editors,
// languages, cities, companies) keep their capitals.
var commonNounCategories = set("drink", "food", "music", "color", "sport", "season",
	"indentation", "theme")

// properAdjectives start common-noun values that keep their capital: "Thai
// curry", "French fries".
var properAdjectives = set("thai", "indian", "mexican", "italian", "japanese", "chinese",
	"korean", "french", "vietnamese", "greek", "turkish", "ethiopian", "spanish", "american",
	"english", "irish", "british", "german", "belgian", "brazilian", "peruvian", "lebanese",
	"moroccan", "persian", "cuban", "jamaican", "hawaiian", "cajun", "neapolitan", "sicilian",
	"szechuan", "sichuan", "cantonese", "texas", "new", "earl", "latin", "k-pop", "j-pop")

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
