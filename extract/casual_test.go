package extract

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// Casual speech ends sentences with fillers, sets one thing against
// another and moves to things that are not homes. None of it may become a
// wrong fact: a value is the whole noun phrase and nothing after it, and a
// statement the rules cannot read stays an episode (no candidate at all).
func TestCasualSpeechWritesNoWrongFacts(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		// A trailing adverb, filler or discourse particle is not the value.
		{"finally", "I'm living in Porto finally.", []string{"fact user lives_in=Porto"}},
		{"though", "My favourite tea is oolong though.", []string{"preference user prefers:tea=oolong"}},
		{"seriously", "I work at Brightline now, seriously.", []string{"fact user works_at=Brightline cue=correction"}},
		{"yeah", "My editor is Kakoune yeah.", []string{"preference user prefers:editor=Kakoune"}},
		{"tbh", "I use Emacs tbh.", []string{"preference user prefers:editor=Emacs"}},
		{"ngl", "I'm based in Leipzig ngl.", []string{"fact user lives_in=Leipzig"}},
		{"honestly", "I drink espresso, honestly.", []string{"preference user prefers:drink=espresso"}},
		{"lol", "My go-to editor is Sublime lol.", []string{"preference user prefers:editor=Sublime"}},
		{"again", "I live in Oslo again.", []string{"fact user lives_in=Oslo"}},
		{"anyway", "I'm based in Tallinn anyway.", []string{"fact user lives_in=Tallinn"}},
		{"already", "I moved to Denver already.", []string{"fact user lives_in=Denver cue=correction"}},
		{"originally", "I'm from Quebec originally.", []string{"fact user from=Quebec"}},
		{"a multi-word value stays whole", "I'm living in Santa Cruz finally.", []string{"fact user lives_in=Santa Cruz"}},
		{"a manner adverb", "I speak Catalan fluently.", []string{"fact user speaks:catalan=Catalan"}},
		{"a particle after a goal", "I want to learn the banjo tbh.", []string{"goal user goal:learn_banjo=learn the banjo"}},
		{"a particle after a role", "I'm a paramedic now honestly.", []string{"fact user role=paramedic cue=correction"}},
		// Any trailing filler of [trailing-fillers], one word or a phrase,
		// alone or several in a row; a capitalised one is a name.
		{"forever after an idiom", "I could eat dumplings forever.", []string{"preference user prefers:food=dumplings"}},
		{"forever after a hedge", "Perhaps I could eat dumplings forever.", []string{"preference user prefers:food=dumplings"}},
		{"for now", "My terminal is kitty for now.", []string{"preference user prefers:terminal=kitty"}},
		{"a phrase then a particle", "My shell is zsh at the moment honestly.", []string{"preference user prefers:shell=zsh"}},
		{"all day long", "I use Emacs all day long.", []string{"preference user prefers:editor=Emacs"}},
		{"after a goal", "I want to learn the oboe finally.", []string{"goal user goal:learn_oboe=learn the oboe"}},
		{"a name is kept", "I love Forever 21.", []string{"preference user likes:forever_21=Forever 21"}},
		{"technically", "i'm vegetarian, well, pescatarian technically", []string{"fact user diet=pescatarian cue=correction"}},

		// Plans, intentions not carried out and retractions are no facts.
		{"was going to", "I was going to switch to zsh but didn't.", nil},
		{"was gonna", "i was gonna switch to zsh but nah", nil},
		{"a person's plan to switch", "i'm gonna switch to zsh", nil},
		{"was about to move", "I was about to move to Tartu.", nil},
		{"leaving at a future time", "I'm leaving Quillmark in june.", nil},
		{"someone else leaving later", "my boss is leaving Quillmark next month apparently", nil},
		{"a retraction after", "i'm moving to Tartu. just kidding", nil},
		{"a retraction at the end", "I live in Tartu, jk!", nil},
		{"a retraction, then the truth", "I live in Tartu. jk, I live in Pärnu.", []string{"fact user lives_in=Pärnu"}},
		{"joking aside is no retraction", "I live in Tartu. Joking aside, I love Elixir.", []string{
			"fact user lives_in=Tartu", "preference user prefers:programming_language=Elixir"}},
		{"an appositive is no second item", "I use Vim, the best editor ever.", []string{"preference user prefers:editor=Vim"}},
		{"an appositive after someone else's switch", "my brother switched to Emacs, the traitor", []string{
			"preference brother prefers:editor=Emacs cue=correction"}},
		{"chat particles open a clause", "lol yeah i left Quillmark last month", []string{"fact user works_at=Quillmark cue=negation"}},
		{"a diet given up", "i'm not doing keto anymore", []string{"fact user diet=keto cue=negation"}},
		{"a diet not followed", "I'm not doing keto.", nil},
		{"much is no part of a value", "i don't really code in Ruby much anymore", []string{"preference user prefers:programming_language=Ruby cue=negation"}},
		{"a language given up", "I don't code in Ruby anymore.", []string{"preference user prefers:programming_language=Ruby cue=negation"}},
		{"once is no part of a value", "i used Kakoune once, never again", []string{"preference user prefers:editor=Kakoune cue=past"}},
		{"now and then is no choice", "i sometimes use Kakoune", nil},
		{"rarely is no choice", "I rarely drink soda.", nil},
		{"used to work at X, at Y now", "used to work at Quillmark, i'm at Tessellate now", []string{
			"fact user works_at=Quillmark cue=past", "fact user works_at=Tessellate cue=correction"}},
		{"at a shop now is no job", "I'm at Tesco now.", nil},
		{"moving off a tool soon is a plan", "we're moving off Travis to Drone soon", nil},
		{"moved off a tool", "we moved off Travis to Drone last month", []string{
			"fact team uses:ci=Travis cue=past", "fact team uses:ci=Drone cue=correction"}},
		{"nah opens a clause", "nah i don't use Windows anymore, Mac all the way", []string{"preference user prefers:os=Windows cue=negation"}},
		{"rn", "my son is obsessed with dinosaurs rn", []string{"preference son likes:dinosaurs=dinosaurs"}},
		{"a closing guess hedges", "i'm allergic to kiwi i guess", []string{"fact user allergic_to:kiwi=kiwi hedged crit=high"}},
		{"nearly moved", "i nearly moved to Calgary last year", nil},
		{"almost quit", "I almost quit Brindlecombe.", nil},
		{"almost always reads on", "I almost always use Kakoune.", []string{"preference user prefers:editor=Kakoune"}},
		{"a filler inside the noun of a favourite", "my fav snack rn is seaweed chips", []string{"preference user prefers:food=seaweed chips"}},
		{"rather die than", "i'd rather die than use Mattermost", nil},
		{"how much and how well", "i speak some Romansh, badly", []string{"fact user speaks:romansh=Romansh"}},
		{"a little", "I speak a little Frisian.", []string{"fact user speaks:frisian=Frisian"}},
		{"been on a diet, subject dropped", "been vegan since uni, five years now", []string{"fact user diet=vegan cue=correction"}},
		{"been on a diet before", "been vegan before, not anymore", []string{"fact user diet=vegan cue=past"}},
		{"lived somewhere before", "I've lived in Tartu before.", []string{"fact user lives_in=Tartu cue=past"}},
		{"used a tool in the past", "I've used Kakoune in the past.", []string{"preference user prefers:editor=Kakoune cue=past"}},
		{"like I said before is no history", "i live in Tartu, not Pärnu like i said before", []string{"fact user lives_in=Tartu"}},
		{"before a clause is no closing before", "I used Kakoune before I switched to Helix.", []string{"preference user prefers:editor=Kakoune cue=past"}},
		{"a sigh after a list", "the team uses Gitea, ugh", []string{"fact team uses:code_host=Gitea"}},
		{"a particle alone", "Yeah.", nil},
		{"seriously alone", "Seriously.", nil},

		{"a filler like", "I'm into climbing lately, like totally hooked.", []string{"preference user likes:climbing=climbing"}},
		{"an example like still reads", "I like board games, like the classics.", []string{"preference user likes:board_games=board games", "preference user likes:classics=the classics"}},
		{"the blue one refers back", "My favourite is probably the green one.", nil},

		// Living on, out of, or at something that is not a place.
		{"live on a diet", "I live on toast and tea.", nil},
		{"live on a named street", "I live on Baker Street.", []string{"fact user lives_in=Baker Street"}},
		{"based out of an office", "I'm based out of the Dublin office mostly.", nil},

		// A contrast is not read as its opposite.
		{"not big on X, Y is fine though", "Not big on sushi, ramen is fine though.", []string{"preference user dislikes:sushi=sushi"}},
		{"not a fan of X, Y is ok", "I'm not a fan of cilantro, parsley is ok though.", []string{"preference user dislikes:cilantro=cilantro"}},
		{"X works though", "Not a huge fan of tea, coffee works though.", []string{"preference user dislikes:tea=tea"}},
		{"Ys are fine", "I don't really like horror films, comedies are fine.", []string{"preference user dislikes:horror_films=horror films"}},
		{"Ys are great though", "I'm not into podcasts, audiobooks are great though.", []string{"preference user dislikes:podcasts=podcasts"}},
		{"done with X, Y all the way", "i'm done with Angular, Svelte all the way", []string{"preference user dislikes:angular=Angular"}},
		{"a real list still reads", "I don't like olives, anchovies or capers.", []string{
			"preference user dislikes:olives=olives", "preference user dislikes:anchovies=anchovies", "preference user dislikes:capers=capers"}},

		// "moved to" a seat, a group or a way of working is no home.
		{"moved to a row", "We moved to the back row.", nil},
		{"moved to a team", "I moved to a new team last month.", nil},
		{"moved to a named team", "I moved to the Payments team.", nil},
		{"moved to a shift", "I moved to the night shift.", nil},
		{"moved to a desk", "Moved to a standing desk.", nil},
		{"moved to a way of working", "I moved to remote work.", nil},
		{"moved to a schedule", "We moved to weekly releases.", nil},
		{"moved to the couch", "I moved to the couch because my back hurts.", nil},
		{"moved for a season", "my parents moved to Almería for the winter", nil},
		{"moved for a few months", "I moved to Tartu for a few months.", nil},
		{"living somewhere for a term", "I'm living in Tartu for the semester.", nil},
		{"moved for good is a home", "I moved to Tartu for good.", []string{"fact user lives_in=Tartu cue=correction"}},
		{"moved to a weekday", "we moved to Thursdays for standup", nil},
		{"moved to a department", "i moved to Marketing in the spring", nil},
		{"moved to a tool for a purpose", "i moved to Graphite for dashboards", []string{"preference user prefers:observability=Graphite cue=correction"}},
		{"a city for a person is still home", "i moved to Hamburg for my girlfriend", []string{"fact user lives_in=Hamburg cue=correction"}},
		{"a city still moves home", "I moved to Lisbon last spring.", []string{"fact user lives_in=Lisbon cue=correction"}},
		{"a known city in lower case", "I moved to lisbon in march.", []string{"fact user lives_in=lisbon cue=correction"}},
		{"a country with the", "We moved to the Netherlands in 2019.", []string{"fact user lives_in=the Netherlands cue=correction"}},
		{"city and state", "I just moved to Austin, Texas.", []string{"fact user lives_in=Austin, Texas cue=correction"}},

		// How well is not part of the value; an aside closes a list.
		{"pretty well", "I speak Danish pretty well.", []string{"fact user speaks:danish=Danish"}},
		{"a bare well", "I speak Greek well.", []string{"fact user speaks:greek=Greek"}},
		{"fyi closes a list", "I'm allergic to shellfish, fyi.", []string{"fact user allergic_to:shellfish=shellfish crit=high"}},
		{"a pronoun starts a clause", "I don't love PHP, Ruby I can tolerate.", []string{"preference user dislikes:php=PHP"}},

		// A correction inside one message keeps the corrected value.
		{"actually no, it's", "My browser is Safari, actually no, it's Vivaldi now.", []string{"preference user prefers:browser=Vivaldi cue=correction"}},
		{"well, Y now", "Our team uses npm, well, Bun now.", []string{"fact team uses:package_manager=Bun cue=correction"}},
		{"actually no, an aside", "I like Vim, actually no, it's just ok.", []string{"preference user likes:vim=Vim"}},

		// Being at an employer for a stretch of time is working there.
		{"at X these days", "I'm at Thornbury Analytics these days.", []string{"fact user works_at=Thornbury Analytics cue=correction"}},
		{"at X now after a job change", "Quit the agency in May, I'm at Greywell now.", []string{"fact user works_at=Greywell cue=correction"}},
		{"at X now alone is where one stands", "I'm at Costco now.", nil},
		{"at a known place", "I'm at Madrid these days.", nil},
		{"starting at, no subject", "Starting at Fennick Labs next month.", []string{"fact user works_at=Fennick Labs cue=correction"}},

		// A dislike with the "I'm" dropped, or said of the thing.
		{"not really into, no subject", "Not really into karaoke.", []string{"preference user dislikes:karaoke=karaoke"}},
		{"not keen on, no subject", "Not keen on long drives, trains are better.", []string{"preference user dislikes:long_drives=long drives"}},
		{"X isn't my thing", "Crosswords aren't really my thing.", []string{"preference user dislikes:crosswords=Crosswords"}},
		{"X is my cup of tea", "Birdwatching is totally my cup of tea.", []string{"preference user likes:birdwatching=Birdwatching"}},
		{"it is not my thing names nothing", "It's not my thing.", nil},
		{"a diet one is doing", "I have been doing vegan for a month.", []string{"fact user diet=vegan"}},
		{"doing something else", "I'm doing laundry.", nil},

		// A job ending or a promotion said in passing.
		{"laid off", "Got laid off by Brisbeck on Friday.", []string{"fact user works_at=Brisbeck cue=negation"}},
		{"resigned", "I resigned from Tallow & Finch.", []string{"fact user works_at=Tallow & Finch cue=negation"}},
		{"notice", "I gave notice at Corvane yesterday.", []string{"fact user works_at=Corvane cue=negation"}},
		{"someone else laid off", "My cousin got laid off from Brisbeck.", nil},
		{"a hedged notice", "I might hand in my notice at Corvane.", nil},
		{"promoted", "I just got promoted to principal designer.", []string{"fact user role=principal designer cue=correction"}},

		// Switching tools names the value before; switching to no tool is nothing.
		{"switched from A to B", "I switched from Spotify to Tidal.", []string{"preference user prefers:music_player=Tidal cue=correction", "preference user prefers:music_player=Spotify cue=past"}},
		{"switched to a shift", "I switched from early shifts to lates.", nil},

		// A child starting school is a pupil, not an employee.
		{"a son starts school", "My son started at Oakfield Primary.", nil},
		{"a named child starts nursery", "Mila started at Little Acorns Nursery this week.", nil},
		{"a colleague starts a job", "Lena started at Globex last week.", []string{"fact lena works_at=Globex cue=correction"}},
	})
}

