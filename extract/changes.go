package extract

// This file reads changes said in passing, which name no slot the way
// "I live in" or "I work at" do: a home bought or rented, a post on a team,
// a value corrected inside its own sentence, and what a new value
// replaced. A last day somewhere and other job changes are slot patterns
// (cues.go, lexicons/cue-patterns.txt).

import (
	"slices"
	"strings"
	"unicode"

	"github.com/mnemon-dev/mnemon/memory"
)

// made is how a candidate was written: enough to write it again with
// another value or cue.
type made struct {
	tmpl tmpl
	subj subject
	cat  string
	// denial is a plain "not" ("I don't live in Paris"): it may correct a
	// misunderstanding, so it never says the value was once true.
	denial bool
	// valueEnd is where a rule's value ends in the content (nextStep).
	valueEnd int
}

// speaksOfSelf reports whether ts speaks of the speaker: [self-words] of
// lexicons/subjects.txt.
func speaksOfSelf(ts []token) bool {
	return slices.ContainsFunc(ts, func(t token) bool { return selfWords[t.low] })
}

var selfWords = wordSet("subjects", "self-words")

// otherSubject reports a person other than the speaker among ts: a
// pronoun or a capitalised word past the first ("Tom's last day"), the
// [other-subjects] table of lexicons/cue-patterns.txt at every token.
func otherSubject(ts []token) bool {
	for k := range ts {
		if e, ok := firstCueAt(otherSubjectCues, ts, k); ok && e&cueSomeone != 0 {
			return true
		}
	}
	return false
}

// homeBought reads a home bought, rented or moved into: "we finally
// closed on a flat in Ghent", "I bought a little house in Leiden", "got
// the keys to our new place in Leeds", "signed the lease on an apartment
// in Lyon". The place is the speaker's home now; a holiday home, a
// rental bought to let, a home for someone else or one still being bought
// is not.
func (x *extraction) homeBought(ts []token, f flags) bool {
	for h := 0; h+2 < len(ts); h++ {
		// The home and "in" its place: [home-places].
		n := cueLen(homePlaceCues, ts[h:])
		if n == 0 || h+n >= len(ts) {
			continue
		}
		place := ts[h+n:]
		// The words before the home: a verb of getting it, then at most a
		// determiner and a few adjectives; or, when the message has just
		// said the keys were got, nothing but those.
		cue, e := -1, cueEffect(0)
		for k := h - 1; k >= 0 && k >= h-6 && cue < 0; k-- {
			if got, _, ok := matchCue(homeGettingCues, ts[k:]); ok {
				cue, e = k, got
			}
		}
		if cue < 0 && h <= 3 && x.gotKeys() && onlyModifiers(ts[:h]) {
			cue = 0
		}
		if cue < 0 {
			continue
		}
		if !speakerOpens(ts[:cue]) {
			return false // "my sister bought a flat in Ghent" is hers, and said with a verb
		}
		for _, t := range ts[cue:h] {
			if notOwnHome[t.low] {
				return true
			}
		}
		_, n = x.readValue(place, vPlace)
		if n == 0 {
			return false
		}
		if _, _, ok := matchCue(homeForOthersCues, place[n:]); ok {
			return true // "a flat in Ghent for my mum", "... to rent out"
		}
		if f.hedge || f.not || f.future || e&cueHedge != 0 {
			return true // "we're buying a house in Utrecht": not yet
		}
		for _, t := range ts[:cue] {
			if homeNotYet[t.low] {
				return true
			}
		}
		f.corr, f.past = true, false
		return x.place(x.speaker, place, f, "lives_in")
	}
	return false
}

// gotKeys reports a message saying, before the sentence read, that the
// speaker got the keys to a home: [got-keys].
func (x *extraction) gotKeys() bool {
	ts := tokenize(x.content, 0, x.start, nil)
	for k := range ts {
		if _, ok := firstCueAt(gotKeysCues, ts, k); ok {
			return true
		}
	}
	return false
}

var homeNotYet = wordSet("changes", "home-not-yet")

