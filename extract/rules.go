package extract

import (
	"cmp"
	"context"
	"strings"
	"unicode"

	"github.com/mnemon-dev/mnemon/memory"
)

// RulesName identifies the rule extractor in provenance records. Bump the
// version when a change would extract different candidates from the same
// text.
const RulesName = "rules-en-v3"

// maxSentenceBytes bounds the sentences the rules read. Longer runs without
// a sentence break are code, logs or pasted documents, not statements about
// the speaker, and reading them would only cost time.
const maxSentenceBytes = 1200

// Confidence levels. A hedge caps confidence well below anything stated
// plainly so reconciliation never lets it supersede a settled value.
const (
	confPlain     = 0.9  // a plain first-person statement or project fact
	confPolite    = 0.8  // "I'd prefer", "we will use"
	confWeak      = 0.75 // "I think I prefer..."
	confSecondary = 0.7  // about someone else, or from an agent's message
	confHedged    = 0.4  // "maybe", "might", "thinking about"...
	confHedged3rd = 0.3  // hedged and about someone else
)

// Rules is the built-in English rule extractor. It is stateless and safe
// for concurrent use.
type Rules struct{}

var _ Extractor = (*Rules)(nil)

// NewRules returns the rule extractor.
func NewRules() *Rules { return &Rules{} }

// Name returns RulesName.
func (*Rules) Name() string { return RulesName }

// mode says what an event's kind allows the rules to extract.
type mode uint8

const (
	modeSkip    mode = iota // nothing: tool calls are the agent's own actions
	modeUser                // everything: the user speaks about themselves
	modeProject             // project facts and decisions only: agents, tools, observations
)

func modeFor(k memory.EpisodeKind) mode {
	switch k {
	case "", memory.EpisodeUserMessage, memory.EpisodeUserFeedback:
		return modeUser
	case memory.EpisodeToolCall:
		return modeSkip
	}
	// An agent's "I prefer" is the agent's, a tool's output is not the user
	// speaking; only project facts and decisions carry over.
	return modeProject
}

// Extract reads ev.Content sentence by sentence and returns the candidates
// it finds, in text order. Content that DetectInstruction flags yields
// nothing: the engine quarantines the episode, and nothing it says may
// become a memory.
func (*Rules) Extract(ctx context.Context, ev Event) ([]Candidate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := modeFor(ev.Kind)
	if m == modeSkip || strings.TrimSpace(ev.Content) == "" {
		return nil, nil
	}
	if bad, _ := DetectInstruction(ev.Content); bad {
		return nil, nil
	}
	return extractWith(ev, m, false), nil
}

// StaysNow returns the homes a user's message states only as where
// someone is now ("my sister is in Glasgow now", "I'm in Leeds these
// days"), which Extract leaves alone: said of someone whose home is not
// known it may be a trip. The caller keeps a candidate (a lives_in
// correction) only when the subject's live home is another place, so
// the stay replaces a home rather than inventing one.
func StaysNow(ev Event) []Candidate {
	if modeFor(ev.Kind) != modeUser || strings.TrimSpace(ev.Content) == "" {
		return nil
	}
	if bad, _ := DetectInstruction(ev.Content); bad {
		return nil
	}
	seen := map[string]bool{}
	for _, c := range extractWith(ev, modeUser, false) {
		seen[c.Subject+"\x00"+c.Key] = true
	}
	var out []Candidate
	for _, c := range extractWith(ev, modeUser, true) {
		if c.Key == "lives_in" && c.Cue == CueCorrection && !seen[c.Subject+"\x00"+c.Key] {
			out = append(out, c)
		}
	}
	return out
}

// extractWith runs the rules on ev in mode m; stays reads [stays-now].
func extractWith(ev Event, m mode, stays bool) []Candidate {
	x := newExtraction(ev, m)
	x.stays = stays
	if m == modeUser {
		x.before = ev.Before
	}
	x.read(ev.Content)
	return x.out
}

// read reads content's prose sentence by sentence.
func (x *extraction) read(content string) {
	for _, seg := range proseSegments(content) {
		for _, s := range SplitSentences(content[seg[0]:seg[1]]) {
			if s.End-s.Start > maxSentenceBytes {
				continue
			}
			s.Start += seg[0]
			s.End += seg[0]
			x.sentence(s)
		}
	}
}

