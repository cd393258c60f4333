package extract

import (
	"slices"
	"strings"
)

// SlotAliases returns other words people use for a slot when they ask
// about it: "beverage" for prefers:drink, "coding" for
// prefers:programming_language, "employer" for works_at. A search can find
// a fact by them as by its key's own words. Nil for a slot with none. The
// slice is shared: do not modify it.
func SlotAliases(key string) []string {
	if cat, ok := strings.CutPrefix(key, "prefers:"); ok {
		return categoryAliases[cat]
	}
	// A project's or team's tool of a known category ("uses:ci",
	// "uses:database:cache") is named by the category's nouns as a
	// person's is: "what's our pipeline?" asks for uses:ci.
	if rest, ok := strings.CutPrefix(key, "uses:"); ok {
		cat, _, _ := strings.Cut(rest, ":")
		return categoryAliases[cat]
	}
	if thing, ok := strings.CutPrefix(key, "name_of:"); ok && namedThing(strings.ReplaceAll(thing, "_", " ")) {
		if c, ok := CategoryOf(thing); ok && c == "pet" {
			return petAliases
		}
		return nil
	}
	return identityAliases[key]
}

// identityAliases are the words questions use for the identity slots.
var identityAliases = map[string][]string{
	"lives_in": {"live", "lives", "living", "home", "city", "town", "based", "reside", "resides", "resident"},
	"works_at": {"work", "works", "working", "employer", "employs", "employed", "company", "job", "workplace", "firm"},
	"from":     {"hometown", "origin", "born", "grew"},
	"role":     {"job", "title", "position", "occupation", "profession"},
}

// petAliases are the words for any pet.
var petAliases = []string{"pet", "pets", "animal"}

// categoryAliases maps a canonical category to the one-word nouns that
// name it (from categorySynonyms: "beverage" for drink, "genre" for
// music). Phrases are left out: their words alone ("hot" in "hot drink")
// would name nothing.
var categoryAliases = buildCategoryAliases()

func buildCategoryAliases() map[string][]string {
	m := make(map[string][]string)
	for phrase, cat := range categorySynonyms {
		if !strings.ContainsAny(phrase, " -/") {
			m[cat] = append(m[cat], phrase)
		}
	}
	// The programming language's questions say "coding" or "programming"
	// more often than "language" alone.
	m["programming_language"] = append(m["programming_language"], "coding", "programming", "code")
	for cat := range m {
		slices.Sort(m[cat]) // map order must not leak into the aliases' order
	}
	return m
}