// onlyModifiers reports whether ts holds no more than a determiner and
// adjectives: no verb, no name.
func onlyModifiers(ts []token) bool {
	for k, t := range ts {
		if t.kind != tWord || verbLike(t.low) || k > 0 && t.capital || is(ts, k, "his", "her", "their", "your", "'s") {
			return false
		}
	}
	return true
}

// verbLike reports words that are verbs the rules know, or forms of "be".
func verbLike(w string) bool {
	_, ok := verbs[w]
	return ok
}

// notOwnHome qualify a home the speaker does not live in.
var notOwnHome = wordSet("changes", "not-own-home")

// speakerOpens reports whether the words before a clause's verb leave the
// speaker its subject: nothing (chat drops the "I"), "I", "we", "my
// partner and I", and adverbs or auxiliaries.
func speakerOpens(ts []token) bool {
	for k, t := range ts {
		switch {
		case speakerOpeners[t.low] || adverbs[t.low] || t.kind == tPunct:
		case partners[t.low] && hasWord(ts[k:], "i"):
		default:
			return false
		}
	}
	return true
}

// speakerOpeners and partners are [speaker-openers] and [partners] of
// lexicons/changes.txt.
var speakerOpeners, partners = wordSet("changes", "speaker-openers"), wordSet("changes", "partners")

// hasWord reports whether any token of ts is one of words.
func hasWord(ts []token, words ...string) bool {
	for k := range ts {
		if is(ts, k, words...) {
			return true
		}
	}
	return false
}

// correctInPlace keeps the corrected value of a sentence that corrects
// itself: "I live in Graz, sorry, Linz", "my editor is Vim, no wait, I
// meant Helix", "I work at Acme, er, at Initech". The value said before
// the marker was never meant; the one after it takes its candidate, with a
// correction cue.
func (x *extraction) correctInPlace(ts []token) {
	if len(x.out) == x.sentOut {
		return
	}
	for i := 1; i < len(ts); i++ {
		if !is(ts, i-1, ",", "-", "...", ";") {
			continue
		}
		j := selfCorrection(ts, i)
		if j < 0 {
			continue
		}
		// The new value runs to the next punctuation or the end.
		end := j
		for end < len(ts) && ts[end].kind != tPunct {
			end++
		}
		end = trimChangeTail(ts, j, end)
		if end == j || end-j > 6 {
			continue
		}
		before := ts[i].start
		for c := len(x.out) - 1; c >= x.sentOut; c-- {
			cand, m := &x.out[c], x.made[c]
			if cand.Cue == CueNegation || cand.Cue == CuePast ||
				!strings.Contains(x.content[x.start:before], cand.Value) {
				continue
			}
			if clauseSince(x.content[x.start:before], cand.Value) {
				// "Mo avoids pork, we're fine with lamb, sorry, Graz":
				// another clause stood between the value and the
				// marker, so the marker corrects something else.
				break
			}
			if is(ts, j, "was", "were") {
				// "I'm a nurse, well, was a nurse": the same value, now
				// history; anything else after "was" is no value.
				k := j + 1
				if is(ts, k, "a", "an", "the") {
					k++
				}
				if k < end && strings.EqualFold(x.text(ts[k:], end-k), cand.Value) {
					cand.Cue = CuePast
					cand.Content = render(m.tmpl, m.subj, cand.Value, m.cat, CuePast, cand.Hedged)
				}
				return
			}
			val, ok := x.replacementValue(cand.Key, ts[j:end])
			ok = ok && fitsSlot(cand.Key, cand.Value, val)
			restated := !ok && strings.Contains(x.text(ts[j:], end-j), cand.Value)
			if restated {
				// "Dr Ames, no wait, Dr Ames retired, it's Dr Pike now":
				// the old value restated with what became of it; the new
				// one follows as "it's Y".
				if k := end + 1; end < len(ts) && is(ts, end, ",", "-", ";") && k < len(ts) {
					if n := cueLen(correctionItCues, ts[k:]); n > 0 {
						e := k + n
						for e < len(ts) && ts[e].kind != tPunct {
							e++
						}
						e = trimChangeTail(ts, k+n, e) // "Dr Pike now"
						if e > k+n {
							val, ok = x.replacementValue(cand.Key, ts[k+n:e])
						}
					}
				}
				if !ok {
					// "Dr Ames, no wait, Dr Ames retired": what was said
					// first no longer holds, and nothing says what does.
					x.out = slices.Delete(x.out, c, c+1)
					x.made = slices.Delete(x.made, c, c+1)
					return
				}
			}
			if !ok || strings.EqualFold(val, cand.Value) {
				break
			}
			cand.Key = rekey(cand.Key, cand.Value, val)
			cand.Value = commonCase(val)
			if !cand.Hedged {
				cand.Cue = CueCorrection
			}
			shown := cand.Value
			if strings.HasPrefix(cand.Key, "date:") {
				shown = "on " + shown // as eventDate shows it
			}
			cand.Content = render(m.tmpl, m.subj, shown, m.cat, cand.Cue, cand.Hedged)
			return
		}
	}
}

