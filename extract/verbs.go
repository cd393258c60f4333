package extract

// vform is a verb's inflection.
type vform uint8

const (
	fBase     vform = iota // live
	fThird                 // lives
	fPast                  // lived (also the participle of regular verbs)
	fGerund                // living
	fPartOnly              // been, gone, chosen: participles that are never simple past
)

type verb struct {
	lemma string
	form  vform
}

// verbs maps the inflections of every verb a rule reacts to.
var verbs = buildVerbs([][]string{
	// lemma, third, past, gerund[, extra past or participle forms]
	{"live", "lives", "lived", "living"},
	{"reside", "resides", "resided", "residing"},
	{"move", "moves", "moved", "moving"},
	{"relocate", "relocates", "relocated", "relocating"},
	{"work", "works", "worked", "working"},
	{"join", "joins", "joined", "joining"},
	{"quit", "quits", "quit", "quitting"},
	{"leave", "leaves", "left", "leaving"},
	{"prefer", "prefers", "preferred", "preferring"},
	{"use", "uses", "used", "using"},
	{"rely", "relies", "relied", "relying"},
	{"depend", "depends", "depended", "depending"},
	{"switch", "switches", "switched", "switching"},
	{"change", "changes", "changed", "changing"},
	{"migrate", "migrates", "migrated", "migrating"},
	{"transition", "transitions", "transitioned", "transitioning"},
	{"convert", "converts", "converted", "converting"},
	{"like", "likes", "liked", "liking"},
	{"love", "loves", "loved", "loving"},
	{"enjoy", "enjoys", "enjoyed", "enjoying"},
	{"adore", "adores", "adored", "adoring"},
	{"hate", "hates", "hated", "hating"},
	{"dislike", "dislikes", "disliked", "disliking"},
	{"detest", "detests", "detested", "detesting"},
	{"despise", "despises", "despised", "despising"},
	{"loathe", "loathes", "loathed", "loathing"},
	{"abhor", "abhors", "abhorred", "abhorring"},
	{"grow", "grows", "grew", "growing", "grown"},
	{"come", "comes", "came", "coming"},
	{"decide", "decides", "decided", "deciding"},
	{"choose", "chooses", "chose", "choosing", "chosen"},
	{"pick", "picks", "picked", "picking"},
	{"select", "selects", "selected", "selecting"},
	{"settle", "settles", "settled", "settling"},
	{"opt", "opts", "opted", "opting"},
	{"agree", "agrees", "agreed", "agreeing"},
	{"standardize", "standardizes", "standardized", "standardizing", "standardise", "standardises", "standardised", "standardising"},
	{"adopt", "adopts", "adopted", "adopting"},
	{"stick", "sticks", "stuck", "sticking"},
	{"go", "goes", "went", "going", "gone"},
	{"want", "wants", "wanted", "wanting"},
	{"plan", "plans", "planned", "planning"},
	{"intend", "intends", "intended", "intending"},
	{"aim", "aims", "aimed", "aiming"},
	{"hope", "hopes", "hoped", "hoping"},
	{"try", "tries", "tried", "trying"},
	{"learn", "learns", "learned", "learning", "learnt"},
	{"study", "studies", "studied", "studying"},
	{"start", "starts", "started", "starting"},
	{"begin", "begins", "began", "beginning", "begun"},
	{"stop", "stops", "stopped", "stopping"},
	{"give", "gives", "gave", "giving", "given"},
	{"consider", "considers", "considered", "considering"},
	{"think", "thinks", "thought", "thinking"},
	{"lean", "leans", "leaned", "leaning", "leant"},
	{"look", "looks", "looked", "looking"},
	{"speak", "speaks", "spoke", "speaking", "spoken"},
	{"write", "writes", "wrote", "writing", "written"},
	{"build", "builds", "built", "building"},
	{"run", "runs", "ran", "running"},
	{"deploy", "deploys", "deployed", "deploying"},
	{"host", "hosts", "hosted", "hosting"},
	{"power", "powers", "powered", "powering"},
	{"base", "bases", "based", "basing"},
	{"drink", "drinks", "drank", "drinking", "drunk"},
	{"eat", "eats", "ate", "eating", "eaten"},
	{"listen", "listens", "listened", "listening"},
	{"call", "calls", "called", "calling"},
	{"name", "names", "named", "naming"},
	{"employ", "employs", "employed", "employing"},
	{"hire", "hires", "hired", "hiring"},
	{"bear", "bears", "bore", "bearing", "born"},
	{"stand", "stands", "stood", "standing"},
	{"prioritize", "prioritizes", "prioritized", "prioritizing", "prioritise", "prioritises", "prioritised", "prioritising"},
	{"favor", "favors", "favored", "favoring", "favour", "favours", "favoured", "favouring"},
	{"get", "gets", "got", "getting", "gotten"},
	{"land", "lands", "landed", "landing"},
	{"accept", "accepts", "accepted", "accepting"},
	{"replace", "replaces", "replaced", "replacing"},
	{"ditch", "ditches", "ditched", "ditching"},
	{"drop", "drops", "dropped", "dropping"},
	{"dump", "dumps", "dumped", "dumping"},
	{"abandon", "abandons", "abandoned", "abandoning"},
	{"retire", "retires", "retired", "retiring"},
	{"rip", "rips", "ripped", "ripping"},
	{"tear", "tears", "tore", "tearing", "torn"},
	{"swap", "swaps", "swapped", "swapping"},
	{"trade", "trades", "traded", "trading"},
	{"do", "does", "did", "doing", "done"},
	{"have", "has", "had", "having"},
	{"be", "is", "was", "being", "am", "are", "were", "been"},
})