// personAfter returns the person other than the speaker whom the turns
// before (oldest first, all the speaker's own) ended on, as personBefore
// would hold it had they been sentences of this turn: nil when the last
// of them ended on the speaker, a team or nobody. Their candidates are
// thrown away.
func (x *extraction) personAfter(before []string) *subject {
	var carried *subject
	for _, b := range before {
		if bad, _ := DetectInstruction(b); bad {
			carried = nil
			continue
		}
		y := newExtraction(Event{Speaker: x.evSpeaker.name, Content: b, ProjectID: x.project}, x.evMode)
		y.evSpeaker, y.speaker, y.team = x.evSpeaker, x.evSpeaker, x.team
		y.personBefore = carried
		y.read(b)
		carried = y.personBefore
	}
	return carried
}

// OpensOnPronoun reports whether content opens on "she" or "he", the
// pronouns the turns before it may name (Event.Before): only then does
// the engine look them up.
func OpensOnPronoun(content string) bool {
	if !strings.Contains(content, "```") && !strings.Contains(content, "~~~") {
		// Most turns: the first word decides, without splitting.
		w := strings.TrimLeftFunc(content, func(r rune) bool { return !unicode.IsLetter(r) })
		if end := strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }); end >= 0 {
			w = w[:end]
		}
		if !strings.EqualFold(w, "she") && !strings.EqualFold(w, "he") {
			return false
		}
	}
	for _, seg := range proseSegments(content) {
		for _, s := range SplitSentences(content[seg[0]:seg[1]]) {
			toks := tokenize(content, s.Start+seg[0], s.End+seg[0], nil)
			if len(toks) == 0 {
				continue
			}
			return is(toks, 0, "she", "he")
		}
	}
	return false
}

// agentNames and userNames open transcript lines written by the agent
// and by the user.
var (
	agentNames = wordSet("rules", "agent-names")
	userNames  = wordSet("rules", "user-names")
)

// transcriptSpeaker reads a transcript prefix ("Alice: ...", "User: ...",
// "Assistant: ...") at the start of the line holding pos. It returns the
// name and where the line's text starts. Label words ("Note:",
// "Important:", "Decision:") and headers ("Subject:") are not names.
func transcriptSpeaker(content string, pos int) (string, int, bool) {
	ls := strings.LastIndexByte(content[:pos], '\n') + 1
	i := ls
	for i < len(content) && (content[i] == ' ' || content[i] == '\t') {
		i++
	}
	start, words := i, 0
	for i < len(content) && words < 3 {
		r, _ := decodeRune(content, i)
		if !unicode.IsUpper(r) {
			break
		}
		j := i
		for j < len(content) {
			r, size := decodeRune(content, j)
			if !isWordRune(r) && r != '\'' && r != '-' && r != '.' {
				break
			}
			j += size
		}
		w := strings.ToLower(strings.TrimRight(content[i:j], ".'-"))
		if len(w) < 2 || labelWord(w) || subjectStopWords[w] && !agentNames[w] && !userNames[w] {
			return "", 0, false
		}
		words++
		i = j
		if i < len(content) && content[i] == ' ' && i+1 < len(content) && content[i+1] != ' ' {
			r, _ := decodeRune(content, i+1)
			if unicode.IsUpper(r) {
				i++
				continue
			}
		}
		break
	}
	if words == 0 || i >= len(content) || content[i] != ':' || i+1 < len(content) && content[i+1] != ' ' && content[i+1] != '\t' {
		return "", 0, false
	}
	after := i + 1
	for after < len(content) && (content[after] == ' ' || content[after] == '\t') {
		after++
	}
	if after > pos && pos > start {
		return "", 0, false
	}
	return content[start:i], after, true
}

// labelWord reports words that open labels or headers, never speakers.
func labelWord(w string) bool {
	if mustLabels[w] || corrLabels[w] || decisionLabels[w] || constraintLabels[w] || goalLabels[w] || plainLabels[w] || labelFillers[w] || headerWords[w] {
		return true
	}
	_, known := lexicon[w]
	_, cat := categorySynonyms[w]
	return known || cat
}

// headerWords open mail and log headers.
var headerWords = wordSet("rules", "header-words")