// clauseSince reports whether text, which ends at a correction marker,
// holds another clause between the last mention of value and the marker:
// "in Haarlem, I still commute to Amsterdam, sorry" does (the marker
// corrects Amsterdam), "in Graz, sorry" and "in Bergen, yeah, sorry" do
// not (a filler between is no clause). Words right after the value, before
// any punctuation, are its own clause's ("in Graz now, sorry").
func clauseSince(text, value string) bool {
	i := strings.LastIndex(text, value)
	if i < 0 {
		return false
	}
	rest := text[i+len(value):]
	punct := func(r rune) bool { return strings.ContainsRune(",;:.!?", r) }
	parts := strings.FieldsFunc(rest, punct)
	if t := strings.TrimLeftFunc(rest, unicode.IsSpace); len(parts) > 0 && t != "" && !punct(rune(t[0])) {
		parts = parts[1:] // the value's own clause
	}
	for _, part := range parts {
		toks := tokenize(part, 0, len(part), nil)
		if len(toks) == 0 {
			continue
		}
		// trailingFillerLen never reads a whole value as filler: put a
		// word before the part.
		withHead := append([]token{{kind: tWord, low: "x"}}, toks...)
		if trailingFillerLen(withHead) != len(toks) {
			return true
		}
	}
	return false
}

// correctPrevious reads a sentence that is only a correction marker and a
// value ("I live in Zagreb. Wait no, Ljubljana.") as correcting the value
// the sentence before stated: that candidate takes the new value, with a
// correction cue. It reports whether the sentence was one.
func (x *extraction) correctPrevious(ts []token) bool {
	if x.prevOut >= len(x.out) {
		return false
	}
	j := selfCorrection(ts, 0)
	instead := false
	end := len(ts)
	if j < 0 {
		if j, end = insteadValue(ts); end == 0 {
			return false
		}
		instead = true // the value ends before the "instead"
	}
	for end > j && ts[end-1].kind == tPunct {
		end--
	}
	end = trimChangeTail(ts, j, end)
	if end == j || end-j > 6 {
		return false
	}
	for k := j; k < end; k++ {
		if ts[k].kind == tPunct && !is(ts, k, ",") {
			return false
		}
	}
	c := len(x.out) - 1
	cand, m := &x.out[c], x.made[c]
	if cand.Cue == CueNegation || cand.Cue == CuePast {
		return false
	}
	val, ok := x.replacementValue(cand.Key, ts[j:end])
	if !ok || !fitsSlot(cand.Key, cand.Value, val) || strings.EqualFold(val, cand.Value) {
		return false
	}
	if instead && !sameKind(cand.Key, cand.Value, val, ts[j:end]) {
		return false // "I live in York. the train instead": no kin
	}
	cand.Key = rekey(cand.Key, cand.Value, val)
	cand.Value = commonCase(val)
	if !cand.Hedged {
		cand.Cue = CueCorrection
	}
	shown := cand.Value
	if strings.HasPrefix(cand.Key, "date:") {
		shown = "on " + shown
	}
	cand.Content = render(m.tmpl, m.subj, shown, m.cat, cand.Cue, cand.Hedged)
	cand.End = x.end // the evidence runs to the correction
	return true
}

