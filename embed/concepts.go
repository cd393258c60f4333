package embed

import (
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/mnemon-dev/mnemon/search"
)

// conceptGroups is the built-in embedder's small thesaurus. Words in one
// group share a "concept" feature, so texts that say the same thing in
// different words ("coding language" / "programming language", "which city
// does she live in" / "I live in Lisbon") get a clearly positive cosine
// without a model. The first word names the group. A word may appear in
// several groups. Entries are single words, matched after stemming, so
// "programming", "programmer" and "programs" all reach the program group.
//
// The list favours what agents are told to remember: people and family,
// work, places, preferences, health, hobbies, software work and time.
// Read-only.
var conceptGroups = [][]string{
	// Software work.
	{"program", "programming", "coding", "code", "coder", "programmer", "developer", "development", "software", "scripting", "hacking"},
	{"language", "programming", "golang", "python", "rust", "java", "javascript", "typescript", "kotlin", "ruby", "haskell", "elixir", "scala", "swift", "c++", "c#", "php", "perl", "zig"},
	{"editor", "ide", "vim", "neovim", "emacs", "vscode", "intellij", "goland", "xcode", "sublime", "zed", "helix", "pycharm", "notepad++"},
	{"bug", "error", "defect", "issue", "crash", "failure", "exception", "panic", "glitch", "regression", "broken"},
	{"fix", "patch", "repair", "resolve", "hotfix", "workaround", "solve"},
	{"deploy", "deployment", "release", "ship", "rollout", "publish", "launch"},
	{"test", "testing", "tests", "unittest", "pytest", "spec", "assertion", "qa"},
	{"database", "db", "sql", "postgres", "postgresql", "sqlite", "mysql", "mongodb", "redis", "dynamodb", "cassandra", "clickhouse", "datastore"},
	{"server", "backend", "service", "api", "endpoint", "microservice"},
	{"frontend", "ui", "interface", "web", "website", "browser", "css", "html", "react"},
	{"repository", "repo", "git", "github", "gitlab", "commit", "branch", "merge", "pull"},
	{"container", "docker", "kubernetes", "kubectl", "pod", "k8s", "image"},
	{"cloud", "aws", "gcp", "azure", "hosting", "infrastructure", "terraform"},
	{"computer", "laptop", "pc", "desktop", "macbook", "workstation", "machine"},
	{"os", "linux", "ubuntu", "debian", "macos", "windows", "freebsd", "alpine", "unix"},
	{"theme", "dark", "light", "colorscheme", "solarized", "monokai", "dracula", "gruvbox", "nord"},
	{"format", "formatting", "formatter", "gofmt", "prettier", "lint", "linter", "eslint", "style"},
	{"password", "credential", "secret", "token", "key", "login", "auth", "authentication"},
	{"documentation", "docs", "readme", "manual", "guide", "wiki"},
	{"performance", "speed", "fast", "slow", "latency", "throughput", "quick", "efficient"},
	{"meeting", "call", "standup", "sync", "appointment", "session", "conference", "interview"},
	{"deadline", "due", "schedule", "timeline", "milestone", "date"},
	{"task", "todo", "ticket", "chore", "assignment", "job", "errand"},
	{"project", "initiative", "product", "app", "application", "tool"},

	// Work and study.
	{"job", "work", "career", "employer", "employment", "occupation", "profession", "position", "role", "company", "office", "workplace", "employee", "boss", "manager", "colleague", "coworker", "hired", "salary"},
	{"engineer", "developer", "programmer", "architect", "designer", "scientist", "researcher", "technician"},
	{"teacher", "professor", "tutor", "instructor", "educator", "lecturer", "mentor", "coach"},
	{"doctor", "physician", "nurse", "therapist", "counselor", "dentist", "surgeon", "pharmacist", "psychologist", "clinic", "hospital"},
	{"school", "college", "university", "class", "course", "study", "student", "education", "degree", "lesson", "lecture", "exam", "homework", "learn", "learning", "graduate"},
	{"startup", "business", "company", "firm", "enterprise", "corporation", "organization"},
	{"volunteer", "volunteering", "charity", "nonprofit", "donate", "donation", "fundraiser", "shelter", "community"},
	{"money", "cash", "salary", "income", "pay", "paid", "price", "cost", "expensive", "cheap", "budget", "savings", "finance", "bank", "afford", "dollars", "euros"},

	// Places and moving.
	{"live", "lives", "living", "reside", "resident", "home", "house", "apartment", "flat", "based", "hometown", "neighborhood", "moved", "move", "relocate", "settled", "address"},
	{"city", "town", "village", "capital", "hometown", "downtown", "urban", "suburb", "lisbon", "porto", "berlin", "paris", "london", "tokyo", "kyoto", "boston", "seattle", "austin", "madrid", "rome", "toronto", "sydney", "dublin", "prague", "vienna", "oslo", "denver", "chicago", "mumbai", "nairobi", "lima", "seoul", "warsaw", "athens", "zurich", "helsinki", "montreal", "bogota", "york", "amsterdam", "barcelona", "singapore", "melbourne"},
	{"country", "nation", "abroad", "portugal", "germany", "france", "spain", "italy", "japan", "canada", "australia", "brazil", "india", "mexico", "china", "england", "ireland", "sweden", "usa", "america"},
	{"travel", "trip", "vacation", "holiday", "journey", "visit", "tour", "flight", "fly", "abroad", "traveling", "getaway", "sightseeing"},
	{"car", "vehicle", "automobile", "truck", "suv", "van", "drive", "driving", "commute", "tesla", "toyota", "honda", "volvo", "subaru", "ford", "prius", "pickup", "sedan"},
	{"bike", "bicycle", "cycling", "biking", "ride", "cyclist"},
	{"train", "subway", "metro", "bus", "tram", "transit", "commute"},

	// People.
	{"family", "relative", "parent", "mother", "father", "mom", "dad", "sister", "brother", "sibling", "son", "daughter", "kid", "kids", "child", "children", "aunt", "uncle", "cousin", "grandmother", "grandfather", "grandma", "grandpa", "niece", "nephew"},
	{"partner", "spouse", "wife", "husband", "girlfriend", "boyfriend", "fiance", "fiancee", "married", "marriage", "wedding", "engaged"},
	{"friend", "friends", "buddy", "pal", "roommate", "neighbor", "friendship", "bestie"},
	{"baby", "newborn", "infant", "toddler", "pregnant", "pregnancy"},
	{"birthday", "anniversary", "born", "age", "celebrate", "celebration", "party"},
	{"name", "called", "named", "nickname", "surname"},
	{"lgbtq", "transgender", "trans", "gay", "lesbian", "queer", "bisexual", "pride", "nonbinary", "identity"},

	// Preferences and feelings.
	{"like", "love", "enjoy", "favorite", "favourite", "prefer", "preference", "fond", "fan", "adore", "keen"},
	{"dislike", "hate", "avoid", "detest", "loathe", "annoyed", "annoying", "dread"},
	{"happy", "glad", "joy", "excited", "thrilled", "delighted", "cheerful", "proud", "grateful"},
	{"sad", "unhappy", "upset", "depressed", "lonely", "grief", "down", "miserable", "heartbroken"},
	{"stress", "stressed", "anxious", "anxiety", "worried", "nervous", "overwhelmed", "burnout", "pressure", "swamped"},
	{"tired", "exhausted", "sleepy", "fatigue", "sleep", "insomnia", "nap", "rest"},
	{"angry", "mad", "furious", "frustrated", "irritated"},
	{"scared", "afraid", "fear", "frightened", "phobia", "terrified"},
	{"inspire", "inspired", "inspiring", "motivate", "motivated", "motivation", "encourage"},
	{"support", "supportive", "help", "helping", "assist", "encourage", "care"},

	// Health and food.
	{"allergy", "allergic", "intolerant", "intolerance", "reaction", "sensitive", "anaphylaxis"},
	{"health", "healthy", "illness", "sick", "disease", "symptom", "medicine", "medication", "prescription", "treatment", "therapy", "diagnosis", "injury", "recovery", "surgery"},
	{"mental", "therapy", "therapist", "counseling", "psychology", "mindfulness", "meditation", "wellbeing"},
	{"exercise", "workout", "gym", "fitness", "training", "run", "running", "jog", "jogging", "marathon", "yoga", "pilates", "lift", "sport"},
	{"diet", "vegan", "vegetarian", "keto", "gluten", "dairy", "lactose", "nutrition", "calories", "meal", "eat", "eating"},
	{"food", "meal", "dish", "cuisine", "cook", "cooking", "recipe", "dinner", "lunch", "breakfast", "snack", "restaurant", "eat", "bake", "baking", "chef"},
	{"drink", "beverage", "coffee", "tea", "espresso", "latte", "cappuccino", "matcha", "chai", "juice", "soda", "water", "smoothie", "cocoa"},
	{"alcohol", "beer", "wine", "whiskey", "cocktail", "vodka", "drunk", "sober"},
	{"nut", "nuts", "peanut", "peanuts", "almond", "cashew", "walnut", "hazelnut"},
	{"seafood", "shellfish", "shrimp", "crab", "lobster", "fish", "oyster", "sushi", "salmon", "tuna"},
	{"spicy", "hot", "chili", "pepper", "curry", "jalapeno"},
	{"sweet", "dessert", "cake", "chocolate", "candy", "cookie", "pastry", "sugar", "ice"},
	{"fruit", "apple", "banana", "orange", "strawberry", "berry", "grape", "mango", "avocado"},
	{"vegetable", "veggie", "salad", "broccoli", "carrot", "spinach", "mushroom", "lentil", "bean"},
	{"pizza", "pasta", "burger", "tacos", "ramen", "noodles", "sandwich"},

	// Hobbies and leisure.
	{"hobby", "pastime", "interest", "passion", "leisure", "fun"},
	{"art", "paint", "painting", "painter", "draw", "drawing", "sketch", "artist", "canvas", "easel", "watercolor", "illustration", "pottery", "ceramics", "sculpture", "craft"},
	{"music", "song", "sing", "singing", "singer", "band", "concert", "album", "musician", "guitar", "piano", "violin", "drums", "cello", "flute", "saxophone", "ukulele", "instrument", "playlist", "melody"},
	{"book", "read", "reading", "novel", "author", "writer", "library", "story", "literature", "poetry", "poem", "memoir", "biography"},
	{"write", "writing", "journal", "blog", "essay", "article", "diary"},
	{"movie", "film", "cinema", "watch", "show", "series", "tv", "television", "netflix", "documentary", "actor", "actress"},
	{"game", "gaming", "videogame", "play", "console", "playstation", "xbox", "nintendo", "chess", "board"},
	{"photo", "photograph", "photography", "camera", "picture", "pic", "selfie", "photographer"},
	{"outdoors", "nature", "hike", "hiking", "camp", "camping", "trail", "mountain", "forest", "park", "lake", "beach", "outdoor", "climb", "climbing", "kayak", "kayaking", "fishing", "surfing", "ski", "skiing"},
	{"swim", "swimming", "pool", "swimmer", "dive", "diving", "snorkel"},
	{"garden", "gardening", "plant", "plants", "flower", "flowers", "grow", "seeds", "yard"},
	{"dance", "dancing", "dancer", "ballet", "salsa"},
	{"sunrise", "sunset", "dawn", "dusk", "sky", "landscape", "scenery", "view"},
	{"pet", "pets", "dog", "puppy", "cat", "kitten", "parrot", "rabbit", "hamster", "turtle", "animal", "vet", "adopt", "adopted"},
	{"team", "match", "football", "soccer", "basketball", "baseball", "tennis", "golf", "hockey", "league", "sport", "sports"},

	// Time.
	{"morning", "am", "breakfast", "sunrise", "early", "dawn"},
	{"evening", "night", "pm", "dinner", "late", "tonight"},
	{"weekend", "saturday", "sunday"},
	{"weekday", "monday", "tuesday", "wednesday", "thursday", "friday"},
	{"month", "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"},
	{"season", "summer", "winter", "spring", "autumn", "fall"},
	{"yesterday", "today", "tomorrow", "recently", "lately", "ago", "last", "next"},
	{"week", "weekly", "biweekly", "fortnight"},
	{"year", "yearly", "annual", "annually"},
	{"daily", "everyday", "routine", "habit", "usually", "always", "often"},

	// Communication and things.
	{"phone", "mobile", "cellphone", "smartphone", "iphone", "android", "call", "text", "sms"},
	{"email", "mail", "inbox", "message", "messaging", "slack", "chat", "dm", "letter"},
	{"buy", "bought", "purchase", "purchased", "order", "ordered", "shop", "shopping", "store", "acquire"},
	{"gift", "present", "surprise", "gave"},
	{"clothes", "clothing", "shirt", "jacket", "dress", "shoes", "sneakers", "outfit", "wear", "coat"},
	{"weather", "rain", "cloud", "sunny", "snow", "storm", "cold", "warm", "temperature", "forecast"},
	{"remember", "recall", "memory", "remind", "reminder", "forget", "forgot", "note"},
	{"goal", "plan", "plans", "aim", "ambition", "dream", "hope", "intend", "want", "wish"},
	{"start", "begin", "began", "started", "starting", "launch", "kickoff"},
	{"finish", "finished", "complete", "completed", "done", "end", "ended", "wrap"},
	{"agree", "agreed", "decide", "decided", "decision", "chose", "choose", "choice", "consensus"},
	{"rule", "policy", "constraint", "requirement", "must", "never", "always", "guideline", "convention"},
}

