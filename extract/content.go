package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tmpl names the sentence family a candidate's content is written in.
type tmpl uint8

const (
	tmPrefers tmpl = iota
	tmFavorite
	tmLikes
	tmDislikes
	tmLivesIn
	tmMovingTo
	tmWorksAt
	tmFrom
	tmName
	tmRole
	tmUsesCat
	tmUsesFor
	tmUses
	tmDiet
	tmSpeaks
	tmAllergy
	tmAvoids
	tmRule
	tmDecideTo
	tmDecideOn
	tmDecision
	tmGoal
	tmGoalIs
	tmTrying
	tmLearning
	tmFact
)

// Variants of every family, in this order: current, past (CuePast),
// ended (CueNegation), hedged. Placeholders: {S} subject, {P} subject's
// possessive, {V} value, {A} value with an article, {C} category or topic
// words, {R} the subject's pronoun ("their", "its").
var templates = [...][4]string{
	tmPrefers:  {"{P} preferred {C} is {V}.", "{P} preferred {C} used to be {V}.", "{P} preferred {C} is no longer {V}.", "{P} preferred {C} may be {V}."},
	tmFavorite: {"{P} favorite {C} is {V}.", "{P} favorite {C} used to be {V}.", "{P} favorite {C} is no longer {V}.", "{P} favorite {C} may be {V}."},
	tmLikes:    {"{S} likes {V}.", "{S} used to like {V}.", "{S} no longer likes {V}.", "{S} may like {V}."},
	tmDislikes: {"{S} dislikes {V}.", "{S} used to dislike {V}.", "{S} no longer dislikes {V}.", "{S} may dislike {V}."},
	tmLivesIn:  {"{S} lives in {V}.", "{S} used to live in {V}.", "{S} no longer lives in {V}.", "{S} may move to {V}."},
	tmMovingTo: {"{S} plans to move to {V}.", "{S} once planned to move to {V}.", "{S} no longer plans to move to {V}.", "{S} may move to {V}."},
	tmWorksAt:  {"{S} works at {V}.", "{S} used to work at {V}.", "{S} no longer works at {V}.", "{S} may work at {V}."},
	tmFrom:     {"{S} is from {V}.", "{S} is from {V}.", "{S} is not from {V}.", "{S} may be from {V}."},
	tmName:     {"{P} name is {V}.", "{P} name used to be {V}.", "{P} name is no longer {V}.", "{P} name may be {V}."},
	tmRole:     {"{S} works as {A}.", "{S} used to work as {A}.", "{S} no longer works as {A}.", "{S} may work as {A}."},
	tmUsesCat:  {"{S} uses {V} as {R} {C}.", "{S} used to use {V} as {R} {C}.", "{S} no longer uses {V} as {R} {C}.", "{S} may use {V} as {R} {C}."},
	tmUsesFor:  {"{S} uses {V} for {C}.", "{S} used to use {V} for {C}.", "{S} no longer uses {V} for {C}.", "{S} may use {V} for {C}."},
	tmUses:     {"{S} uses {V}.", "{S} used to use {V}.", "{S} no longer uses {V}.", "{S} may use {V}."},
	tmDiet:     {"{S} is {V}.", "{S} used to be {V}.", "{S} is no longer {V}.", "{S} may be {V}."},
	tmSpeaks:   {"{S} speaks {V}.", "{S} used to speak {V}.", "{S} no longer speaks {V}.", "{S} may speak {V}."},
	tmAllergy:  {"{S} is allergic to {V}.", "{S} used to be allergic to {V}.", "{S} is no longer allergic to {V}.", "{S} may be allergic to {V}."},
	tmAvoids:   {"{S} does not eat {V}.", "{S} used to avoid {V}.", "{S} eats {V} again.", "{S} may avoid {V}."},
	tmRule:     {"{S} set a rule: {V}.", "{S} once had a rule: {V}.", "{S} dropped a rule: {V}.", "{S} suggested a rule: {V}."},
	tmDecideTo: {"{S} decided to {V}.", "{S} had decided to {V}.", "{S} decided not to {V}.", "{S} may decide to {V}."},
	tmDecideOn: {"{S} decided on {V}{C}.", "{S} had decided on {V}{C}.", "{S} decided against {V}{C}.", "{S} may decide on {V}{C}."},
	tmDecision: {"{S} decided: {V}.", "{S} had decided: {V}.", "{S} reversed a decision: {V}.", "{S} is leaning toward: {V}."},
	tmGoal:     {"{S} wants to {V}.", "{S} used to want to {V}.", "{S} no longer wants to {V}.", "{S} may want to {V}."},
	tmGoalIs:   {"{P} goal is {V}.", "{P} goal used to be {V}.", "{P} goal is no longer {V}.", "{P} goal may be {V}."},
	tmTrying:   {"{S} is trying to {V}.", "{S} was trying to {V}.", "{S} is no longer trying to {V}.", "{S} may try to {V}."},
	tmLearning: {"{S} is learning {V}.", "{S} was learning {V}.", "{S} is no longer learning {V}.", "{S} may learn {V}."},
	tmFact:     {"{P} {C} is {V}.", "{P} {C} used to be {V}.", "{P} {C} is no longer {V}.", "{P} {C} may be {V}."},
}