// selfCorrection reports where the new value starts after a correction
// marker at ts[i] ("sorry,", "no wait,", "I meant", "or rather"), or -1:
// the [self-correction], [self-correction-gaps] and
// [self-correction-pronoun] tables of lexicons/cue-patterns.txt.
func selfCorrection(ts []token, i int) int {
	_, n, ok := matchCue(selfCorrectionCues, ts[i:])
	if !ok {
		return closedCorrection(ts, i)
	}
	j := i + n
	for _, n, ok := matchCue(correctionGapCues, ts[j:]); ok; _, n, ok = matchCue(correctionGapCues, ts[j:]) {
		j += n
	}
	if n := cueLen(correctionItCues, ts[j:]); n > 0 {
		j += n
		// "it's the" corrects only a date ("no wait, it's the 24th");
		// "sorry, it's the best" is an aside.
		if is(ts, j, "the") && (j+1 >= len(ts) || !ordinal(ts[j+1].low) && !dayNumber(ts[j+1].low)) {
			return -1
		}
	}
	if j >= len(ts) || ts[j].kind != tWord {
		return -1
	}
	return j
}

// correctionClosers are the [correction-closers] of lexicons/changes.txt.
var correctionClosers = wordSet("changes", "correction-closers")

// closedCorrection returns where the value starts of a correction opened
// by a bare "well" at ts[i] and closed by a word of [correction-closers]
// before the next punctuation or the end, one to four words between
// ("Derby, well Belper actually"), or -1.
func closedCorrection(ts []token, i int) int {
	if !is(ts, i, "well") {
		return -1
	}
	end := i + 1
	for end < len(ts) && ts[end].kind == tWord {
		end++
	}
	if n := end - i - 2; n < 1 || n > 4 || !correctionClosers[ts[end-1].low] {
		return -1
	}
	return i + 1
}

// replacementValue reads the value after a correction marker for the slot
// key, or reports that those words cannot stand in for the slot's value
// ("sorry, I have to run").
func (x *extraction) replacementValue(key string, ts []token) (string, bool) {
	k := vThing
	switch {
	case key == "lives_in" || key == "from":
		k = vPlace
	case key == "works_at" || peopleRoles[key] || key == "name" || strings.HasPrefix(key, "name:"):
		// An employer, or who fills a role ("my dentist is Dr Ames, no
		// wait, Dr Ames retired": "retired" is no part of a name).
		k = vOrg
	case key == "role":
		k = vRole
	}
	for is(ts, 0, "at", "in", "to", "for", "with", "on", "from") && len(ts) > 1 {
		ts = ts[1:]
	}
	val, n := x.readValue(ts, k)
	if n == 0 || n != len(ts) {
		return "", false
	}
	switch {
	case k == vPlace || k == vOrg:
		first := ts[0]
		if is(ts, 0, "the") && len(ts) > 1 {
			first = ts[1]
		}
		if !first.capital {
			return "", false
		}
		if last := ts[len(ts)-1]; last.kind == tWord && !last.capital && !strings.ContainsAny(last.low, "0123456789") {
			// "Globex closed", "Dr Ames retired": a name and what
			// became of it, no name.
			return "", false
		}
	case strings.HasPrefix(key, "date:") || key == "birthday":
		if dateLen(ts) != len(ts) {
			return "", false
		}
	case strings.HasPrefix(key, "prefers:"):
		if c, ok := CategoryOf(val); ok && c != key[len("prefers:"):] {
			return "", false
		}
	case strings.HasPrefix(key, "allergic_to:") || strings.HasPrefix(key, "avoids:") || strings.HasPrefix(key, "speaks:") || key == "diet":
		// "allergic to nuts. Sorry, I meant Porto": a known place corrects
		// where one lives, never an allergen, a language or a diet.
		if knownPlace(ts) {
			return "", false
		}
	}
	return val, true
}

