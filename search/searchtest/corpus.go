// Package searchtest generates seeded, reproducible corpora of short,
// realistic sentences (the kind of thing an agent remembers about a user) for
// benchmarks and quality tests of the search index and the embedders.
package searchtest

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Generator produces sentences from templates filled with Zipf-distributed
// words, so term frequencies look like real text: a few very common words
// and a long tail. It is not safe for concurrent use.
type Generator struct {
	r     *rand.Rand
	zipfs map[int]*rand.Zipf
}

// NewGenerator returns a Generator; the same seed yields the same sentences
// on every platform.
func NewGenerator(seed uint64) *Generator {
	return &Generator{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), zipfs: map[int]*rand.Zipf{}}
}

// Sentences returns n sentences.
func (g *Generator) Sentences(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = g.Sentence()
	}
	return out
}

// Sentence returns one sentence. Most get a second clause with specifics
// (dates, numbers, rare names), as real memories do; without it a corpus of
// 100k would be one-third exact duplicates, which real stores dedupe away.
func (g *Generator) Sentence() string {
	s := g.fill(templates[g.r.IntN(len(templates))])
	if g.r.IntN(10) < 6 {
		s += " " + g.fill(details[g.r.IntN(len(details))])
	}
	return s
}

func (g *Generator) fill(t string) string {
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		if t[i] != '{' {
			b.WriteByte(t[i])
			continue
		}
		j := strings.IndexByte(t[i:], '}')
		switch slot := t[i+1 : i+j]; slot {
		case "day":
			b.WriteString(strconv.Itoa(1 + g.r.IntN(28)))
		case "yr":
			b.WriteString(strconv.Itoa(2015 + g.r.IntN(11)))
		case "num":
			b.WriteString(strconv.Itoa(100 + g.r.IntN(9900)))
		default:
			b.WriteString(g.pick(slots[slot]))
		}
		i += j
	}
	return b.String()
}

var details = []string{
	"That was on {month} {day}, {yr}.",
	"{name} {surname} confirmed it on {weekday}.",
	"It cost about {num} dollars.",
	"The ticket number is {num}.",
	"This came up again in {month} {yr}.",
	"{surname} from the {place} helped with the {noun}.",
	"It felt {adj} but {adj} at the same time.",
	"Follow up with {name} before {month} {day}.",
	"See the {adj} {noun} note from {weekday}.",
	"Apparently {surname} {street} has a {adj} {noun} too.",
}

// Word returns a random word from the named slot ("name", "city", "food"...).
func (g *Generator) Word(slot string) string { return g.pick(slots[slot]) }

// Rare returns a word drawn uniformly from the named slot, so mostly from
// its long tail: what a planted fact uses to be findable among filler.
func (g *Generator) Rare(slot string) string {
	words := slots[slot]
	if len(words) == 0 {
		return ""
	}
	return words[g.r.IntN(len(words))]
}

// IntN exposes the generator's random source for callers building on it.
func (g *Generator) IntN(n int) int { return g.r.IntN(n) }

func (g *Generator) pick(words []string) string {
	if len(words) == 0 {
		return ""
	}
	z := g.zipfs[len(words)]
	if z == nil {
		z = rand.NewZipf(g.r, 1.1, 2, uint64(len(words)-1))
		g.zipfs[len(words)] = z
	}
	return words[z.Uint64()]
}

var templates = []string{
	"{name} prefers {drink} in the {daypart} and {drink} after lunch.",
	"{name} lives in {city} with {pron} {relative}.",
	"{name} moved to {city} last {period} for a new job at a {company} company.",
	"{name} works as a {job} at a {company} startup in {city}.",
	"My favourite editor is {editor} with the {theme} theme.",
	"{name} uses {editor} for {lang} and {editor} for quick edits.",
	"The deploy script for {project} runs on {os} and needs {tool} installed.",
	"{name} is allergic to {food} and avoids {food} at restaurants.",
	"We decided to use {lang} for the {project} backend because of {reason}.",
	"{name} went {activity} with {pron} {relative} near {city} on {weekday}.",
	"Remember that {name} hates {food} but loves {food}.",
	"{name} has a {pet} named {petname} who likes {activity}.",
	"The {project} tests fail on {os} when {tool} is missing.",
	"{name} is learning {lang} and reading a book about {topic}.",
	"Meeting with {name} about {topic} moved to {weekday} at {hour}.",
	"{name} bought a new {thing} for {activity} last {period}.",
	"Always run {tool} before committing changes to {project}.",
	"{name} painted a {scene} and shared it with {pron} {relative}.",
	"{name} volunteers at the {place} every {weekday} {daypart}.",
	"The {project} database is {db} and backups run every {hour}.",
	"{name} said the {topic} workshop in {city} was inspiring.",
	"{name} drives a {car} and commutes to {city} for work.",
	"{name} wants to visit {city} next {period} to see the {place}.",
	"Use {theme} mode in {editor}; {name} finds bright screens tiring.",
	"{name} plays the {instrument} and practices every {daypart}.",
	"For {project}, prefer {db} over {db} because of {reason}.",
	"{name}'s birthday is in {month} and {name} wants {food} cake.",
	"{name} ran a {race} in {city} and finished in {hour}.",
	"The team agreed that {project} releases happen on {weekday}.",
	"{name} read {book} and recommended it to {pron} {relative}.",
	"{name} {surname} mentioned that the {adj} {noun} at {surname} {street} was {adj}.",
	"Note: {name} asked to keep the {adj} {noun} away from the {noun}.",
	"{name} met {name} {surname} at the {place} to talk about the {noun}.",
	"The {noun} from {surname} arrived {adj} and {name} sent it back.",
	"{name} thinks the {adj} {noun} is better than the {noun} for {activity}.",
	"Ordered a {adj} {noun} from {surname} for {pron} {relative}'s {noun}.",
}

