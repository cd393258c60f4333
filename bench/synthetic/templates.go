package synthetic

// The fixed text of the benchmark. Every sentence a user says and every
// question asked comes from here, so the data is reviewable in one file.
// The phrasings were written as a person would say them, before looking at
// what mnemon's extractor recognises, and the engine must never match these
// exact strings: improve the engine's general rules instead.
//
// Placeholders: {v} is a value; {old} and {new} are the values before and
// after a change.

// Attribute is one thing about a user that can change over time.
type Attribute struct {
	Name string
	// Values are the candidates; a question about the attribute offers all
	// of them to the reader.
	Values []string
	// Paraphrases name the attribute as the questions do, where statements
	// say it differently ("coding language" for "programming language"). It
	// documents the paraphrase gap the benchmark measures.
	Paraphrases []string
	// State says the value for the first time (or again).
	State []string
	// Change says the value changed from {old} to {new}.
	Change []string
	// AskCurrent and AskPrevious are the questions: the value now, and the
	// value before the latest change.
	AskCurrent, AskPrevious []string
	// Other says someone else's value: a distractor.
	Other []string
	// Mention names a value in a question or remark that states nothing
	// about the user: a distractor.
	Mention []string
	// Tentative is a plan or a maybe, not a change: a distractor.
	Tentative []string
}

