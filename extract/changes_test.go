package extract

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// Changes said in passing must reach reconciliation as changes: the new
// value with a correction cue, the old one ended (a negation) or, when its
// own sentence names what replaced it, history (a past cue, so the value
// before the current one has a version even if it was never stored).
func TestChangeCues(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		// A last day somewhere, a start somewhere else.
		{"last shift, start elsewhere", "Friday was my last shift at Acme, I start at Globex next week.", []string{
			"fact user works_at=Acme cue=past", "fact user works_at=Globex cue=correction"}},
		{"final day alone", "Thursday was my final day at Hooli.", []string{"fact user works_at=Hooli cue=negation"}},
		{"last day announced", "My last day with Initech is the 30th.", []string{"fact user works_at=Initech cue=negation"}},
		{"worked my last week", "Just worked my last week at Wayne Enterprises, then I'm off to Stark Industries.", []string{
			"fact user works_at=Wayne Enterprises cue=negation"}},

		// Leaving one employer and starting at another in one message,
		// however the start is said; the subject dropped in chat.
		{"badge handed in, starting elsewhere", "handed in my badge at Pendleford yesterday, starting at Quarrytown Labs on monday", []string{
			"fact user works_at=Pendleford cue=past", "fact user works_at=Quarrytown Labs cue=correction"}},
		{"keycard, then first day", "turned in my keycard at Pendleford, first day at Quarrytown Labs is thursday", []string{
			"fact user works_at=Pendleford cue=past", "fact user works_at=Quarrytown Labs cue=correction"}},
		{"last day, then first shift", "my last day at Pendleford was friday, first shift at Quarrytown Labs tomorrow", []string{
			"fact user works_at=Pendleford cue=past", "fact user works_at=Quarrytown Labs cue=correction"}},
		{"quit, starting without on", "quit Pendleford, starting at Quarrytown Labs monday", []string{
			"fact user works_at=Pendleford cue=past", "fact user works_at=Quarrytown Labs cue=correction"}},
		{"first week done", "first week at Quarrytown Labs done!", []string{"fact user works_at=Quarrytown Labs cue=correction"}},
		{"first day alone", "My first day at Quarrytown Labs will be Tuesday.", []string{"fact user works_at=Quarrytown Labs cue=correction"}},
		{"resignation alone ends it", "I handed in my resignation at Pendleford.", []string{"fact user works_at=Pendleford cue=negation"}},

		// A home bought, rented or moved into.
		{"closed on a flat, commutes elsewhere", "Finally closed on a flat in Ghent, I'll keep commuting to Brussels.", []string{
			"fact user lives_in=Ghent cue=correction"}},
		{"bought a house", "We bought a little house in Leiden.", []string{"fact user lives_in=Leiden cue=correction"}},
		{"got the keys", "We just got the keys to our new place in Leeds!", []string{"fact user lives_in=Leeds cue=correction"}},
		{"signed a lease", "Signed the lease on an apartment in Lyon yesterday.", []string{"fact user lives_in=Lyon cue=correction"}},
		{"partner and I", "My partner and I bought a cottage in Galway.", []string{"fact user lives_in=Galway cue=correction"}},
		{"keys first, the place after", "Got the keys! Small flat near the harbour in Cork, total chaos.", []string{"fact user lives_in=Cork cue=correction"}},
		{"keys first, spelt out", "I have got the keys. A tiny loft above a bakery in Tartu.", []string{"fact user lives_in=Tartu cue=correction"}},

		// A post at an employer.
		{"on a team at", "I'm on the platform team at Zalando now.", []string{"fact user works_at=Zalando cue=correction"}},
		{"on a crew, from later", "From May I'll be on the weekend crew with Halloran Mills.", []string{"fact user works_at=Halloran Mills cue=correction"}},
		{"the last shift, then a desk elsewhere", "Tuesday was the final shift at Brackenridge, from June I'm on the night desk at Coldwater Freight.", []string{
			"fact user works_at=Brackenridge cue=past", "fact user works_at=Coldwater Freight cue=correction"}},

		// A value corrected inside its own sentence keeps the correction.
		{"sorry, the other city", "I live in Graz, sorry, Linz.", []string{"fact user lives_in=Linz cue=correction"}},
		{"no wait, at", "I work at Acme, no wait, at Initech.", []string{"fact user works_at=Initech cue=correction"}},
		{"I meant", "My favorite editor is Vim, sorry, I meant Helix.", []string{"preference user prefers:editor=Helix cue=correction"}},
		{"or rather", "I'm based in Porto, or rather Braga.", []string{"fact user lives_in=Braga cue=correction"}},
		{"corrected in the next sentence", "I live in Graz. Sorry, Linz.", []string{"fact user lives_in=Linz cue=correction"}},
		{"a date corrected in the next sentence", "My birthday is the 4th. Oops, the 14th.", []string{"fact user birthday=the 14th cue=correction"}},
		{"the next sentence apologises", "I work at Acme. Sorry, I have to run.", []string{"fact user works_at=Acme"}},
		{"the next sentence is an aside", "My editor is Vim. No, I use it daily.", []string{"preference user prefers:editor=Vim"}},
		{"the same value, now history", "i'm a welder, well, was a welder", []string{"fact user role=welder cue=past"}},
		{"was, then no value", "I live in Graz, well, was there for a bit.", []string{"fact user lives_in=Graz"}},
		{"a date corrected", "The recital is on the 9th, sorry, the 19th: the 9th is my sister's.", []string{"fact user date:recital=the 19th cue=correction"}},
		{"a birthday corrected", "My birthday is the 4th, no wait, the 14th.", []string{"fact user birthday=the 14th cue=correction"}},

		// When something of the speaker's is: a date slot a later date replaces.
		{"my thing on a date", "My viva is on the 21st.", []string{"fact user date:viva=the 21st"}},
		{"the thing on a weekday", "The dentist appointment is on Thursday.", []string{"fact user date:dentist_appointment=Thursday"}},
		{"our thing on a date with a month", "Our offsite is on the 3rd of June.", []string{"fact team date:offsite=the 3rd of June"}},
		{"month first", "My flight is on March 3.", []string{"fact user date:flight=March 3"}},
		{"a real birthday is the birthday", "ok ok, my real birthday is the 9th of may", []string{"fact user birthday=the 9th of may"}},
		{"bday is the birthday", "my bday is june 2nd, not june 3rd", []string{"fact user birthday=june 2nd"}},
		{"a birthday keeps its slot, without the on", "My birthday is on the 9th.", []string{"fact user birthday=the 9th"}},

		// A tool replaced: the new one current, the old one history.
		{"ripped out X for Y", "We ripped out MySQL for SQLite last quarter.", []string{
			"fact team uses:database=MySQL cue=past", "fact team uses:database=SQLite cue=correction"}},
		{"swapped X for Y", "We swapped Jenkins for Buildkite.", []string{
			"fact team uses:ci=Jenkins cue=past", "fact team uses:ci=Buildkite cue=correction"}},
		{"swapped out", "We swapped out Jenkins for Buildkite in March.", []string{
			"fact team uses:ci=Jenkins cue=past", "fact team uses:ci=Buildkite cue=correction"}},
		{"moved off X to Y", "We moved off Heroku to Fly.", []string{
			"fact team uses:hosting=Heroku cue=past", "fact team uses:hosting=Fly cue=correction"}},
		{"on X these days, gave up on Y", "I'm on Arch these days, gave up on Ubuntu.", []string{
			"preference user prefers:os=Arch cue=correction", "preference user prefers:os=Ubuntu cue=past"}},
		{"gave up on Y, X these days", "Gave up on Vim, it's Helix these days.", []string{
			"preference user prefers:editor=Vim cue=past", "preference user prefers:editor=Helix cue=correction"}},
		// A name filed under two kinds takes the kind of the other value
		// of its change: Mint is a colour and the short name of an os.
		{"a short name ended, in the other's kind", "I'm on Fedora these days, gave up on Mint.", []string{
			"preference user prefers:os=Fedora cue=correction", "preference user prefers:os=Mint cue=past"}},
		{"a short name set, in the other's kind", "gave up on Debian, switched to Mint", []string{
			"preference user prefers:os=Debian cue=past", "preference user prefers:os=Mint cue=correction"}},
		{"from X to a short name", "I switched from Debian to Mint.", []string{
			"preference user prefers:os=Mint cue=correction", "preference user prefers:os=Debian cue=past"}},
		{"gave up on Y alone ends it", "I gave up on Ubuntu.", []string{"preference user prefers:os=Ubuntu cue=negation"}},
		{"not anymore, then now", "I don't drink soda anymore, it's kombucha now.", []string{
			"preference user prefers:drink=soda cue=past", "preference user prefers:drink=kombucha cue=correction"}},
		{"not anymore alone", "I don't drink soda anymore.", []string{"preference user prefers:drink=soda cue=negation"}},
	})
}