// sameKind reports whether val, said with a closing "instead", is of the
// kind of old in the slot key: both things of one category the lexicon
// knows ("green tea" and "rooibos" are drinks), or two places for a home.
// "instead" alone is a looser marker than "sorry" or "I meant", so a value
// the lexicon cannot place corrects nothing.
func sameKind(key, old, val string, ts []token) bool {
	if key == "lives_in" || key == "from" {
		return knownPlace(ts)
	}
	nc, ok := headCategory(val)
	oc, ok2 := headCategory(old)
	return ok && ok2 && nc == oc
}

// headCategory is the lexicon category of value, or of its last word
// when the lexicon does not know it whole: "oat latte" is a drink as
// "latte" is.
func headCategory(value string) (string, bool) {
	if c, ok := CategoryOf(value); ok {
		return c, ok
	}
	ws := strings.Fields(value)
	if len(ws) < 2 {
		return "", false
	}
	return CategoryOf(ws[len(ws)-1])
}

// fitsSlot reports whether val can stand in for old in the slot key: two
// things the lexicon places in different categories never do ("we're on
// node 20. sorry, Helix"), and a tool or other known thing is no allergen,
// language or diet ("I'm allergic to shellfish. scratch that, node 22":
// the correction is of something else), though a food or drink may be.
func fitsSlot(key, old, val string) bool {
	nc, known := CategoryOf(val)
	if !known {
		return true
	}
	if oc, ok := CategoryOf(old); ok && oc != nc {
		return false
	}
	for _, p := range []string{"allergic_to:", "avoids:", "speaks:"} {
		if strings.HasPrefix(key, p) && nc != "food" && nc != "drink" {
			return false
		}
	}
	return key != "diet" || nc == "diet"
}

// alignChangeCategories reads a name the lexicon files under two kinds as
// the kind of the other value of its change: in "I'm on Fedora these days,
// gave up on Mint" Mint (a colour, and the short name of Linux Mint) is the
// operating system Fedora replaced. A sentence that ends one value and
// sets another of the same subject speaks of one slot; when exactly one of
// the two can be read as the other's kind, it takes that kind.
func (x *extraction) alignChangeCategories() {
	for i := x.sentOut; i < len(x.out); i++ {
		old := &x.out[i]
		if old.Cue != CueNegation && old.Cue != CuePast || old.Hedged || !strings.HasPrefix(old.Key, "prefers:") {
			continue
		}
		for j := x.sentOut; j < len(x.out); j++ {
			now := &x.out[j]
			if now.Cue != CueCorrection || now.Hedged || now.Subject != old.Subject {
				continue
			}
			if x.alignPair(i, j) {
				break
			}
		}
	}
}

// alignPair files candidates i (the value before) and j (the value now)
// of two prefers: slots under one, when exactly one of the values can be
// read as the other's kind, and reports whether it did.
func (x *extraction) alignPair(i, j int) bool {
	old, now := &x.out[i], &x.out[j]
	oc, ok1 := strings.CutPrefix(old.Key, "prefers:")
	nc, ok2 := strings.CutPrefix(now.Key, "prefers:")
	if !ok1 || !ok2 || oc == nc {
		return false
	}
	oldAsNow, nowAsOld := readsAs(old.Value, nc), readsAs(now.Value, oc)
	switch {
	case oldAsNow && !nowAsOld:
		x.recategorize(i, nc)
	case nowAsOld && !oldAsNow:
		x.recategorize(j, oc)
	default:
		return false
	}
	return true
}

// recategorize files candidate i under category cat, with the value as the
// sentence wrote it (a colour's "mint" is an operating system's "Mint").
func (x *extraction) recategorize(i int, cat string) {
	c, m := &x.out[i], &x.made[i]
	sent := x.content[x.start:x.end]
	if at := strings.Index(strings.ToLower(sent), strings.ToLower(c.Value)); at >= 0 {
		c.Value = sent[at : at+len(c.Value)]
	}
	c.Key = "prefers:" + cat
	m.cat = categoryDisplay(cat)
	c.Content = render(m.tmpl, m.subj, c.Value, m.cat, c.Cue, c.Hedged)
}