// Casual statements of issue 16 in general shapes: an aside closing the
// sentence, a dropped "I'm", a "X person", a vehicle, a change said as
// "no more X, Y only". Each writes the one fact it says, or none.
func TestCasualShapesIssue16(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		// An aside after a name is not part of it.
		{"btw after a name", "my cat is named Biscuit btw", []string{"fact user name_of:cat=Biscuit"}},
		{"fyi after a name", "my parrot is called Mango fyi", []string{"fact user name_of:parrot=Mango"}},
		{"by the way after a place", "I live in Ghent by the way", []string{"fact user lives_in=Ghent"}},
		// "<my X>'s name is Y" names X as "is called" does.
		{"a pet's name", "my cat's name is Biscuit", []string{"fact user name_of:cat=Biscuit"}},
		{"a pet's name then an aside", "my hamster's name is Noodle btw", []string{"fact user name_of:hamster=Noodle"}},
		{"a band's name, contracted", "my band's name's Static Hum", []string{"fact user name_of:band=Static Hum"}},
		{"a person's name stays theirs", "my boss's name is Priya", []string{"fact boss name=Priya"}},
		{"a pet's name asked", "what's my cat's name?", nil},
		// An "I'm" dropped before an allergy or a language.
		{"a dropped I'm before an allergy", "allergic to peanuts btw", []string{"fact user allergic_to:peanuts=peanuts crit=high"}},
		{"a dropped I'm, lower case, then tbh", "allergic to cashews tbh", []string{"fact user allergic_to:cashews=cashews crit=high"}},
		{"a dropped I'm before a language", "fluent in Dutch, sort of", []string{"fact user speaks:dutch=Dutch"}},
		{"someone else's allergy stays theirs", "my son is allergic to peanuts", []string{"fact son allergic_to:peanuts=peanuts crit=high"}},
		{"an allergy asked", "allergic to peanuts?", nil},
		// A self-correction naming a place corrects no allergy or language.
		{"a place corrects no allergy", "I'm allergic to kiwi. Sorry, I meant Lisbon.", []string{"fact user allergic_to:kiwi=kiwi crit=high"}},
		{"a place corrects no language", "fluent in Greek, sorry I meant Madrid", []string{"fact user speaks:greek=Greek"}},
		// "more of a X person": a liking; "now" marks it new.
		{"more of a X person", "I'm more of a tea person", []string{"preference user prefers:drink=tea"}},
		{"more of a X person now, I'm dropped", "more of a sushi person now", []string{"preference user prefers:food=sushi cue=correction"}},
		{"a trait stays no liking", "more of a morning person these days", nil},
		{"someone else's leaning", "my wife is more of a tea person", []string{"preference wife prefers:drink=tea"}},
		{"more of a question", "more of a question really", nil},
		// ", so <diet> now" after the speaker's own clause: their diet,
		// hedged when "I guess" follows.
		{"a diet concluded, hedged", "started having shrimp again lol, so pescatarian now I guess", []string{"fact user diet=pescatarian hedged"}},
		{"a diet concluded", "gave up cheese last month, so vegan now", []string{"fact user diet=vegan cue=correction"}},
		{"someone else's diet is not the speaker's", "my brother gave up cheese, so vegan now", nil},
		{"no speaker before", "the menu changed, so vegan now", nil},
		{"a diet word in a phrase", "I went shopping, so vegan snacks everywhere", nil},
	})
}
