// Package scenarios is mnemon's own natural-speech scenario suite: small
// conversations in casual wording (people changing jobs in passing,
// correcting themselves mid-sentence, talking about their sister, asking
// an agent to "order dinner"), each followed by questions asked from a
// later conversation. It scores whether retrieval puts an item stating the
// answer first (hit@1) or in the top five (hit@5), whether a planted wrong
// value ranks first on a question whose answer was never stated, and lists
// every fact the extractor wrote so a person can audit them.
//
// The suite is data: testdata/suite/<category>.json, embedded in the
// binary (see Suite). Each file is a JSON array of scenarios:
//
//	{
//	  "id": "updates-bakery-job",          // unique; letters, digits, '-'
//	  "category": "updates",               // its questions' category
//	  "user": "u1",                        // optional scope: user id
//	  "agent": "a1",                       // optional scope: agent id
//	  "sessions": [                        // in order, days after the start
//	    {"id": "s1", "day": 0, "turns": [
//	      {"speaker": "user", "text": "..."},       // "user", "assistant",
//	      {"speaker": "assistant", "text": "..."}   // or a person's name
//	    ]}
//	  ],
//	  "questions": [
//	    {"q": "where do I work these days?", "answer": ["Larkspur"]},
//	    {"q": "...", "category": "history", "history": true, "answer": ["..."]},
//	    {"q": "...", "category": "never-stated", "wrong": ["..."]}
//	  ],
//	  "expect_facts": [{"subject": "user", "key": "works_at", "value": "Larkspur"},
//	                   {"subject": "user", "key": "lives_in", "absent": true}]
//	}
//
// An answer is any of the phrases listed, matched case-insensitively on
// word boundaries against an item's text; each must appear in some turn
// (Validate checks it), so every answer is findable in principle. A
// never-stated question lists instead the planted wrong values, which
// must not be in the first item. history asks with superseded versions
// included, as `mnemon recall --history` does.
package scenarios

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The categories, in the order reports show them.
const (
	Updates      = "updates"       // a value changes in passing
	Corrections  = "corrections"   // a value corrected inside one message
	ThirdParties = "third-parties" // facts about others, not the user's
	Preferences  = "preferences"
	Constraints  = "constraints"  // allergies, hard rules, "never"
	Tasks        = "tasks"        // a request that needs stored preferences
	Paraphrase   = "paraphrase"   // asked in other words than stated
	MultiHop     = "multi-hop"    // the answer follows from two statements
	History      = "history"      // the value before the current one
	Distractors  = "distractors"  // similar but irrelevant turns around
	NeverStated  = "never-stated" // no answer was given; planted values must not rank first
)

// Categories returns the known categories in report order.
func Categories() []string {
	return []string{Updates, Corrections, ThirdParties, Preferences, Constraints, Tasks,
		Paraphrase, MultiHop, History, Distractors, NeverStated}
}

// Scenario is one conversation history and the questions asked after it.
type Scenario struct {
	ID          string       `json:"id"`
	Category    string       `json:"category"`
	Note        string       `json:"note,omitempty"`
	User        string       `json:"user,omitempty"`
	Agent       string       `json:"agent,omitempty"`
	Sessions    []Session    `json:"sessions"`
	Questions   []Question   `json:"questions"`
	ExpectFacts []ExpectFact `json:"expect_facts,omitempty"`
}

// Session is one sitting, Day days after the scenario's first.
type Session struct {
	ID    string  `json:"id"`
	Day   float64 `json:"day"`
	Turns []Turn  `json:"turns"`
}

// Turn is one utterance.
type Turn struct {
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
}

// Question is asked from a conversation after the last session.
type Question struct {
	Text     string   `json:"q"`
	Category string   `json:"category,omitempty"` // default: the scenario's
	Answer   []string `json:"answer,omitempty"`   // any of these phrases
	Wrong    []string `json:"wrong,omitempty"`    // must not be in the first item
	History  bool     `json:"history,omitempty"`  // include superseded versions
}