// lineSpeaker sets who speaks on a transcript line: the user, the agent, or
// a named person whose first person is theirs.
func (x *extraction) lineSpeaker(name string) {
	low := strings.ToLower(name)
	switch {
	case userNames[low]:
	case agentNames[low]:
		if x.mode == modeUser {
			x.mode = modeProject
		}
	default:
		if id := Slug(name); id != "" && id != x.speaker.id {
			x.speaker = subject{kind: sSpeaker, id: id, name: name}
		}
	}
}

// proseSegments returns the spans of content outside fenced code blocks
// (``` or ~~~ lines). Code says nothing about the speaker: a comment "// I
// prefer Vim" in a pasted file is not the user's preference.
func proseSegments(content string) [][2]int {
	if !strings.Contains(content, "```") && !strings.Contains(content, "~~~") {
		return [][2]int{{0, len(content)}}
	}
	var out [][2]int
	segStart, inFence := 0, false
	for lineStart := 0; lineStart < len(content); {
		lineEnd := strings.IndexByte(content[lineStart:], '\n')
		if lineEnd < 0 {
			lineEnd = len(content)
		} else {
			lineEnd += lineStart
		}
		trimmed := strings.TrimLeft(content[lineStart:lineEnd], " \t")
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			if !inFence && lineStart > segStart {
				out = append(out, [2]int{segStart, lineStart})
			}
			inFence = !inFence
			segStart = min(lineEnd+1, len(content))
		}
		lineStart = lineEnd + 1
	}
	if !inFence && segStart < len(content) {
		out = append(out, [2]int{segStart, len(content)})
	}
	return out
}

// extraction is the state of one Extract call.
type extraction struct {
	content string
	mode    mode
	speaker subject
	// The event's own mode and speaker; a transcript line ("Bob: ...")
	// changes mode and speaker for its sentences only.
	evMode    mode
	evSpeaker subject
	team      subject
	project   string // slug of Event.ProjectID, "" if none
	buf       []token
	// spans are the spans a slot template marked, for its reader.
	spans [2][]token
	out   []Candidate
	// prevOut is where the candidates of the last sentence read start: a
	// retraction ("just kidding") takes them back.
	prevOut int
	// made holds how each candidate of out was written, so a later
	// clause of its sentence can rewrite it (see changes.go).
	made []made
	// span of the sentence being read
	start, end int
	// lead is set while reading a clause that opens its sentence (or
	// follows a semicolon or a rule), where imperatives may stand.
	lead bool
	// soSelf is set while reading a clause that follows the speaker's own
	// clause after ", so" ("cut out beef last spring, so pescatarian
	// now"): a bare diet or allergy there is the speaker's conclusion.
	soSelf bool
	// gone names a person other than the speaker whom the sentence has
	// leave ("Priya left the company, ..."): a later clause with its
	// subject dropped that reports to someone is the speaker's, as the
	// one gone reports to nobody there.
	gone string
	// sentOut is len(out) when the sentence being read began.
	sentOut int
	// sent is the sentence being read, all its clauses.
	sent []token
	// stays reads "X is in <place> now" as a home ([stays-now]): set by
	// StaysNow only.
	stays bool
	// petBefore is the kind of pet the last sentence ended on, got and
	// not yet named ("so we got a dog!!"): the next may name it.
	petBefore string
	// ruleScope is where the rule being read holds, said before it ("in
	// commit messages, never …"): the rule keeps it.
	ruleScope []token
	// personBefore is the person other than the speaker whom the last
	// sentence's last clause spoke of, if any: "she" or "he" opening the
	// next sentence is that person ("my aunt retired. she paints now").
	personBefore *subject
	// before are the speaker's turns before this event (Event.Before),
	// until the first sentence is read.
	before []string
}

func newExtraction(ev Event, m mode) *extraction {
	x := &extraction{content: ev.Content, mode: m, buf: make([]token, 0, min(len(ev.Content)/5+4, 64))}
	sp := strings.TrimSpace(ev.Speaker)
	id := Slug(sp)
	if id == "" || id == "user" {
		x.speaker = subject{kind: sSpeaker, id: "user", name: "The user"}
	} else {
		x.speaker = subject{kind: sSpeaker, id: id, name: displayName(sp)}
	}
	x.evMode, x.evSpeaker = x.mode, x.speaker
	x.project = Slug(ev.ProjectID)
	if x.project != "" {
		x.team = subject{kind: sTeam, id: x.project, name: displayName(strings.TrimSpace(ev.ProjectID))}
	} else {
		x.team = subject{kind: sTeam, id: TeamSubject, name: "The team"}
	}
	return x
}