// attributes returns the attributes users have, in a fixed order.
func attributes() []Attribute {
	return []Attribute{
		{
			Name:        "programming language",
			Values:      []string{"Python", "Rust", "Java", "Kotlin", "Haskell", "Elixir", "TypeScript", "Ruby"},
			Paraphrases: []string{"coding language", "language they code in", "language they write software in"},
			State: []string{
				"My favorite programming language is {v}.",
				"I do most of my programming in {v}.",
				"{v} is my go-to language for pretty much everything.",
				"I really love coding in {v}.",
				"Honestly I prefer {v} over every other programming language.",
				"Most of my side projects are written in {v}.",
			},
			Change: []string{
				"I switched from {old} to {new} for most of my programming.",
				"Actually, my favorite programming language is {new} now.",
				"I've moved on from {old}; {new} is my main language now.",
				"These days I write {new} instead of {old}.",
				"I don't really use {old} anymore, I code in {new}.",
				"{new} has replaced {old} as my favorite language.",
			},
			AskCurrent: []string{
				"What is the user's favorite coding language?",
				"Which language does the user write software in these days?",
				"What language does the user code in right now?",
			},
			AskPrevious: []string{
				"Which coding language did the user prefer before the latest change?",
				"What language did the user code in before switching?",
				"What was the user's favorite language previously?",
			},
			Other: []string{
				"My sister loves {v}.",
				"My coworker swears by {v} for everything.",
				"My friend Sam writes all his code in {v}.",
			},
			Mention: []string{
				"Is {v} hard to learn?",
				"What do you think about {v}?",
				"I read an article comparing {v} with other languages.",
			},
			Tentative: []string{
				"I might try {v} someday.",
				"I'm thinking about learning {v} next year.",
				"Maybe I'll give {v} a shot for my next project.",
			},
		},
		{
			Name:        "editor",
			Values:      []string{"Vim", "Emacs", "Helix", "Zed", "Sublime Text", "VS Code"},
			Paraphrases: []string{"code editor", "text editor", "editor of choice"},
			State: []string{
				"I use {v} as my text editor.",
				"My editor of choice is {v}.",
				"I write all my code in {v}.",
				"I've been editing everything in {v} for years.",
				"{v} is the editor I open first every morning.",
			},
			Change: []string{
				"I switched editors from {old} to {new}.",
				"I gave up {old} and now I edit everything in {new}.",
				"My editor is {new} now, not {old}.",
				"I finally moved from {old} to {new} for editing.",
				"Actually, I prefer {new} as my editor these days.",
			},
			AskCurrent: []string{
				"Which code editor does the user use now?",
				"What text editor does the user prefer?",
				"What's the user's editor of choice at the moment?",
			},
			AskPrevious: []string{
				"Which editor did the user use before switching?",
				"What code editor did the user prefer previously?",
				"Which text editor did the user have before the latest change?",
			},
			Other: []string{
				"My teammate is obsessed with {v}.",
				"My brother uses {v} for everything.",
				"Dana prefers {v}, she says it's faster.",
			},
			Mention: []string{
				"Does {v} support plugins?",
				"Is {v} any good for writing prose?",
				"There's a new release of {v} out today.",
			},
			Tentative: []string{
				"I might switch to {v} at some point.",
				"I'm considering trying {v} next month.",
				"Maybe I should give {v} another chance.",
			},
		},
		{
			Name:        "drink",
			Values:      []string{"coffee", "green tea", "matcha", "espresso", "black tea", "hot chocolate"},
			Paraphrases: []string{"beverage", "what they drink in the morning"},
			State: []string{
				"I drink {v} every morning.",
				"My favorite drink is {v}.",
				"I can't start the day without {v}.",
				"I love a good cup of {v}.",
			},
			Change: []string{
				"I gave up {old} and drink {new} now.",
				"I switched from {old} to {new} in the mornings.",
				"My favorite drink is {new} now; I quit {old}.",
				"Lately I've replaced {old} with {new}.",
				"I no longer drink {old}, it's {new} for me now.",
			},
			AskCurrent: []string{
				"What beverage does the user like most?",
				"What does the user drink in the morning these days?",
				"Which drink is the user's favorite now?",
			},
			AskPrevious: []string{
				"What did the user drink before the latest change?",
				"Which beverage did the user prefer previously?",
				"What was the user's favorite drink before switching?",
			},
			Other: []string{
				"My roommate drinks {v} all day long.",
				"My mom loves {v}.",
				"Alex always orders {v} at the cafe.",
			},
			Mention: []string{
				"How much caffeine is in {v}?",
				"Is {v} healthy?",
				"The cafe downstairs started selling {v}.",
			},
			Tentative: []string{
				"I might cut down and try {v} instead.",
				"I'm thinking about switching to {v} for a while.",
				"Maybe I'll try {v} tomorrow.",
			},
		},
		{
			Name:        "food",
			Values:      []string{"sushi", "ramen", "tacos", "pizza", "Thai curry", "dumplings"},
			Paraphrases: []string{"dish", "meal", "cuisine they like best"},
			State: []string{
				"My favorite food is {v}.",
				"I could eat {v} every single day.",
				"Nothing beats {v} for dinner.",
				"I absolutely love {v}.",
			},
			Change: []string{
				"I used to love {old}, but now my favorite food is {new}.",
				"These days I'm all about {new} rather than {old}.",
				"My favorite food changed from {old} to {new}.",
				"I'm over {old}; {new} is my favorite now.",
			},
			AskCurrent: []string{
				"What dish does the user like best?",
				"What is the user's favorite meal these days?",
				"Which cuisine does the user enjoy most now?",
			},
			AskPrevious: []string{
				"What was the user's favorite food before the change?",
				"Which dish did the user like best previously?",
				"What meal did the user prefer before their taste changed?",
			},
			Other: []string{
				"My husband is crazy about {v}.",
				"My kids love {v}.",
				"Priya's favorite food is {v}.",
			},
			Mention: []string{
				"Do you know a good recipe for {v}?",
				"Where can I find decent {v} around here?",
				"Is {v} expensive to make at home?",
			},
			Tentative: []string{
				"Maybe we'll get {v} this weekend.",
				"I might try making {v} at home.",
				"I'm thinking of ordering {v} tonight.",
			},
		},
		{
			Name:        "music",
			Values:      []string{"jazz", "techno", "folk", "hip hop", "classical music", "heavy metal"},
			Paraphrases: []string{"kind of music", "genre", "what they listen to"},
			State: []string{
				"I listen to {v} all the time.",
				"My favorite kind of music is {v}.",
				"I'm really into {v}.",
				"{v} is what I play while working.",
			},
			Change: []string{
				"I've switched from {old} to {new} lately.",
				"I'm not into {old} anymore; I listen to {new} now.",
				"These days I prefer {new} over {old}.",
				"My taste moved from {old} to {new}.",
			},
			AskCurrent: []string{
				"What genre does the user listen to these days?",
				"Which kind of music does the user enjoy most?",
				"What music is the user into now?",
			},
			AskPrevious: []string{
				"What genre did the user listen to before the latest change?",
				"Which music did the user prefer previously?",
				"What kind of music was the user into before switching?",
			},
			Other: []string{
				"My neighbor blasts {v} every night.",
				"My dad only listens to {v}.",
				"Jordan is a huge fan of {v}.",
			},
			Mention: []string{
				"Can you recommend some {v} albums?",
				"Is there a {v} festival this summer?",
				"I saw a documentary about {v} yesterday.",
			},
			Tentative: []string{
				"I might get into {v} at some point.",
				"Maybe I'll check out some {v} this week.",
				"I'm thinking about going to a {v} concert.",
			},
		},
		{
			Name:        "city",
			Values:      []string{"Lisbon", "Berlin", "Toronto", "Osaka", "Denver", "Nairobi", "Melbourne", "Porto"},
			Paraphrases: []string{"home", "where they are based", "city they call home"},
			State: []string{
				"I live in {v}.",
				"I'm based in {v}.",
				"My home is in {v}.",
				"I've been living in {v} for a few years.",
				"Home for me is {v}.",
			},
			Change: []string{
				"I moved from {old} to {new} last month.",
				"I just relocated to {new}.",
				"We left {old} and settled in {new}.",
				"I live in {new} now.",
				"After years in {old}, my new home is {new}.",
			},
			AskCurrent: []string{
				"Which city does the user live in?",
				"Where is the user's home these days?",
				"Where is the user based now?",
			},
			AskPrevious: []string{
				"Where did the user live before moving?",
				"Which city was the user based in previously?",
				"What city did the user call home before the latest move?",
			},
			Other: []string{
				"My parents live in {v}.",
				"My best friend just moved to {v}.",
				"Chris is based in {v}.",
			},
			Mention: []string{
				"What's the weather like in {v}?",
				"Have you ever been to {v}?",
				"Is {v} expensive to visit?",
			},
			Tentative: []string{
				"I'm thinking about moving to {v}.",
				"We might relocate to {v} next year.",
				"Maybe I'll spend a summer in {v}.",
			},
		},
		{
			Name:        "employer",
			Values:      []string{"Globex", "Initech", "Hooli", "Vandelay Industries", "Pied Piper", "Soylent"},
			Paraphrases: []string{"company they work for", "who employs them", "where they work"},
			State: []string{
				"I work at {v}.",
				"I'm an engineer at {v}.",
				"My employer is {v}.",
				"I've been working for {v} since last year.",
				"I got a job at {v}.",
			},
			Change: []string{
				"I left {old} and joined {new}.",
				"I just started a new job at {new}.",
				"I quit {old}; now I work for {new}.",
				"My new employer is {new}.",
				"I moved from {old} to {new} for a better role.",
			},
			AskCurrent: []string{
				"Which company does the user work for?",
				"Who employs the user now?",
				"Where does the user work these days?",
			},
			AskPrevious: []string{
				"Where did the user work before the latest job change?",
				"Which company employed the user previously?",
				"Who was the user's employer before switching jobs?",
			},
			Other: []string{
				"My wife works at {v}.",
				"My old classmate got hired by {v}.",
				"Taylor has been at {v} for ages.",
			},
			Mention: []string{
				"Is {v} hiring right now?",
				"Did you see the news about {v}?",
				"What is it like to work at {v}?",
			},
			Tentative: []string{
				"I might apply to {v}.",
				"I'm thinking about interviewing at {v}.",
				"Maybe I'll talk to a recruiter from {v}.",
			},
		},
	}
}