var slots = map[string][]string{
	"name": {"Rosalind", "Imogen", "Bertil", "Ingrid", "Alex", "Priya", "Tom", "Aiko", "Lucas", "Fatima",
		"Kofi", "Wren", "Thea", "Marisol", "Piet", "Oskar", "Ruben", "Elif", "Bruno", "Anouk",
		"Saoirse", "Matteo", "Kwame", "Maya", "Olivia", "Noah", "Emma", "Liam", "Sofia", "Mateo",
		"Chen", "Ravi", "Ana", "Ivan", "Zoe", "Omar", "Lena", "Yusuf", "Hana", "Diego"},
	"pron":     {"her", "his", "their"},
	"relative": {"sister", "brother", "mother", "father", "kids", "partner", "wife", "husband", "cousin", "friends", "grandmother", "roommate", "son", "daughter", "uncle", "aunt"},
	"city": {"Lisbon", "Berlin", "Paris", "London", "Tokyo", "Boston", "Seattle", "Austin", "Madrid", "Rome",
		"Toronto", "Sydney", "Dublin", "Prague", "Vienna", "Oslo", "Denver", "Chicago", "Porto", "Kyoto",
		"Mumbai", "Nairobi", "Lima", "Seoul", "Warsaw", "Athens", "Zurich", "Helsinki", "Montreal", "Bogota"},
	"drink":   {"coffee", "tea", "green tea", "espresso", "oat milk latte", "water", "orange juice", "matcha", "hot chocolate", "sparkling water", "chai", "smoothies"},
	"daypart": {"morning", "evening", "afternoon", "night", "weekend"},
	"job": {"software engineer", "nurse", "teacher", "designer", "data scientist", "counselor", "chef", "lawyer", "accountant", "product manager",
		"photographer", "carpenter", "researcher", "pharmacist", "architect", "journalist", "electrician", "barista", "mechanic", "librarian"},
	"company": {"fintech", "healthcare", "gaming", "logistics", "climate", "education", "retail", "security", "robotics", "media"},
	"editor":  {"VS Code", "Neovim", "Vim", "Emacs", "IntelliJ", "Sublime Text", "Zed", "Helix", "GoLand", "Xcode"},
	"theme":   {"dark", "light", "solarized", "monokai", "dracula", "gruvbox", "nord"},
	"lang":    {"Go", "Python", "Rust", "TypeScript", "Java", "Kotlin", "C++", "Ruby", "Elixir", "Haskell", "Swift", "C#", "Scala", "Zig"},
	"project": {"billing", "mnemon", "the mobile app", "the website", "payments", "search", "analytics", "the data pipeline", "auth service", "inventory"},
	"os":      {"Linux", "macOS", "Windows", "FreeBSD", "Alpine", "Ubuntu", "Debian"},
	"tool":    {"make", "docker", "gofmt", "eslint", "terraform", "kubectl", "pytest", "cargo", "npm", "bazel", "git hooks", "protoc"},
	"food": {"peanuts", "shellfish", "gluten", "dairy", "mushrooms", "cilantro", "olives", "sushi", "pizza", "tacos",
		"chocolate", "strawberries", "eggs", "spicy food", "ramen", "pasta", "curry", "lentils", "blue cheese", "avocado"},
	"reason":   {"performance", "the team's experience", "hiring", "simplicity", "type safety", "the ecosystem", "cost", "latency", "tooling", "reliability"},
	"activity": {"hiking", "camping", "swimming", "running", "cycling", "painting", "pottery", "climbing", "surfing", "skiing", "fishing", "dancing", "gardening", "kayaking", "baking", "yoga"},
	"weekday":  {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"},
	"pet":      {"dog", "cat", "parrot", "rabbit", "hamster", "turtle", "guinea pig"},
	"petname":  {"Luna", "Max", "Bella", "Charlie", "Milo", "Oscar", "Pepper", "Biscuit", "Shadow", "Coco"},
	"topic": {"machine learning", "mental health", "housing policy", "climate change", "photography", "personal finance", "nutrition", "startups", "parenting", "history",
		"distributed systems", "gardening", "astronomy", "meditation", "public speaking", "urban design"},
	"hour":       {"9 am", "10 am", "noon", "3 pm", "5 pm", "two hours", "six hours", "midnight", "four hours"},
	"thing":      {"bike", "camera", "tent", "laptop", "guitar", "kayak", "pair of running shoes", "telescope", "easel", "backpack"},
	"scene":      {"sunrise", "sunset", "lake", "mountain landscape", "portrait", "still life", "city skyline", "forest", "beach", "flower field"},
	"place":      {"animal shelter", "library", "museum", "community garden", "food bank", "hospital", "school", "youth center", "church", "beach"},
	"db":         {"PostgreSQL", "SQLite", "MySQL", "Redis", "MongoDB", "DynamoDB", "Cassandra", "ClickHouse"},
	"car":        {"Toyota Corolla", "Tesla Model 3", "Honda Civic", "Volvo", "Ford pickup", "Subaru Outback", "Mini Cooper", "Prius"},
	"instrument": {"piano", "guitar", "violin", "drums", "cello", "flute", "saxophone", "ukulele"},
	"month":      {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	"race":       {"marathon", "half marathon", "10k", "5k", "triathlon", "charity run"},
	"book":       {"Becoming Nicole", "Dune", "Sapiens", "The Hobbit", "Atomic Habits", "Educated", "Project Hail Mary", "Charlotte's Web", "The Midnight Library", "Thinking, Fast and Slow"},
	"period":     {"year", "month", "week", "summer", "winter", "spring"},
	"street":     {"Street", "Avenue", "Road", "Lane", "Square", "Market", "Bakery", "Clinic", "Studio", "Garage"},
	"noun": {"table", "chair", "window", "garden", "kitchen", "report", "invoice", "ticket", "schedule", "recipe",
		"jacket", "umbrella", "notebook", "lamp", "phone", "charger", "keyboard", "monitor", "printer", "desk",
		"sofa", "mirror", "blanket", "pillow", "kettle", "blender", "oven", "fridge", "bicycle", "helmet",
		"visa", "passport", "wallet", "suitcase", "map", "letter", "package", "gift", "painting", "poster",
		"plant", "vase", "candle", "rug", "shelf", "drawer", "cabinet", "bottle", "mug", "plate",
		"contract", "proposal", "budget", "deadline", "roadmap", "prototype", "draft", "presentation", "spreadsheet", "dashboard",
		"course", "lesson", "exam", "essay", "thesis", "lecture", "seminar", "workshop", "conference", "interview",
		"appointment", "prescription", "vaccine", "therapy", "checkup", "diet", "workout", "massage", "surgery", "recovery",
		"concert", "festival", "movie", "album", "podcast", "novel", "magazine", "newspaper", "documentary", "exhibition"},
	"adj": {"old", "new", "broken", "expensive", "cheap", "heavy", "light", "small", "large", "quiet",
		"noisy", "bright", "dark", "comfortable", "fragile", "shiny", "dusty", "modern", "vintage", "handmade",
		"red", "blue", "green", "yellow", "wooden", "metal", "plastic", "leather", "wool", "glass",
		"late", "early", "urgent", "delayed", "damaged", "perfect", "strange", "wonderful", "terrible", "ordinary"},
	"surname": surnames(),
}

// surnames builds a long tail of 3,000 made-up proper nouns from syllables,
// so the corpus has the rare terms real memories are full of (people,
// shops, products) and postings lengths follow a realistic skew.
func surnames() []string {
	a := []string{"Ka", "Lo", "Me", "Ri", "Sa", "To", "Va", "Ze", "Bo", "Da", "Fi", "Gu", "Ha", "Ju", "Ni", "Pe", "Ro", "Su", "Wi", "Yo"}
	b := []string{"ran", "lis", "mo", "vet", "dor", "nak", "sel", "tu", "ber", "gan", "pli", "cor", "fen", "hal", "min"}
	c := []string{"", "a", "o", "er", "is", "en", "ov", "ski", "ez", "ton"}
	out := make([]string, 0, len(a)*len(b)*len(c))
	for _, x := range a {
		for _, y := range b {
			for _, z := range c {
				out = append(out, x+y+z)
			}
		}
	}
	return out
}
