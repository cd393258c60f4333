package extract

// This file finds who a clause is about: the speaker, the team or project,
// or someone else. Other people's statements never land on the speaker.

import "strings"

// droppedSubject reports whether a clause is a first-person statement with
// its "I" left out: a past change ("Switched to Neovim"), a progressive
// state ("Living in Porto now"), "no longer"/"used to", or a fandom ("Big
// fan of Rust", "Not a fan of Java"): the [dropped-subject] table of
// lexicons/cue-patterns.txt, or a dislike of [not-keen] ("not big on X").
func droppedSubject(ts []token) bool {
	if e, _, ok := matchCue(droppedSubjectCues, ts); ok {
		// "Learning German these days." drops "I'm"; "Learning a language
		// is so much fun" has its gerund for a subject.
		return e&cueDropped != 0 && (e&cueGerund == 0 || !gerundSubject(ts))
	}
	return cueLen(notKeenCues, ts) > 0
}

// componentNouns after "our"/"the" name one part of a project; its facts get
// their own slots ("our backend uses Go", "our frontend uses TypeScript").
var componentNouns = wordSet("subjects", "component-nouns")

// componentHeads are [component-heads] of lexicons/subjects.txt: a noun
// that may follow a part's without naming another ("our backend service",
// "the api layer").
var componentHeads = wordSet("subjects", "component-heads")

// parseSubject reads the clause's subject. ok is false when the clause
// starts with no subject the rules know.
func (x *extraction) parseSubject(ts []token) (subject, []token, bool) {
	w := lowAt(ts, 0)
	switch {
	case w == "i":
		return x.speaker, ts[1:], true
	case w == "we":
		k := 1
		if is(ts, 1, "all", "both") {
			k++
		}
		s := x.team
		s.we = true
		return s, ts[k:], true
	case w == "my":
		if s, n, ok := x.relation(ts, 1); ok {
			return s, ts[n:], true
		}
		if teamNouns[lowAt(ts, 1)] && !is(ts, 2, "'s") {
			return x.teamPart(x.text(ts[1:], 1)), ts[2:], true
		}
		return subject{}, nil, false
	case w == "our" || ((w == "the" || w == "this") && (teamNouns[lowAt(ts, 1)] || componentNouns[lowAt(ts, 1)])):
		k := 1 + cueLen(teamAdjectiveCues, ts[1:]) // [team-adjectives]
		if (teamNouns[lowAt(ts, k)] || componentNouns[lowAt(ts, k)]) && (!is(ts, k+1, "'s") || is(ts, k+2, "on", "hosted", "running", "deployed", "written", "built")) {
			// "the app's on Render": "'s" is "is" before where it runs.
			rest := ts[k+1:]
			if componentNouns[lowAt(ts, k)] && componentHeads[lowAt(rest, 0)] && !is(rest, 1, "'s") {
				rest = rest[1:] // "our backend service is on go": the backend's
			}
			return x.teamPart(x.text(ts[k:], 1)), rest, true
		}
		return subject{}, nil, false
	case cueLen(hostedAtCues, ts) > 0:
		// "Everything runs on Render now", "it all lives on one VPS": the
		// team's whole stack ([hosted-at] of lexicons/cue-patterns.txt).
		return x.team, ts[cueLen(hostedAtCues, ts):], true
	case w == "the" && is(ts, 1, "user") && !is(ts, 2, "'s"):
		return subject{kind: sPerson, id: "user", name: "The user"}, ts[2:], true
	case w == "the" && k1Capital(ts) && is(ts, 2, "project", "repo", "app", "service", "team", "codebase"):
		return x.named(ts[1:2]), ts[3:], true
	}
	if len(ts) < 2 || ts[0].kind != tWord || subjectStopWords[w] {
		return subject{}, nil, false
	}
	if x.project != "" && Slug(ts[0].low) == x.project && !is(ts, 1, "'s") {
		return x.namedTeam(ts[:1]), ts[1:], true
	}
	if !ts[0].capital {
		return subject{}, nil, false
	}
	n := 1
	for n < len(ts) && n < 3 && ts[n].kind == tWord && ts[n].capital && !subjectStopWords[ts[n].low] {
		n++
	}
	next := lowAt(ts, n)
	if next == "'s" && (is(ts, n+1, "allergic", "fluent", "from", "originally", "based") && !is(ts, n+2, "reaction", "reactions") || bareDietAt(ts, n+1)) {
		// "Tom's allergic to nuts", "Tom's vegan now": "'s" is "is"
		// ("Mia's vegan cookbook" is hers).
		return x.named(ts[:n]), ts[n:], true
	}
	if !personVerbs[next] || next == "'s" {
		return subject{}, nil, false
	}
	return x.named(ts[:n]), ts[n:], true
}