// Every change cue keeps its precision: questions, hypotheticals, plans,
// negations, other people and things that are not the slot's value change
// nothing of the speaker's.
func TestChangeCuesNegatives(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		{"last day: a question", "Is Friday your last day at Acme?", nil},
		{"last day: a conditional", "If Friday is my last day at Acme, I'll throw a party.", nil},
		{"last day: a maybe", "It might be my last week at Acme.", nil},
		{"last day: someone else's", "Tom's last day at Acme was Friday.", nil},
		{"last day: negated", "Today is not my last day at Acme.", nil},
		{"last day: not an employer", "My last day at the beach was great.", nil},

		{"first day: someone else's", "Tom's first day at Quarrytown Labs is monday.", nil},
		{"first day: a question", "Is it your first day at Quarrytown Labs?", nil},
		{"first day: a conditional", "If my first day at Quarrytown Labs goes well, I'll stay.", nil},
		{"first day: a maybe", "Maybe my first day at Quarrytown Labs is monday.", nil},
		{"first day: negated", "It isn't my first day at Quarrytown Labs.", nil},
		{"first day: not an employer", "My first day at the gym was brutal.", nil},
		{"first day: a relation named before", "big news for my sister - first day at Quarrytown Labs tomorrow", nil},
		{"first day: praise for someone", "so proud of Marit, first day at Quarrytown Labs today", nil},
		{"starting: congrats to someone", "congrats to Marit, starting at Quarrytown Labs on monday!", nil},
		{"first day: at uni", "my first day at Uni is monday", nil},
		{"first day: at a college", "first day at Harrowgate College tomorrow", nil},
		{"first day: at a known city", "first day at Lisbon, nervous", nil},
		{"badge: not an employer", "I returned my badge to security.", nil},
		{"a start after someone else's notice stays theirs", "my brother handed in his notice at Pendleford, starting at Quarrytown Labs soon", []string{
			"fact brother works_at=Quarrytown Labs cue=correction"}},
		{"last day: someone else said it", "Tom said the last day at Acme was rough.", nil},
		{"last day: not the speaker's", "The last day at Legoland was the best.", nil},
		{"post: someone else's", "She's on the night desk at Coldwater Freight.", nil},
		{"post: not a post", "I'm on the waiting list at Moorfields.", nil},
		{"post: an idiom", "I'm on the fence about Rust.", nil},
		{"post: someone else's, said by me", "I hear Priya will be on the weekend crew at Halloran Mills.", nil},
		{"post: too many words before the post", "I am on the big old creaky rusty cold ward at Ashgrove.", nil},
		{"home: someone else's keys", "My sister got the keys! Her flat near the park in Cork is lovely.", nil},
		{"home: their keys", "They have got the keys. A flat in Tartu, lucky them.", nil},
		{"home: someone else's", "My sister bought a flat in Ghent.", nil},
		{"home: a holiday home", "We bought a holiday home in Menorca.", nil},
		{"home: to rent out", "I bought a flat in Leeds to rent out.", nil},
		{"home: for others", "We bought a house in Utrecht for my parents.", nil},
		{"home: still buying", "We're buying a house in Utrecht.", nil},
		{"home: a question", "Should we buy a flat in Ghent?", nil},
		{"home: a conditional", "If we buy a flat in Ghent, I'll sell the car.", nil},
		{"home: a maybe", "Maybe we'll close on a flat in Ghent.", nil},
		{"home: not a home", "I bought a lamp in Ghent.", nil},

		{"sorry: not a value", "I live in Graz, sorry, I have to run.", []string{"fact user lives_in=Graz"}},
		{"sorry: an apology", "I work at Acme, sorry for the delay.", []string{"fact user works_at=Acme"}},
		{"sorry: an aside", "I love Vim, sorry, it's just great.", []string{"preference user prefers:editor=Vim"}},
		{"I mean: an aside", "My editor is Vim, I mean, it's fine.", []string{"preference user prefers:editor=Vim"}},
		{"sorry: another kind", "My favorite editor is Vim, sorry, Rust.", []string{"preference user prefers:editor=Vim"}},

		{"date: not a date", "The meeting is on the agenda.", nil},
		{"date: a question", "Is the recital on the 9th?", nil},
		{"date: a conditional", "If the recital is on the 9th, I can't come.", nil},
		{"date: negated", "My recital isn't on the 9th.", nil},
		{"date: someone else's is theirs, not the user's", "My sister's recital is on the 9th.", []string{"fact sister date:recital=the 9th"}},
		{"date: the date as subject", "The 1st is fine.", nil},
		{"date: sorry, not a date", "The recital is on the 9th, sorry, I have to go.", []string{"fact user date:recital=the 9th"}},
		{"date: a favourite is a preference", "My favourite day is Friday.", []string{"preference user prefers:day=Friday"}},
		{"replace: a maybe ends nothing", "We might rip out MySQL for SQLite.", []string{"fact team uses:database=SQLite hedged"}},
		{"replace: a question", "Should we rip out MySQL for SQLite?", nil},
		{"replace: not a tool", "We ripped out the old carpet.", nil},
		{"replace: not a swap of tools", "We traded stories for hours.", nil},
		{"a denial is no history", "I don't work at Umbrella, I work at Cyberdyne now.", []string{
			"fact user works_at=Umbrella cue=negation", "fact user works_at=Cyberdyne cue=correction"}},
		{"no longer is history", "I no longer work at Umbrella, I work at Cyberdyne now.", []string{
			"fact user works_at=Umbrella cue=past", "fact user works_at=Cyberdyne cue=correction"}},
		{"gave up on: not a tool", "I gave up on my novel.", nil},
		{"a short name alone keeps its own kind", "I gave up on Mint.", []string{"preference user prefers:color=mint cue=negation"}},
		{"two kinds, no shared one, stay apart", "I'm on Fedora these days, gave up on coffee.", []string{
			"preference user prefers:os=Fedora cue=correction", "preference user prefers:drink=coffee cue=negation"}},
		{"not drinking is no choice", "I don't drink soda.", nil},
		{"gave up on: negated", "We didn't give up on Linux after all.", nil},
		{"gave up on: a question", "Did you give up on Vim?", nil},
		{"gave up on: someone else's stays theirs", "I'm on Arch these days, my sister gave up on Ubuntu.", []string{
			"preference user prefers:os=Arch cue=correction", "preference sister prefers:os=Ubuntu cue=negation"}},
	})
}