// endedBecomesHistory turns an ended value into history when its own
// sentence names the value that replaced it: in "I'm on Arch these days,
// gave up on Ubuntu" Ubuntu is the value before Arch, worth a version of
// its own even when it was never stored, where a bare ending would have
// nothing to end.
func (x *extraction) endedBecomesHistory() {
	for i := x.sentOut; i < len(x.out); i++ {
		ended := &x.out[i]
		if ended.Cue != CueNegation || ended.Hedged || x.made[i].denial {
			continue
		}
		for j := x.sentOut; j < len(x.out); j++ {
			now := x.out[j]
			if now.Cue == CueCorrection && !now.Hedged && now.Subject == ended.Subject && now.Key == ended.Key &&
				!strings.EqualFold(now.Value, ended.Value) {
				ended.Cue = CuePast
				m := x.made[i]
				ended.Content = render(m.tmpl, m.subj, ended.Value, m.cat, CuePast, false)
				break
			}
		}
	}
}

// eventDate reads when something of the speaker's is: "my recital is on
// the 19th", "the dentist is on Friday", "our offsite is the 3rd of June".
// The slot is date:<thing>, so a later date, or one corrected in the same
// message ("the 9th, sorry, the 19th"), takes its place. Only a date reads:
// "the meeting is on the agenda" says nothing of when. A date moved ("the
// wedding got moved to the 21st") is a new one.
func (x *extraction) eventDate(ts []token, f flags) bool {
	s, k := x.speaker, 1
	if !is(ts, 0, "the") || teamNouns[lowAt(ts, 1)] && is(ts, 2, "'s") {
		// "my", "our", and a person's: "Ilse's graduation is on the
		// 12th", "my sister's recital is the 9th".
		o, n, ok := x.owner(ts)
		if !ok {
			return false
		}
		s, k = o, n
	}
	c := k
	for c < len(ts) && c < k+3 && ts[c].kind == tWord && !ts[c].capital && !verbLike(ts[c].low) && !is(ts, c, "'s") {
		c++
	}
	moved := 0 // "got moved to", "was pushed to": a new date
	if c > k && !is(ts, c, "is", "'s") {
		if moved = cueLen(dateMoveCues, ts[c:]); moved == 0 {
			return false
		}
		f.corr = true
	}
	if c == k {
		return false
	}
	noun := make([]string, 0, c-k)
	for _, t := range ts[k:c] {
		if len(noun) == 0 && is([]token{t}, 0, "real", "actual", "exact", "true") {
			continue // "my real birthday": the birthday
		}
		noun = append(noun, t.low)
	}
	if len(noun) == 0 {
		return false
	}
	name := strings.Join(noun, " ")
	if _, ok := nounFacts[name]; ok || favoriteWords[noun[0]] || pronounValues[noun[0]] {
		return false // "my birthday is..." has its own slot
	}
	v := c + max(1, moved)
	if is(ts, v, "now") {
		v++ // "is now on the 21st"
		f.corr = true
	}
	if is(ts, v, "on") {
		v++
	}
	n := dateLen(ts[v:])
	if n == 0 {
		return false
	}
	if end := v + n; end < len(ts) && ts[end].kind != tPunct {
		// "on the 14th not the 15th": the date set aside is no value.
		m := 0
		if is(ts, end, "not") {
			m = dateLen(ts[end+1:])
		}
		if m == 0 || end+1+m < len(ts) && ts[end+1+m].kind != tPunct {
			return false
		}
		f.not = false
	}
	if f.not || f.hedge {
		return true
	}
	date := x.text(ts[v:], n)
	x.emit(s, f, claim{typ: memory.TypeFact, key: "date:" + Slug(name), value: date, tmpl: tmFact, cat: name, display: "on " + date})
	return true
}

// favoriteWords open a preference, not a thing with a date.
var favoriteWords = wordSet("changes", "favorite-words")

// dateLen returns how many tokens of ts name a day: "the 19th", "19th",
// "the 3rd of June", "June 3", "3 June", "Friday", "next Friday",
// "Friday the 13th"; 0 if none. The [dates] table of
// lexicons/cue-patterns.txt.
func dateLen(ts []token) int { return cueLen(dateCues, ts) }