// subjKind says who a clause is about.
type subjKind uint8

const (
	sNone    subjKind = iota
	sSpeaker          // "I", "my"
	sTeam             // "we", "our", "the project", the event's project by name
	sNamed            // a capitalised name: a person or a project, the verb decides
	sPerson           // someone else: "my sister", "the user", "Bob" with a personal verb
)

type subject struct {
	kind subjKind
	id   string // canonical subject
	name string // for content: "The user", "Alice", "Atlas", "The user's sister"
	// comp is one part of a project ("backend"); its uses:* facts get their
	// own slots. whole names the project without the part.
	comp, whole string
	// we is set for a bare "we": a team at work, but the speaker's
	// household where it lives, moves or settles.
	we bool
}

func (s subject) pronoun() string {
	if s.kind == sTeam || s.kind == sNamed {
		return "its"
	}
	return "their"
}

// asPerson turns a named subject into a person once a personal verb
// ("prefers", "lives") shows who it is.
func (s subject) asPerson() subject {
	if s.kind == sNamed {
		s.kind = sPerson
	}
	return s
}

// flags collect what the words around a claim say about it.
type flags struct {
	hedge, weak, polite, future bool
	corr, neg, past             bool
	not, anymore                bool
	always, never, must         bool
	mustInclude, high           bool
	plural                      bool // "my favorite editors are..."
}

// claim is one candidate before confidence, cue and content are settled.
type claim struct {
	typ   memory.Type
	key   string
	value string
	tmpl  tmpl
	cat   string // category or topic words for the content sentence
	// display replaces the value in the content sentence when the value
	// alone reads badly ("use Postgres for the cache" for "Postgres").
	display string
}

// emit turns a claim about s into a candidate, unless the event's mode
// forbids it.
func (x *extraction) emit(s subject, f flags, c claim) {
	if s.comp != "" && strings.HasPrefix(c.key, "uses:") {
		if CanonicalCategory(s.comp) != c.key[len("uses:"):] {
			// "Our backend uses Go" and "our frontend uses TypeScript"
			// need two slots.
			c.key += ":" + s.comp
		} else {
			// "Our CI runs on GitHub Actions" is plainly the team's uses:ci.
			s.name = s.whole
		}
	}
	if c.key == "" || !ValidKey(c.key) || !ValidSubject(s.id) {
		return
	}
	c.value = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(c.value), ".,;:!?"))
	if c.value == "" {
		return
	}
	if !strings.HasPrefix(c.key, "name") {
		c.value = commonCase(c.value) // a name keeps its capital: a dog called Olive
	}
	if x.mode == modeProject {
		if s.kind != sTeam && s.kind != sNamed {
			return
		}
		if c.typ != memory.TypeFact && c.typ != memory.TypeDecision {
			return
		}
	}
	if s.kind == sSpeaker && x.mode != modeUser {
		return
	}
	conf := confPlain
	third := s.kind == sPerson || (s.kind == sNamed && !isProjectType(c))
	if third || x.mode == modeProject {
		conf = confSecondary
	}
	if f.polite && conf > confPolite {
		conf = confPolite
	}
	if f.weak && conf > confWeak {
		conf = confWeak
	}
	if f.future && c.key == "lives_in" && !f.neg && !f.past {
		// "We relocate to Ghent in May": a move that has not happened
		// is a plan, never the current home (which it would supersede).
		// The plan does not replace anything: it carries no cue.
		c = claim{typ: memory.TypeGoal, key: "moving_to", value: c.value, display: c.display, tmpl: tmMovingTo}
		f.corr = false
	}
	hedged := f.hedge
	if f.future && (c.key == "lives_in" || c.key == "works_at" || c.key == "role") {
		// "I'm moving to Berlin" is a plan; Berlin is not home yet.
		hedged = true
	} else if f.future && conf > confSecondary {
		conf = confSecondary
	}
	if hedged {
		conf = confHedged
		if third {
			conf = confHedged3rd
		}
	}
	if f.neg && hedged {
		// "we might drop MySQL": a value may only end for certain.
		return
	}
	cue := CueNone
	switch {
	case f.neg:
		cue = CueNegation
	case f.past:
		cue = CuePast
	case f.corr && !hedged:
		// A hedged "maybe I'll switch to Emacs" must never supersede.
		cue = CueCorrection
	}
	crit := memory.CriticalityNormal
	if c.typ == memory.TypeConstraint || f.high {
		crit = memory.CriticalityHigh
	}
	if f.mustInclude {
		crit = memory.CriticalityMustInclude
	}
	cand := Candidate{
		Type: c.typ, Subject: s.id, Key: c.key, Value: c.value,
		Content:    render(c.tmpl, s, cmp.Or(c.display, c.value), c.cat, cue, hedged),
		Confidence: conf, Hedged: hedged, Cue: cue, Criticality: crit,
		Start: x.start, End: x.end,
	}
	for _, o := range x.out {
		if o.Subject == cand.Subject && o.Key == cand.Key && o.Cue == cand.Cue &&
			strings.EqualFold(o.Value, cand.Value) {
			return
		}
	}
	x.out = append(x.out, cand)
	x.made = append(x.made, made{tmpl: c.tmpl, subj: s, cat: c.cat, denial: f.not && !f.anymore})
}