// Who fills a role in the speaker's life, said either way round: a
// relation gets its name ("my manager is Priya" is the manager's name), a
// role with no subject of its own a slot of the speaker's, one at a time,
// so a new landlord replaces the old.
func TestWhoFillsARole(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		{"relation named after", "My manager is Priya.", []string{"fact manager name=Priya"}},
		{"relation named before", "Priya is my manager now.", []string{"fact manager name=Priya cue=correction"}},
		{"a sibling named", "Ravi is my brother.", []string{"fact brother name=Ravi"}},
		{"a role of the speaker's", "Dr Mensah is my GP.", []string{"fact user gp=Dr Mensah"}},
		{"a role with now", "My dentist is Dr Lowe now.", []string{"fact user dentist=Dr Lowe cue=correction"}},
		{"a household's landlord, called", "Some outfit called Kestrel Homes is our new landlord.", []string{"fact team landlord=Kestrel Homes"}},
		{"someone else's role", "Mia's manager is Tariq.", []string{"fact mia manager=Tariq"}},

		{"not a name: an opinion", "My boss is great.", nil},
		{"not a name: an article", "My landlord is a nightmare.", nil},
		{"not a name: a place", "My doctor is in Leeds.", nil},
		{"not a name: a nationality", "My manager is French.", nil},
		{"not a name: a title", "My brother is Head of Sales.", nil},
		{"a question", "Is Priya your manager?", nil},
		{"a conditional", "If Priya is my manager, I'm quitting.", nil},
		{"a role of a role", "Tariq is my manager's manager.", nil},
	})
}
