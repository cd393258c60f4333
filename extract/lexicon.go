package extract

import "strings"

// The tables in this file are read-only after package initialisation. They
// are what lets different phrasings of one personal choice land in one slot:
// "I use Neovim", "my favorite editor is Neovim" and "I switched to Neovim"
// all mean prefers:editor because the lexicon knows Neovim is an editor.

// lexicon maps a lowercased name to its category.
var lexicon = buildLexicon(wordGroups("categories"))

// ambiguousHead lists lexicon words that are too common to name a category
// from the first word of a longer phrase ("go" in "go with", "make" in
// "make sure", "c" in "c level").
var ambiguousHead = wordSet("lexicon", "ambiguous-head")

func buildLexicon(byCat map[string][]string) map[string]string {
	m := make(map[string]string, 800)
	for cat, names := range byCat {
		for _, n := range names {
			if prev, ok := m[n]; ok && prev != cat {
				// Listed under two kinds: CategoryOf reads the name's
				// case (ambiguousNames); the lexicon keeps the tool.
				c, known := ambiguousNames[n]
				if !known {
					// TestLexiconFilesAreWellFormed reports it; no map
					// order may decide, so the name stays out.
					lexiconProblems = append(lexiconProblems, "lexicons/categories.txt: "+n+" is listed under "+prev+" and "+cat+"; add it to ambiguousNames")
					delete(m, n)
					continue
				}
				m[n] = c.tool
				continue
			}
			m[n] = cat
		}
	}
	return m
}

// nameParts maps each word of a name of several words to the categories
// of those names: "mint" to os (Linux Mint), "pop" to os (Pop OS). A word
// alone may stand for the name, but only where something else says which
// kind is meant (readsAs).
var nameParts = buildNameParts(wordGroups("categories"))

func buildNameParts(byCat map[string][]string) map[string]map[string]bool {
	m := map[string]map[string]bool{}
	for cat, names := range byCat {
		for _, n := range names {
			words := strings.Fields(n)
			if len(words) < 2 {
				continue
			}
			for _, w := range words {
				if len(w) < 3 {
					continue
				}
				if m[w] == nil {
					m[w] = map[string]bool{}
				}
				m[w][cat] = true
			}
		}
	}
	return m
}

// readsAs reports whether value can name a thing of category cat: its own
// category, the other kind of a name listed under two, or the category of
// a longer name it is a word of ("Mint" for Linux Mint).
func readsAs(value, cat string) bool {
	if c, ok := CategoryOf(value); ok && c == cat {
		return true
	}
	v := strings.ToLower(strings.TrimSpace(value))
	if a, ok := ambiguousNames[v]; ok && (a.tool == cat || a.other == cat) {
		return true
	}
	if c, ok := lexicon[v]; ok && c == cat {
		return true
	}
	return nameParts[v][cat]
}

// ambiguousNames settles the names the lexicon lists under two kinds: a
// capitalised name is the tool ("I use Black", "we moved to Spring",
// "Opera is my browser"), a lower-case one the everyday thing ("I like
// black", "I love spring", "I love the opera"). No map order decides.
var ambiguousNames = map[string]struct{ tool, other string }{
	"black":  {"formatter", "color"},
	"opera":  {"browser", "music"},
	"spring": {"framework", "season"},
}

// categorySynonyms maps category nouns (and the gerunds used in "we use X
// for Y") to one canonical category, so "coding language" and "programming
// language" share a slot.
var categorySynonyms = buildSynonyms(wordGroups("category-synonyms"))

func buildSynonyms(byCat map[string][]string) map[string]string {
	m := make(map[string]string, 300)
	for cat, names := range byCat {
		for _, n := range names {
			m[n] = cat
		}
	}
	return m
}

// categoryQualifiers are words in a category phrase that do not change the
// category: "my favorite text editor", "preferred shell", "go-to language".
var categoryQualifiers = []string{"my", "our", "the", "a", "an", "its", "their", "his", "her",
	"favorite", "favourite", "preferred", "go-to", "go to", "goto", "default", "main", "primary",
	"usual", "daily", "current", "personal", "own", "all-time", "all time", "absolute",
	"number one", "#1", "new", "everyday", "regular", "chosen", "standard", "only", "top",
	"most", "best", "very", "fav", "fave", "preferred"}

// categoryWords renders a few canonical categories more naturally in content
// sentences than the underscores-to-spaces default.
var categoryWords = map[string]string{
	"os": "operating system", "ci": "CI system", "tv_show": "TV show",
	"infrastructure_as_code": "infrastructure-as-code tool", "api_style": "API style",
	"code_host": "code host", "mobile_os": "mobile operating system",
	"observability": "observability tool", "hosting": "hosting platform",
	"notes": "notes app", "cloud": "cloud provider", "multiplexer": "terminal multiplexer", "chat": "chat app",
	"pet": "pet", "theme": "theme", "issue_tracker": "issue tracker",
	"container": "container tool", "orchestration": "orchestrator", "cache": "cache",
	"message_queue": "message queue", "music_player": "music service",
	"logging_library": "logging library",
}

// relationNouns are people the speaker talks about ("my sister", "my boss").
// Their preferences belong to them, never to the speaker.
var relationNouns = wordSet("lexicon", "relation-nouns")

// relationAdjectives qualify a relation without changing who it is.
var relationAdjectives = wordSet("lexicon", "relation-adjectives")

// teamNouns after "my"/"our"/"the"/"this" mean the project or team itself.
var teamNouns = wordSet("lexicon", "team-nouns")

// roleHeads are nouns that end a job-title phrase ("senior backend
// engineer", "product manager"); "I'm a <role>" needs one, so "I'm a bit
// tired" never becomes a role.
var roleHeads = wordSet("lexicon", "role-heads")

// diets are answers to "I'm ___" that describe what the speaker eats.
var diets = wordSet("lexicon", "diets")

// notNames are capitalised words after "I'm" that are not names: demonyms,
// adjectives, states, days and months ("I'm English", "I'm Sorry", "I'm Free").
var notNames = wordSet("lexicon", "not-names")

// pronounValues can never be a slot's value: "I love this", "I like that
// idea", "I work for myself".
var pronounValues = wordSet("lexicon", "pronoun-values")

// subjectStopWords are capitalised sentence openers that are never a named
// subject ("Everyone uses Slack" is not about a project called Everyone).
var subjectStopWords = wordSet("lexicon", "subject-stop-words")

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
