// Package extract turns captured events into candidate memories.
//
// It holds the deterministic steps of the write path that run before
// admission: the importance Gate (is this text worth extracting at all?),
// DetectInstruction (does it try to instruct the agent, so the engine must
// quarantine it?) and the rule extractor returned by NewRules, which reads
// English first-person statements, project facts, constraints, decisions,
// goals and corrections, and deliberately ignores questions, hypotheticals,
// reported speech, pep talk and other people's preferences.
//
// Everything here is pure: no I/O, no clock, no package-level mutable state,
// so it is safe for concurrent use and cheap enough to run on every event.
//
// # Slots
//
// A candidate names a slot by Subject and Key; different phrasings of one
// choice hit one slot so a later statement supersedes an earlier one. Keys
// are lowercase, ':'-separated, values slugged with '_' (see Slug):
//
//	prefers:<category>     a person's choice in a category: prefers:editor,
//	                       prefers:programming_language, prefers:color
//	                       (CategoryOf knows the things, CanonicalCategory the
//	                       category nouns and their synonyms)
//	likes:<thing>          liked things and activities, one slot each
//	dislikes:<thing>       disliked things, one slot each
//	uses:<thing>           a person's tool with no known category
//	lives_in, from, works_at, role, name, diet, birthday, pronouns,
//	timezone, native_language, nationality
//	date:<thing>           when something of theirs is: date:recital
//	gp, landlord, dentist  who fills a role for them (peopleRoles); a
//	                       relation's own name is <relation>/name instead
//	speaks:<language>, allergic_to:<thing>
//	uses:<category>        a project's or team's tool: uses:package_manager;
//	                       uses:<purpose> for "we use X for Y" (uses:cache);
//	                       uses:<category>:<component> for one part of the
//	                       project ("our backend uses Go")
//	constraint:<action>    a rule; "always use tabs" and "never use tabs"
//	                       share constraint:use_tabs
//	decision:<topic>       a decision; the topic is the purpose ("for the
//	                       frontend"), the thing's category, or the action
//	goal:<action>          a goal: goal:learn_rust
//
// Subjects are the speaker ("user" when unnamed), the project (the event's
// ProjectID, or "team"), a named project or person ("atlas", "bob"), or a
// relation of the speaker ("sister"). First person is always the speaker's;
// in agent messages, tool results and observations only project facts and
// decisions are read.
//
// # Cues and confidence
//
// Cue tells reconciliation how a candidate relates to the slot: a correction
// ("actually", "switched to", "now", "sorry, I meant"), a negation ("no
// longer", "stopped", "my last day at") or history ("used to", simple past,
// or a value whose own sentence names what replaced it: "ripped out MySQL
// for SQLite"). Plain statements get confidence 0.9,
// statements about others or from agents 0.7, hedged ones ("maybe",
// "thinking about", "I guess") at most 0.4 and never a correction cue.
//
// StaysNow reads what Extract leaves alone: "Ines is in Glasgow now" as a
// lives_in correction ([stays-now]), which the caller keeps only when the
// subject's home is known and is another place (alone it may be a trip).
//
// # Lexicons
//
// The word tables the rules read (the things mnemon knows by name and
// their categories, category synonyms, the fillers and particles that end
// a value, change cues, stop words) are data: lexicons/*.txt, one entry
// per line, embedded in the binary and parsed once at start (see
// lexicons.go for the format). Category and CategoryMembers give read-only
// access to the category lexicon for callers outside the extractor. The
// phrases the rules key on are token patterns in lexicons/cue-patterns.txt,
// run by one matcher (cues.go; the file's header documents the syntax):
// the cue words that open a clause, the speaker reporting their own words,
// someone else's words relayed, what opens a question, a clause with its
// "I" left out, the markers of a correction inside a sentence and what may
// follow them, job changes and posts said in passing and whose they are,
// the openers of rules, decisions and hypotheticals, pep talk shaped like
// a rule, the wishes that drop a clause, the modifiers between a subject
// and its verb and after a copula, where a clause starts and whether it
// opens with a verb, a time ahead, the words stripped before a value,
// dates, the phrases of getting a home, and the prompt injections
// DetectInstruction names (role overrides, jailbreaks, deception). A
// pattern is a line of tokens, each a word (written with a capital: only
// so in the text), alternatives (a|b), a lexicon table (@file/table,
// whose entries of several words match as phrases), a class of words
// told by form (%ordinal, %verb, %punct, %filler), a form of the verbs of a
// table (%past(@verbs/...)) or a verb whose lemma is none of some
// (%verb-but(be,have), %base-but(be)), optional (?) or repeated (*), with lookahead (>,
// !), lookbehinds read from the match back (<, <!, <word*) and bounded
// gaps (...N), then => and what a match means. Which reader reads a
// clause by its main verb is data too: [verb-readers] of
// lexicons/verbs.txt, with the verbs' inflections ([inflections]).
//
// # Slot templates
//
// Where a match fills a slot, the line is a slot template (slots.go): the
// same tokens, then a capture naming the reader of the value, then the
// key and when the rule reads:
//
//	born in {place} => from personal -past
//	hired by|at|with|for {org} => - personal +corr -past
//	sick|tired of {dislike} => - personal !not
//	decide: against {decide-object} => - speaker team named !gerund -past +neg
//
// The capture ({place}, {org}, {role}, {name}, {thing}, {like},
// {dislike}, {diet}, ...; {-} reads nothing) takes the words after the
// match, or the span a line marks inside its pattern with { and }:
//
//	allergy: a|an severe|mild* { ...3!%quote } allergy|allergies {allergen} => - personal !not +high
//	{:value %any ...3 } is|are|'s|'re my thing|jam|scene {like} => - !hedge !not
//	my|our { ...4~!from|over } to {switch-as} => -
//
// A line marks two spans at most, and a span opened with {:check must pass
// a named check ({:value}: no pronoun nor determiner; {:category}: words
// naming a category); the capture may check the value it reads
// ({thing:known}, {choice:music}), and a line that fails a check passes
// to the next. A token %thing (%place, %org, %role) is a value as long as
// valueLen reads it: "{:known %thing } with" ends the span with the value.
// Each reader knows where its kind of value ends (valueLen) and
// what it writes. After => come the key (- when the reader knows it), the
// subjects the rule reads (speaker, person, named, team, personal), the
// conditions on the clause (!not, !hedge, !future, !past, !denied, corr,
// negative, and the verb's form: !gerund, past-form, !past-form) and the
// flags a match sets (+corr, +neg, +hedge, +high, -past, +ended,
// +negated, +person). The first rule of a table that matches, whose
// conditions hold and whose reader takes the value decides; a failed
// condition passes to the next line, so a line with {-} ends a group.
// Tables of slot templates: [copula] (what follows "am/is"), [cannot],
// [decision-bodies] (what was decided), [decided-verbs] and
// [let-us-verbs] (the verb that chose it), [possessive-nouns] (by the noun
// of "my <noun> is ..."), [verb-slots] (by the reader [verb-readers]
// names: live, work, settle, grow, come, goal, try, diet, use, rely,
// replace, retire, rip-out, bump, listen, drink, job, accept-job, start, stop,
// give-up, consider, think-of, lean, the project verbs,
// decide, agree, standardize, opt, choose, stick, go, plan, intend,
// hope, learn, like, love, dislike, prefer, speak, eat, allergy), [job-changes] and
// [posts] (changes said in passing, with whose they are), [idiom-slots]
// (the speaker's own said without "I": "home these days is X", "all my
// apps are written in X", "X is not my thing"), [bare-allergies],
// [tool-activities] (run at every token: "I do my hacking in X"),
// [team-tools], [switches] ("switched from X to Y", "changed my shell
// to fish") and [reverse-copula] ("<X> is my <noun>"). lexicons/README.md
// walks through adding a rule. What stays Go is what reads a value
// (values.go), the readers that weigh the lexicon (useThing, likeThing,
// interpretNP's categories) and the readers that choose between several
// slots (move, leave, copulaNP).
//
// # Precision
//
// testdata/golden holds casual sentences written for mnemon, each with the
// facts a careful reader stores and the facts the rules write today;
// TestGoldenPrecision fails when the output changes (re-record with
// go test ./extract -run TestGoldenPrecision -update, which never touches
// the reviewed facts) and when any fact written is not a reviewed one.
package extract
