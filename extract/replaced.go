package extract

import "strings"

// replacementTailCues is the [replacement-tail] table of
// lexicons/cue-patterns.txt: the opener of a short clause that names what
// took an ended value's place ("only green tea", "just rooibos").
var replacementTailCues = cuePatterns("replacement-tail")

// replacedInPlace reads the short clause after a value the sentence ends
// as the value that took its place: "I don't drink coffee anymore, only
// green tea" ends coffee and, borrowing the first clause's verb, states
// green tea for the same slot; "I don't use Vim anymore, mostly Helix
// these days", "..., green tea only" and "..., Fedora now" likewise. The new value is a candidate of its own, with a
// correction cue (so endedBecomesHistory keeps the old one as the value
// before); a plain denial ("I don't drink coffee, only tea") never said
// the old value held, so the new one is a plain statement. The words
// after the opener must read as the slot's value (replacementValue), so
// "only on weekends" or "just because" state nothing, and a clause that
// opens with a preposition ("only at weddings", "just for games") says
// when or what for the old value holds, unless the slot is a place or an
// employer.
func (x *extraction) replacedInPlace(ts []token) {
	for i := 1; i < len(ts); i++ {
		if !is(ts, i-1, ",", "-", ";", "...") {
			continue
		}
		_, n, opener := matchCue(replacementTailCues, ts[i:])
		if i+n >= len(ts) || ts[i+n].kind != tWord {
			continue
		}
		j := i + n
		end := j
		for end < len(ts) && ts[end].kind != tPunct {
			end++
		}
		// "Fedora now", "Helix these days": a word of now closes the value.
		trimmed := trimChangeTail(ts, j, end)
		dated := false
		for k := trimmed; k < end; k++ {
			if cueLen(changeTailCues, ts[k:end]) > 0 && !is(ts, k, "anymore") {
				dated = true
			}
		}
		end = trimmed
		if !opener {
			// The opener's word may close the clause instead: "green
			// tea only"; or a word of now: "Fedora now".
			if end-j >= 2 && is(ts, end-1, "only") {
				end--
			} else if !dated {
				continue
			}
		}
		if end == j || end-j > 4 {
			continue
		}
		before := x.content[x.start:ts[i].start]
		for c := len(x.out) - 1; c >= x.sentOut; c-- {
			old, m := x.out[c], x.made[c]
			if old.Cue != CueNegation || old.Hedged || !strings.Contains(before, old.Value) {
				continue
			}
			if prepositions[ts[j].low] && old.Key != "lives_in" && old.Key != "from" && old.Key != "works_at" {
				// "only at weddings", "just for games": when or what for
				// the old value still holds, no value of its own. A place
				// or an employer is said after one ("only in Porto").
				break
			}
			val, ok := x.replacementValue(old.Key, ts[j:end])
			if !ok || strings.EqualFold(val, old.Value) {
				break
			}
			now := old
			now.Key = rekey(old.Key, old.Value, val)
			now.Value = commonCase(val)
			now.Cue = CueCorrection
			if m.denial {
				now.Cue = CueNone
			}
			now.Content = render(m.tmpl, m.subj, now.Value, m.cat, now.Cue, false)
			m.denial = false
			x.out = append(x.out, now)
			x.made = append(x.made, m)
			return
		}
	}
}

// trimChangeTail returns where the value at ts[j:end] ends without the
// words after it that say when, not what ([change-tail]: "Neovim these
// days", "pnpm now"), or add nothing ("rooibos lol", "pescatarian
// technically").
func trimChangeTail(ts []token, j, end int) int {
	for end > j {
		if n := cueTail(changeTailCues, ts[j:end]); n > 0 {
			end -= n
		} else if n := trailingFillerLen(ts[j:end]); n > 0 {
			end -= n
		} else {
			break
		}
	}
	return end
}

// noMore reads "no more X (for me)" opening a sentence as the speaker's "I
// don't have X anymore": X, a thing the lexicon places in a category
// ("soda", "Vim"), ends; a short clause after it may name what took its
// place (replacedInPlace); "for us" makes it the team's ("no more Figma
// for us, Penpot now"). An X the lexicon cannot place ("no more late
// nights") or someone else's ("no more soda for my son") is left as said.
func (x *extraction) noMore(ts []token, f flags) bool {
	if !x.lead || f.not || !seq(ts, 0, "no", "more") {
		return false
	}
	body := ts[2:]
	for k := range body {
		if body[k].kind == tPunct {
			body = body[:k]
			break
		}
	}
	for k := trailingFillerLen(body); k > 0; k = trailingFillerLen(body) {
		body = body[:len(body)-k] // "no more soda for me lol"
	}
	s := x.speaker
	if len(body) > 2 && seq(body, len(body)-2, "for", "me") {
		body = body[:len(body)-2]
	} else if len(body) > 2 && seq(body, len(body)-2, "for", "us") {
		s = x.team // "no more Figma for us": the team's tool ends
		body = body[:len(body)-2]
	}
	val, n := x.readValue(body, vThing)
	if n == 0 || n != len(body) {
		return false
	}
	if _, ok := CategoryOf(val); !ok {
		return false
	}
	f.neg = true
	x.useThing(s, body, f, purposeInfo{})
	return true
}
