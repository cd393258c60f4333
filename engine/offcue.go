package engine

import (
	"strings"
	"unicode"

	"github.com/mnemon-dev/mnemon/search"
)

// Casual quits said with "off": "I'm off sugar these days", "been off
// Twitter since March", "went off dairy". Such a turn shares only the
// thing given up with the statement it ends ("I take sugar in my tea"),
// and "off" is no change word on its own ("I'm off to Berlin", "off
// work today", "the lights are off"), so followChanges reads it only
// when the word right after the "off" is one of the older turn's own
// words: the older turn named what was given up.

// offLeads come right before a quitting "off": a form of be or of going,
// said of the speaker and not a plan ("my brother is off sugar" is no
// quit of theirs, "going to go off sugar" none yet).
var offLeads = map[string]bool{
	"i'm": true, "im": true, "am": true, "been": true, "went": true, "gone": true, "we're": true,
	"got": true, "stay": true, "stayed": true, "staying": true,
}

// offAdverbs may stand between a lead and the "off": "I'm totally off".
var offAdverbs = map[string]bool{
	"totally": true, "completely": true, "fully": true, "mostly": true, "properly": true,
	"basically": true, "officially": true, "now": true, "finally": true, "pretty": true, "kind": true,
	"sort": true, "entirely": true, "right": true,
}

// offNotQuits follow an "off" that says no quit: a trip ("off to Lyon",
// "off on Friday"), time off ("off work", "off sick", "off today"), or a
// phrase ("off the top of my head", "off and on").
var offNotQuits = map[string]bool{
	"to": true, "on": true, "the": true, "a": true, "an": true, "at": true, "for": true, "in": true,
	"into": true, "and": true, "with": true, "from": true, "by": true, "until": true, "till": true,
	"work": true, "duty": true, "shift": true, "sick": true, "school": true, "today": true,
	"tomorrow": true, "tonight": true, "home": true, "now": true, "again": true, "early": true,
	"soon": true, "out": true, "this": true, "that": true, "next": true, "my": true, "our": true,
	"your": true, "his": true, "her": true, "their": true, "it": true, "guard": true, "course": true,
	"track": true, "topic": true, "base": true, "limits": true, "hours": true, "week": true,
	"weekend": true, "monday": true, "tuesday": true, "wednesday": true, "thursday": true,
	"friday": true, "saturday": true, "sunday": true, "so": true, "then": true, "as": true,
}

// offQuits returns the index terms of what a turn says its speaker is off
// ("sugar" in "I'm off sugar these days"), or nil when it says no such
// quit.
func offQuits(text string, an *search.Analyzer) []string {
	if !saysOff(text) {
		return nil // most turns: no split, no lowering
	}
	words := strings.FieldsFunc(strings.ToLower(strings.ReplaceAll(text, "’", "'")), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	var out []string
	for i, w := range words {
		if w != "off" || i == 0 || i+1 >= len(words) || offNotQuits[words[i+1]] {
			continue
		}
		lead := i - 1
		if offAdverbs[words[lead]] && lead > 0 {
			lead--
		}
		if !offLeads[words[lead]] {
			continue
		}
		out = append(out, an.QueryTerms(words[i+1])...)
	}
	return out
}

// saysOff reports whether text holds "off" in any case, without
// allocating: followChanges asks it of every later turn it looks at.
func saysOff(text string) bool {
	for i := 0; i+3 <= len(text); i++ {
		if text[i]|0x20 == 'o' && text[i+1]|0x20 == 'f' && text[i+2]|0x20 == 'f' {
			return true
		}
	}
	return false
}

// quitsNamed reports whether text says its speaker is off one of names.
func quitsNamed(text string, names []string, an *search.Analyzer) bool {
	for _, t := range offQuits(text, an) {
		if contains(names, t) {
			return true
		}
	}
	return false
}