func k1Capital(ts []token) bool { return len(ts) > 1 && ts[1].capital && ts[1].kind == tWord }

// named makes a subject of a capitalised name; the event's project by name
// is the team.
func (x *extraction) named(ts []token) subject {
	if len(ts) > 1 && (ts[0].low == "project" || ts[0].low == "team") {
		ts = ts[1:] // "Project Atlas" is Atlas
	}
	name := x.text(ts, len(ts))
	id := Slug(name)
	if x.project != "" && id == x.project {
		return x.namedTeam(ts)
	}
	return subject{kind: sNamed, id: id, name: name}
}

func (x *extraction) namedTeam(ts []token) subject {
	s := x.team
	s.name = displayName(x.text(ts, len(ts)))
	return s
}

// teamPart is the team, or one of its components ("our backend", "our
// CI"), named as written.
func (x *extraction) teamPart(noun string) subject {
	s := x.team
	if low := strings.ToLower(noun); componentNouns[low] {
		s.comp, s.whole = Slug(low), s.name
		s.name = possessive(s.name) + " " + noun
	}
	return s
}

// relation reads "sister", "older brother", "best friend" after "my" at
// ts[k]; the subject is that person, never the speaker.
func (x *extraction) relation(ts []token, k int) (subject, int, bool) {
	j := k
	for j < len(ts) && relationAdjectives[ts[j].low] && j < k+2 {
		j++
	}
	if j >= len(ts) || !relationNouns[ts[j].low] {
		return subject{}, 0, false
	}
	noun := ts[j].low
	if is(ts, j-1, "best") {
		noun = "best " + noun
	}
	if is(ts, j-1, "tech", "team", "engineering", "product", "project") && noun == "lead" {
		noun = ts[j-1].low + " lead"
	}
	// "my colleague Bob uses Emacs": the name is the subject.
	if j+1 < len(ts) && ts[j+1].capital && ts[j+1].kind == tWord && !subjectStopWords[ts[j+1].low] && personVerbs[lowAt(ts, j+2)] {
		name := x.text(ts[j+1:], 1)
		return subject{kind: sPerson, id: Slug(name), name: name}, j + 2, true
	}
	return subject{kind: sPerson, id: Slug(noun), name: possessive(x.speaker.name) + " " + noun}, j + 1, true
}

// gerundSubject reports a clause whose opening gerund phrase is its
// subject: a verb of being or seeming follows it ("Learning a language is
// tough", "Enjoying the ride was key"). The [gerund-subjects] table of
// lexicons/cue-patterns.txt is tried at each of the seven words after the
// gerund; the first match decides.
func gerundSubject(ts []token) bool {
	for k := 1; k < len(ts) && k < 8; k++ {
		if e, ok := firstCueAt(gerundSubjectCues, ts, k); ok {
			return e&cueNoun != 0
		}
	}
	return false
}

// bareDietAt reports a diet at k that ends its clause or is followed by
// when ("vegan now", "vegan since May", "vegan, apparently"), not a noun it
// describes ("a vegan cookbook").
func bareDietAt(ts []token, k int) bool {
	n := dietLen(ts, k)
	if n == 0 {
		return false
	}
	e := k + n
	return e >= len(ts) || ts[e].kind == tPunct || is(ts, e, "now", "these", "nowadays", "since", "for", "too", "again", "apparently", "lol", "tbh", "btw", "and", "but", "so")
}