func buildVerbs(rows [][]string) map[string]verb {
	m := make(map[string]verb, len(rows)*4)
	for _, r := range rows {
		lemma := r[0]
		m[r[0]] = verb{lemma, fBase}
		m[r[1]] = verb{lemma, fThird}
		m[r[2]] = verb{lemma, fPast}
		m[r[3]] = verb{lemma, fGerund}
		for _, extra := range r[4:] {
			m[extra] = verb{lemma, fPartOnly}
		}
	}
	// The regular spelling pairs above register "standardise" and friends
	// as participles; they are base or inflected forms.
	for _, r := range [][3]string{{"standardise", "standardize", "b"}, {"standardises", "standardize", "t"},
		{"standardised", "standardize", "p"}, {"standardising", "standardize", "g"},
		{"prioritise", "prioritize", "b"}, {"prioritises", "prioritize", "t"},
		{"prioritised", "prioritize", "p"}, {"prioritising", "prioritize", "g"},
		{"favour", "favor", "b"}, {"favours", "favor", "t"}, {"favoured", "favor", "p"},
		{"favouring", "favor", "g"}, {"learnt", "learn", "p"}, {"leant", "lean", "p"},
		{"am", "be", "b"}, {"are", "be", "b"}, {"were", "be", "p"}, {"was", "be", "p"},
		{"is", "be", "t"}, {"been", "be", "o"}, {"being", "be", "g"}} {
		f := map[string]vform{"b": fBase, "t": fThird, "p": fPast, "g": fGerund, "o": fPartOnly}[r[2]]
		m[r[0]] = verb{r[1], f}
	}
	return m
}

// changeVerbs are past-tense verbs that announce the new state rather than
// describe an old one: "I moved to Porto" means Porto is home now.
var changeVerbs = wordSet("verbs", "change-verbs")

// personVerbs, after a capitalised word, make it a person's or project's
// name rather than a sentence opener: "Bob prefers Emacs", "Atlas uses
// pnpm".
var personVerbs = wordSet("verbs", "person-verbs")

// adverbs between a subject and its verb. Some carry a cue or a hedge.
var adverbs = wordSet("verbs", "adverbs")

// corrAdverbs and hedgeAdverbs set flags when they sit between subject and
// verb: "I now live in Porto", "I probably prefer Vim".
var corrAdverbs = wordSet("verbs", "corr-adverbs")
var hedgeAdverbs = wordSet("verbs", "hedge-adverbs")