// isProjectType reports whether a claim about a named subject reads as a
// project fact ("Atlas uses pnpm") rather than a person's trait.
func isProjectType(c claim) bool {
	return c.typ == memory.TypeFact && strings.HasPrefix(c.key, "uses:") || c.typ == memory.TypeDecision
}

// sentence reads one sentence.
func (x *extraction) sentence(s Sentence) {
	x.start, x.end = s.Start, s.End
	toks := tokenize(x.content, s.Start, s.End, x.buf)
	x.buf = toks[:0]
	x.mode, x.speaker = x.evMode, x.evSpeaker
	if name, after, ok := transcriptSpeaker(x.content, s.Start); ok {
		x.lineSpeaker(name)
		for len(toks) > 0 && toks[0].start < after {
			toks = toks[1:] // drop "Bob:" itself
		}
	}
	toks = newsLead(toks)
	if len(toks) == 0 || isQuestion(toks) {
		return
	}
	if n := cueLen(retractionCues, toks); n > 0 {
		// "I'm moving to Tallinn. Just kidding": the sentence before
		// was never meant; what follows the retraction reads on.
		x.out, x.made = x.out[:x.prevOut], x.made[:x.prevOut]
		toks = toks[n:]
		for len(toks) > 0 && toks[0].kind == tPunct {
			toks = toks[1:]
		}
		if len(toks) == 0 {
			x.prevOut = len(x.out)
			return
		}
	}
	if pet := x.petBefore; pet != "" {
		x.petBefore = ""
		if x.mode == modeUser && x.petNamedLater(pet, toks, flags{}) {
			x.prevOut = len(x.out)
			return // "... got a dog!! named him Pretzel"
		}
	}
	if x.mode == modeUser && x.correctPrevious(toks) {
		return // "I live in Zagreb. Wait no, Ljubljana."
	}
	if x.mode == modeUser && x.prevOut < len(x.out) && cueLen(takeBackCues, toks) > 0 {
		// "I'm allergic to X. Oh wait, scratch that, ...": what the
		// sentence before said is taken back, unless this one says the
		// same slot again ("... scratch that, my favourite colour is
		// green" replaces it: the old value stays, as history).
		from, to := x.prevOut, len(x.out)
		defer x.takeBack(from, to)
	}
	x.prevOut = len(x.out)
	if startsHypothetical(toks) || reportedByOther(toks) {
		return
	}
	var sf flags
	sentenceMarkers(toks, &sf)
	x.introduction(toks, sf) // "hey, Tariq here": the rest reads on
	toks = closingReport(toks, &sf)
	if x.before != nil {
		// The turn's first sentence: a "she" opening it may name the
		// person the speaker's turns before ended on.
		if is(toks, 0, "she", "he") {
			x.personBefore = x.personAfter(x.before)
		}
		x.before = nil
	}
	var carry *subject
	if x.personBefore != nil && is(toks, 0, "she", "he") && !otherKind(x.personBefore.id, toks[0].low) {
		carry = x.personBefore
	}
	x.personBefore = nil
	prevRule := false
	x.sentOut = len(x.out)
	x.sent = toks
	x.gone = ""
	var ruleBefore []token // a rule's lead or scope, alone in the clause before
	for _, cl := range splitClauses(toks) {
		// Imperatives and subject-less statements only open a sentence, or
		// follow a semicolon, a dash or another rule: "... and never leak
		// internal text" inside a description is not an order.
		at := offsetOf(toks, cl)
		x.lead = at == 0 || prevRule || is(toks, at-1, ";", "-", ":", "(", ")", "...")
		if ruleBefore != nil && opensRule(cl) {
			// "from now on, use pnpm", "in commit messages, never
			// mention ticket numbers": the rule opens after its lead or
			// its scope, and keeps the scope.
			x.lead = true
			if cueLen(ruleLeadCues, ruleBefore) < len(ruleBefore) {
				x.ruleScope = ruleBefore
			}
		}
		if prevRule && x.nextStep(cl) {
			continue // "always rebase first, and squash the fixups"
		}
		x.soSelf = carry != nil && carry.kind == sSpeaker && is(toks, at-1, ",") && is(cl, 0, "so")
		before := len(x.out)
		carry = x.clause(cl, sf, carry)
		x.ruleScope = nil
		prevRule = len(x.out) > before && x.out[len(x.out)-1].Type == memory.TypeConstraint
		ruleBefore = ruleLeadOrScope(cl)
	}
	if x.mode == modeUser {
		x.personBefore = x.personSpokenOf(carry)
	}
	if x.mode == modeUser {
		x.relationNames(toks, sf)
		x.correctInPlace(toks)
		x.replacedInPlace(toks)
	}
	if retractedAtEnd(toks) {
		// "I'm moving to Tallinn, jk": nothing of it was meant.
		x.out, x.made = x.out[:x.sentOut], x.made[:x.sentOut]
		return
	}
	x.alignChangeCategories()
	x.endedBecomesHistory()
}