var weekdays = wordSet("changes", "weekdays")

// ordinal reports a day of the month written as an ordinal: "9th", "21st".
func ordinal(w string) bool {
	if len(w) < 3 || len(w) > 4 {
		return false
	}
	return dayNumber(w[:len(w)-2]) && (strings.HasSuffix(w, "st") || strings.HasSuffix(w, "nd") ||
		strings.HasSuffix(w, "rd") || strings.HasSuffix(w, "th"))
}

// dayNumber reports a day of the month in digits: "1" to "31".
func dayNumber(w string) bool {
	if len(w) == 0 || len(w) > 2 {
		return false
	}
	d := 0
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
		d = d*10 + int(r-'0')
	}
	return d >= 1 && d <= 31
}

// rekey returns the key of a slot whose value corrects old to val: a slot
// named by its value ("allergic_to:peanuts", "likes:jazz", "speaks:dutch")
// is named by the new one ("I'm allergic to peanuts, sorry, sesame" is
// allergic_to:sesame); any other key stays.
func rekey(key, old, val string) string {
	i := strings.LastIndex(key, ":")
	if i < 0 || key[i+1:] != Slug(old) || Slug(val) == "" {
		return key
	}
	return key[:i+1] + Slug(val)
}

// CorrectsPrevious reports a turn that opens on a correction marker and
// goes on with a value ("scratch that, node 22", "sorry, I meant Linz",
// "actually make that Friday"): a correction of what the speaker's turn
// before it said, which the turn alone does not name. The caller reads it
// with that turn (the engine joins the two).
func CorrectsPrevious(text string) bool {
	ts := tokenize(text, 0, len(text), nil)
	if len(ts) == 0 {
		return false
	}
	_, end := insteadValue(ts)
	return selfCorrection(ts, 0) >= 0 || end > 0
}

// PutsInstead reports whether text only puts a value in place of one said
// before, closing on "instead" ("let's go with Asana instead"): read alone
// it may name a slot of its own (a decision), read after the turn before
// it names that turn's.
func PutsInstead(text string) bool {
	ts := tokenize(text, 0, len(text), nil)
	_, end := insteadValue(ts)
	return end > 0
}

// InsteadCategory returns the lexicon category of the value a turn that
// only puts a value in place of an earlier one names ("matcha instead
// lately": drink), or false when it is no such turn or the lexicon cannot
// place the value.
func InsteadCategory(text string) (string, bool) {
	ts := tokenize(text, 0, len(text), nil)
	j, end := insteadValue(ts)
	if end == 0 {
		return "", false
	}
	return headCategory(text[ts[j].start:ts[end-1].end])
}

// insteadTails may follow the closing "instead": [instead-tails] of
// lexicons/identity.txt.
var insteadTails = wordSet("identity", "instead-tails")

// insteadValue returns where the value of a sentence that only puts a
// value in place of the one said before starts and ends ("rooibos
// instead", "let's go with Asana instead": the [instead-leads] table of
// lexicons/cue-patterns.txt, then up to four words, then "instead"), or
// 0, 0.
func insteadValue(ts []token) (int, int) {
	end := len(ts)
	for end > 0 && (ts[end-1].kind == tPunct || insteadTails[ts[end-1].low] && ts[end-1].kind == tWord) {
		end-- // "oat milk instead these days": the tail says it holds now
	}
	if end < 2 || ts[end-1].low != "instead" {
		return 0, 0
	}
	end--
	j := 0
	if _, n, ok := matchCue(insteadLeadCues, ts); ok && n < end {
		j = n
	}
	for j < end && (ts[j].kind == tPunct || is(ts, j, "a", "an", "some")) {
		j++ // "ok, a flat white instead": the value without its article
	}
	if end == j || end-j > 4 {
		return 0, 0
	}
	for k := j; k < end; k++ {
		if ts[k].kind != tWord {
			return 0, 0
		}
	}
	return j, end
}