// restatements say the current value again, in passing: more evidence,
// not a change.
func restatements() []string {
	return []string{
		"Still enjoying {v}, by the way.",
		"As you know, {v} is still my thing.",
		"Just a reminder that it's {v} for me.",
	}
}

// smallTalk is what users say that states nothing about them: greetings,
// errands, work in progress, the weather. Some of it is long, as real
// messages are, so a context window fills up with it.
func smallTalk() []string {
	return []string{
		"The weather has been lovely this week.",
		"Thanks, that was really helpful!",
		"I watched a great movie last night, a slow science fiction thing with almost no dialogue.",
		"Can you remind me to call the dentist tomorrow?",
		"Good morning!",
		"Ha, that's funny.",
		"I'm a bit tired today, I stayed up too late reading.",
		"Let's pick this up again later.",
		"What time is it in Tokyo right now?",
		"My train was late again this morning, third time this week.",
		"Could you help me write a polite email declining a meeting invitation for Thursday afternoon?",
		"I need to finish the quarterly report before Friday and I have barely started the summary section.",
		"Remind me what we discussed about the deployment checklist last time.",
		"My cat knocked a glass off the table again, so I spent the morning cleaning up.",
		"I'm trying to plan a birthday party for a friend, something small with maybe ten people.",
		"Can you explain the difference between a mutex and a semaphore in simple terms?",
		"The meeting ran long and I didn't get to ask my question about the budget.",
		"I finally fixed that flaky test, it was a timezone issue all along.",
		"It's raining so hard here that I'm not going out for lunch.",
		"I started running again, just short distances for now.",
		"Can you summarize the main points of the article I pasted earlier?",
		"We're repainting the living room this weekend, probably a light grey.",
		"I have a job interview to prepare for a candidate tomorrow, what questions should I ask?",
		"My laptop battery is dying faster than it used to.",
		"What's a good way to organize notes from a long workshop?",
		"I keep forgetting to water my plants.",
		"Please draft a short agenda for Monday's team sync.",
		"I'm reading a book about the history of maps, it's surprisingly gripping.",
		"The neighbors are renovating and the drilling starts at eight every morning.",
		"Could you check whether this regular expression matches dates like 2024-03-01?",
	}
}

// agentReplies are the assistant's turns: generic, naming no value.
func agentReplies() []string {
	return []string{
		"Sure, happy to help.",
		"Got it.",
		"That sounds great!",
		"Let me know if you need anything else.",
		"Thanks for telling me.",
		"Interesting, tell me more.",
		"Of course. Here is a first draft; tell me what to change and I will adjust the tone and the length.",
		"That makes sense. If it helps, we can break the work into smaller steps and tackle them one at a time.",
		"Good question. The short answer is that it depends on the details, so let me walk through the main cases.",
		"I'm sorry to hear that. I hope the rest of your day goes better.",
		"Noted. I will keep that in mind for our next conversation.",
	}
}