// newsLead drops an announcement that opens a sentence and its mark ("big
// news, adopted a kitten called Fig", "guess what: ..."; [news-leads] of
// lexicons/cue-patterns.txt): what it announces opens the sentence, so a
// clause with its "I" left out reads as it would alone.
func newsLead(toks []token) []token {
	n := cueLen(newsLeadCues, toks)
	if n == 0 {
		return toks
	}
	for n < len(toks) && toks[n].kind == tPunct {
		n++
	}
	return toks[n:]
}

// Relations a "she" or a "he" can stand for ([relations-she],
// [relations-he] of lexicons/lexicon.txt).
var (
	relationsShe = wordSet("lexicon", "relations-she")
	relationsHe  = wordSet("lexicon", "relations-he")
)

// otherKind reports whether the pronoun cannot stand for the relation:
// after "my brother moved to Oslo", "she ..." is someone else.
func otherKind(relation, pronoun string) bool {
	return pronoun == "she" && relationsHe[relation] || pronoun == "he" && relationsShe[relation]
}

// personSpokenOf returns the person other than the speaker the sentence
// just read ended on: its last clause's subject, else the subject of its
// last candidate ("my sister's birthday is in May" speaks of the sister
// through a possessive); nil when that is the speaker, a team or nobody.
func (x *extraction) personSpokenOf(carry *subject) *subject {
	if carry == nil && len(x.out) > x.sentOut {
		carry = &x.made[len(x.made)-1].subj
	}
	if carry == nil || carry.kind != sNamed && carry.kind != sPerson || carry.id == x.speaker.id {
		return nil
	}
	person := *carry
	return &person
}

// takeBack withdraws the candidates out[from:to] of a sentence taken back
// by the next one, but those whose slot the next one (out[to:]) fills
// again.
func (x *extraction) takeBack(from, to int) {
	if to > len(x.out) {
		return // the next sentence was itself taken back
	}
	keep := x.out[:from:from]
	made := x.made[:from:from]
	for i := from; i < to; i++ {
		again := false
		for _, c := range x.out[to:] {
			if c.Subject == x.out[i].Subject && c.Key == x.out[i].Key {
				again = true
			}
		}
		if again {
			keep = append(keep, x.out[i])
			made = append(made, x.made[i])
		}
	}
	n := to - from - (len(keep) - from)
	if n == 0 {
		return
	}
	keep = append(keep, x.out[to:]...)
	made = append(made, x.made[to:]...)
	x.out, x.made = keep, made
	x.prevOut -= n
	x.sentOut -= n
}