// conceptMembers maps each concept name (a group's first word) to the
// stems of its words, as conceptTable reads them.
var conceptMembers = sync.OnceValue(func() map[string][]string {
	members := map[string][]string{}
	for stem, names := range conceptTable() {
		for _, name := range names {
			members[name] = append(members[name], stem)
		}
	}
	for _, m := range members {
		slices.Sort(m)
	}
	return members
})

// headStems maps the stem of each concept's name to the name.
var headStems = sync.OnceValue(func() map[string]string {
	an := search.NewAnalyzer()
	out := map[string]string{}
	for _, g := range conceptGroups {
		an.Words(g[0], func(_, t string) {
			if _, ok := out[t]; !ok {
				out[t] = g[0]
			}
		})
	}
	return out
})

// PluralHeads returns, for a text, the concepts it names in the plural
// as a noun ("which cities", "what European countries", "on weekends",
// "her pets"): a question asking for a set of things of a kind. A plural
// counts after a word that opens a noun phrase (setOpeners), at most two
// words before it; "who supports her" names no set.
func PluralHeads(an *search.Analyzer, text string) []string {
	heads := headStems()
	var out []string
	since := -1 // words since the last opener; -1: none yet
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	for _, w := range words {
		switch {
		case setOpeners[w]:
			since = 0
			continue
		case since < 0 || clauseVerbs[w]:
			since = -1
			continue
		}
		if since <= 2 && strings.HasSuffix(w, "s") {
			// Only a plural's stem is looked up: most queries have none.
			t := ""
			an.Words(w, func(_, stem string) {
				if t == "" {
					t = stem
				}
			})
			if name, ok := heads[t]; ok && w != name && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
		since++
	}
	return out
}

// setOpeners open a noun phrase that may name a set of things.
var setOpeners = map[string]bool{
	"what": true, "which": true, "many": true, "any": true, "all": true, "both": true, "some": true,
	"other": true, "these": true, "those": true, "the": true, "her": true, "his": true, "their": true,
	"my": true, "your": true, "our": true, "on": true, "at": true, "in": true, "of": true, "for": true,
	"about": true, "favorite": true, "favourite": true,
}

// clauseVerbs end a noun phrase: "what does she ..." names no set after
// "what".
var clauseVerbs = map[string]bool{
	"is": true, "are": true, "was": true, "were": true, "be": true, "been": true, "do": true, "does": true,
	"did": true, "has": true, "have": true, "had": true, "can": true, "could": true, "will": true,
	"would": true, "should": true, "might": true, "must": true,
}

// Members returns the stems of the words of the named concepts not among
// terms, sorted.
func Members(names, terms []string) []string {
	members := conceptMembers()
	var out []string
	for _, name := range names {
		for _, m := range members[name] {
			if !slices.Contains(terms, m) && !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out
}
