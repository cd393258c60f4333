package engine

import (
	_ "embed"
	"strings"
)

// Task domains (lexicons/task-domains.txt): the kind of errand a request
// is ("pack my lunch for the hike": food, travel) and the kind of standing
// rule or preference a memory is ("no cilantro ever": food). A task and a
// rule of one domain bind each other though they share no word, which
// the word vectors bridge too weakly to rank by (a request and the rule
// it must respect are about as similar as unrelated sentences).

//go:embed lexicons/task-domains.txt
var taskDomainFile string

// domainSet is a set of task domains, a bit each.
type domainSet uint32

var taskDomainNames, taskDomainWords, taskDomainPairs = parseTaskDomains(taskDomainFile)

// foodDomain is the food domain: a task in it is about a meal, so the
// user's allergies and diet bind it (queryFacts.meal).
var foodDomain = domainNamed("food")

func domainNamed(name string) domainSet {
	for i, n := range taskDomainNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// parseTaskDomains reads the domains file: [name] headers, then one word
// (or two in a row) a line; a word is split as lowerWords splits text, so
// "lo-fi" is the pair "lo fi".
func parseTaskDomains(text string) ([]string, map[string]domainSet, map[[2]string]domainSet) {
	var names []string
	words := map[string]domainSet{}
	pairs := map[[2]string]domainSet{}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			if len(names) < 32 {
				names = append(names, line[1:len(line)-1])
			}
		case len(names) > 0:
			bit := domainSet(1) << (len(names) - 1)
			switch ws := lowerWords(line); len(ws) {
			case 1:
				words[ws[0]] |= bit
			case 2:
				pairs[[2]string{ws[0], ws[1]}] |= bit
			}
		}
	}
	return names, words, pairs
}

// domainsOf returns the domains of lower-case words (lowerWords).
func domainsOf(ws []string) domainSet {
	var d domainSet
	for i, w := range ws {
		w = strings.TrimSuffix(w, "'s")
		d |= taskDomainWords[w]
		if i+1 < len(ws) {
			d |= taskDomainPairs[[2]string{w, ws[i+1]}]
		}
	}
	return d
}

// String names the domains of d, joined by '+' ("food+travel").
func (d domainSet) String() string {
	var parts []string
	for i, n := range taskDomainNames {
		if d&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, "+")
}

// memoryDomains returns the domains of a memory's words: its content and,
// for a fact, its key's ("prefers:drink").
func memoryDomains(content, key string) domainSet {
	d := domainsOf(lowerWords(content))
	if key != "" {
		d |= domainsOf(lowerWords(strings.NewReplacer(":", " ", "_", " ").Replace(key)))
	}
	return d
}

// someoneElsesTurn reports whether a turn speaks of someone other than
// the speaker: it opens on one of their people, a name or "she"/"he"
// ("she's vegan now"). Their rules do not bind the user's task.
func someoneElsesTurn(text string, sh turnShape) bool {
	if sh&(shapeOther|shapeOtherName|shapeOpensOther|shapeOpensName) != 0 {
		return true
	}
	ws := lowerWords(text)
	return len(ws) > 0 && (ws[0] == "she" || ws[0] == "he" || ws[0] == "she's" || ws[0] == "he's" || ws[0] == "they" || ws[0] == "they're")
}