// ExpectFact says what a fact about Subject under Key must hold: a live
// fact of that subject and key (or a key under it: "likes" covers
// "likes:tea") whose value does not contain Value is flagged wrong in the
// audit; with Absent, any live fact of that subject and key is.
type ExpectFact struct {
	Subject string `json:"subject"`
	Key     string `json:"key"`
	Value   string `json:"value,omitempty"`
	Absent  bool   `json:"absent,omitempty"`
}

// Covers reports whether the expectation is about a fact of subject and
// key.
func (e ExpectFact) Covers(subject, key string) bool {
	return strings.EqualFold(e.Subject, subject) &&
		(strings.EqualFold(e.Key, key) || strings.HasPrefix(strings.ToLower(key), strings.ToLower(e.Key)+":"))
}

// CategoryOf returns the category q is scored in.
func (s *Scenario) CategoryOf(q Question) string {
	if q.Category != "" {
		return q.Category
	}
	return s.Category
}

//go:embed testdata/suite/*.json
var suiteFS embed.FS

//go:embed testdata/filler.json
var fillerJSON []byte

// Filler returns the embedded pool of small-talk sessions (weather, a
// recipe, a git question) that Run mixes into every scenario, so that an
// answer has to be found among unrelated turns rather than in a namespace
// of three.
func Filler() ([]Session, error) {
	dec := json.NewDecoder(strings.NewReader(string(fillerJSON)))
	dec.DisallowUnknownFields()
	var ss []Session
	if err := dec.Decode(&ss); err != nil {
		return nil, fmt.Errorf("filler.json: %w", err)
	}
	seen := map[string]bool{}
	for i, f := range ss {
		if f.ID == "" || seen[f.ID] {
			return nil, fmt.Errorf("filler.json session %d: give each session its own id", i+1)
		}
		seen[f.ID] = true
		if len(f.Turns) == 0 {
			return nil, fmt.Errorf("filler.json session %s: no turns", f.ID)
		}
		for j, t := range f.Turns {
			if strings.TrimSpace(t.Speaker) == "" || strings.TrimSpace(t.Text) == "" {
				return nil, fmt.Errorf("filler.json session %s turn %d: needs a speaker and text", f.ID, j+1)
			}
		}
	}
	return ss, nil
}

// Suite returns the embedded suite, validated.
func Suite() ([]Scenario, error) {
	sub, err := fs.Sub(suiteFS, "testdata/suite")
	if err != nil {
		return nil, err
	}
	return loadFS(sub)
}

// Load reads a scenario file, or every *.json file of a directory, and
// validates what it read.
func Load(path string) ([]Scenario, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return loadFS(os.DirFS(path))
	}
	scs, err := decodeFile(os.DirFS(filepath.Dir(path)), filepath.Base(path))
	if err != nil {
		return nil, err
	}
	if err := Validate(scs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return scs, nil
}

func loadFS(fsys fs.FS) ([]Scenario, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no *.json scenario files")
	}
	sort.Strings(names)
	var all []Scenario
	for _, n := range names {
		scs, err := decodeFile(fsys, n)
		if err != nil {
			return nil, err
		}
		all = append(all, scs...)
	}
	if err := Validate(all); err != nil {
		return nil, err
	}
	return all, nil
}