// render writes a candidate's content sentence.
func render(t tmpl, s subject, value, cat string, cue Cue, hedged bool) string {
	variant := 0
	switch {
	case hedged:
		variant = 3
	case cue == CueNegation:
		variant = 2
	case cue == CuePast:
		variant = 1
	}
	pattern := templates[t][variant]
	value = strings.TrimRight(value, ".!?,;: ")
	if t == tmRule || t == tmDecision {
		value = lowerFirst(value)
	}
	var b strings.Builder
	b.Grow(len(pattern) + len(value) + len(cat) + 24)
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c != '{' || i+2 >= len(pattern) || pattern[i+2] != '}' {
			b.WriteByte(c)
			continue
		}
		switch pattern[i+1] {
		case 'S':
			b.WriteString(s.name)
		case 'P':
			b.WriteString(possessive(s.name))
		case 'V':
			b.WriteString(thirdPerson(value, s))
		case 'A':
			b.WriteString(withArticle(thirdPerson(value, s)))
		case 'C':
			b.WriteString(cat)
		case 'R':
			b.WriteString(s.pronoun())
		}
		i += 2
	}
	return b.String()
}

func possessive(name string) string {
	if strings.HasSuffix(name, "'s") {
		return name
	}
	return name + "'s"
}

// lowerFirst lowercases the first letter of a rule or decision quoted after
// a colon, unless it starts an acronym or a name ("Always use pnpm" →
// "always use pnpm", "NEVER push" stays).
func lowerFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 || !unicode.IsUpper(r) {
		return s
	}
	if size < len(s) {
		n, _ := utf8.DecodeRuneInString(s[size:])
		if unicode.IsUpper(n) {
			return s
		}
	}
	first := strings.ToLower(s[:size])
	w := s
	if i := strings.IndexByte(s, ' '); i > 0 {
		w = s[:i]
	}
	if lw := strings.ToLower(w); !imperativeStarters[lw] && !imperativeVerbs[lw] {
		return s
	}
	return first + s[size:]
}

// imperativeStarters are the first words of rules whose capital is only
// sentence case.
var imperativeStarters = wordSet("content", "imperative-starters")

// withArticle prefixes a role with "a" or "an" unless it already has a
// determiner: "backend engineer" → "a backend engineer", "SRE" → "an SRE".
func withArticle(v string) string {
	lw := strings.ToLower(v)
	for _, d := range []string{"a ", "an ", "the ", "my ", "our "} {
		if strings.HasPrefix(lw, d) {
			return v
		}
	}
	if v == "" {
		return v
	}
	first := v
	if i := strings.IndexByte(v, ' '); i > 0 {
		first = v[:i]
	}
	an := false
	if len(first) > 1 && strings.ToUpper(first) == first && isASCIIAlpha(first) {
		// Acronyms go by the letter's name: an SRE, an MBA, a CTO.
		an = strings.IndexByte("AEFHILMNORSX", first[0]) >= 0
	} else {
		an = strings.IndexByte("aeiouAEIOU", first[0]) >= 0
		if strings.HasPrefix(lw, "uni") || strings.HasPrefix(lw, "use") || strings.HasPrefix(lw, "eu") || strings.HasPrefix(lw, "one") {
			an = false
		}
		if strings.HasPrefix(lw, "hour") || strings.HasPrefix(lw, "honest") {
			an = true
		}
	}
	if an {
		return "an " + v
	}
	return "a " + v
}

func isASCIIAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// displayName capitalises a lowercase identifier for content sentences:
// "alice" → "Alice"; names already capitalised are kept.
func displayName(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// firstPerson maps the speaker's own words to third person for content
// sentences ("help people like me" → "help people like them"),
// teamFirstPerson a team's "we", "our", "us": [first-person] and
// [team-first-person] of lexicons/content.txt.
var (
	firstPerson     = wordPairs("content", "first-person")
	teamFirstPerson = wordPairs("content", "team-first-person")
)

// thirdPerson rewrites first-person words in a value ("camping trips with
// my family") so the content sentence speaks of the subject ("...with their
// family"). The value itself keeps the words as stated.
func thirdPerson(v string, s subject) string {
	table := firstPerson
	if s.kind == sTeam || s.kind == sNamed {
		table = teamFirstPerson
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(v); {
		j := i
		for j < len(v) && (isASCIIAlpha(v[j:j+1]) || v[j] == '\'' || strings.HasPrefix(v[j:], "’")) {
			if v[j] == '\'' {
				j++
			} else if strings.HasPrefix(v[j:], "’") {
				j += len("’")
			} else {
				j++
			}
		}
		if j == i {
			b.WriteByte(v[i])
			i++
			continue
		}
		w := v[i:j]
		if r, ok := table[strings.ReplaceAll(strings.ToLower(w), "’", "'")]; ok {
			b.WriteString(r)
			changed = true
		} else {
			b.WriteString(w)
		}
		i = j
	}
	if !changed {
		return v
	}
	return b.String()
}