func decodeFile(fsys fs.FS, name string) ([]Scenario, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields() // a misspelt field would silently score nothing
	var scs []Scenario
	if err := dec.Decode(&scs); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return scs, nil
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,50}$`)

// Validate checks that scenarios can be run and scored: unique ids, known
// categories, sessions in day order with turns, every question answerable
// (its answers, or for a never-stated question its planted values, said in
// some turn).
func Validate(scs []Scenario) error {
	seen := map[string]bool{}
	for i := range scs {
		s := &scs[i]
		if err := validate(s); err != nil {
			return fmt.Errorf("scenario %q: %w", s.ID, err)
		}
		if seen[s.ID] {
			return fmt.Errorf("scenario %q: the id is used twice", s.ID)
		}
		seen[s.ID] = true
	}
	return nil
}

func validate(s *Scenario) error {
	if !idPattern.MatchString(s.ID) {
		return fmt.Errorf("id: use 1-51 lowercase letters, digits or '-'")
	}
	if !slices.Contains(Categories(), s.Category) {
		return fmt.Errorf("category %q: use one of %s", s.Category, strings.Join(Categories(), ", "))
	}
	if len(s.Sessions) == 0 {
		return fmt.Errorf("no sessions")
	}
	if len(s.Questions) == 0 {
		return fmt.Errorf("no questions")
	}
	var said []string
	sessions := map[string]bool{}
	for i, ss := range s.Sessions {
		if ss.ID == "" || sessions[ss.ID] {
			return fmt.Errorf("session %d: give each session its own id", i+1)
		}
		sessions[ss.ID] = true
		if ss.Day < 0 || i > 0 && ss.Day < s.Sessions[i-1].Day {
			return fmt.Errorf("session %s: day %g is before the previous session's", ss.ID, ss.Day)
		}
		if len(ss.Turns) == 0 {
			return fmt.Errorf("session %s: no turns", ss.ID)
		}
		for j, t := range ss.Turns {
			if strings.TrimSpace(t.Speaker) == "" || strings.TrimSpace(t.Text) == "" {
				return fmt.Errorf("session %s turn %d: needs a speaker and text", ss.ID, j+1)
			}
			said = append(said, t.Text)
		}
	}
	saidIn := func(phrase string) bool {
		for _, t := range said {
			if Contains(t, phrase) {
				return true
			}
		}
		return false
	}
	for i, q := range s.Questions {
		cat := s.CategoryOf(q)
		switch {
		case strings.TrimSpace(q.Text) == "":
			return fmt.Errorf("question %d: no text", i+1)
		case !slices.Contains(Categories(), cat):
			return fmt.Errorf("question %d: category %q: use one of %s", i+1, cat, strings.Join(Categories(), ", "))
		case cat == NeverStated && len(q.Answer) > 0:
			return fmt.Errorf("question %d: a never-stated question has no answer, only wrong values", i+1)
		case cat == NeverStated && len(q.Wrong) == 0:
			return fmt.Errorf("question %d: a never-stated question needs the planted wrong values", i+1)
		case cat != NeverStated && len(q.Answer) == 0:
			return fmt.Errorf("question %d: no answer", i+1)
		}
		for _, a := range append(slices.Clone(q.Answer), q.Wrong...) {
			if strings.TrimSpace(a) == "" {
				return fmt.Errorf("question %d: an empty answer or wrong value", i+1)
			}
			if !saidIn(a) {
				return fmt.Errorf("question %d (%q): %q is said in no turn, so it cannot be found", i+1, q.Text, a)
			}
		}
	}
	for i, f := range s.ExpectFacts {
		if f.Subject == "" || f.Key == "" || (f.Value == "") == !f.Absent {
			return fmt.Errorf("expect_facts %d: give subject, key and either value or absent", i+1)
		}
	}
	return nil
}

// Contains reports whether phrase occurs in text case-insensitively and on
// word boundaries ("Ana" is not in "banana"), with curly apostrophes read
// as straight ones.
func Contains(text, phrase string) bool {
	t, p := fold(text), fold(phrase)
	if p == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(t[from:], p)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(p)
		if !wordByte(t, i-1, true) && !wordByte(t, end, false) {
			return true
		}
		from = i + 1
	}
}

func fold(s string) string {
	return strings.ToLower(strings.NewReplacer("’", "'", "‘", "'").Replace(s))
}

// wordByte reports whether the rune ending before i (before) or starting
// at i (!before) is a letter or digit.
func wordByte(s string, i int, before bool) bool {
	var r rune
	if before {
		if i < 0 {
			return false
		}
		r, _ = utf8.DecodeLastRuneInString(s[:i+1])
	} else {
		if i >= len(s) {
			return false
		}
		r, _ = utf8.DecodeRuneInString(s[i:])
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
