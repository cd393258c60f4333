package extract

import (
	"context"
	"strings"
	"time"
	"unicode"
)

// Extractors that call a model report more than candidates: the facts
// whose validation failed (the engine logs them as rejected admissions,
// never stores them), the validity the model read, which extractor
// proposed each candidate, and notes on what happened (a fallback to the
// rules). Reporter is that richer interface; the engine uses it when the
// extractor implements it.

// Proposal is a candidate with what a model extractor adds.
type Proposal struct {
	Candidate
	// ValidFrom and ValidTo bound the fact's validity when the text says
	// (nil: from the episode's time, open-ended).
	ValidFrom, ValidTo *time.Time
	// Extractor names what proposed it ("rules", "llm:<model>").
	Extractor string
}

// Rejection is a fact a model proposed that failed validation.
type Rejection struct {
	// Content is the fact as the model gave it (or the reply's start,
	// when the whole reply was unusable).
	Content string
	// Reason is a stable code and a detail: "model_reply_invalid: ...",
	// "model_value_unsupported: ...".
	Reason    string
	Extractor string
}

// Report is what one extraction of one event gives.
type Report struct {
	Proposals []Proposal
	Rejected  []Rejection
	// Notes say where the extraction left its usual path
	// ("models.extractor_fallback: ...").
	Notes []string
	// Model usage of this extraction: calls and tokens.
	ModelCalls, TokensIn, TokensOut int
}

// Reporter is an extractor that reports proposals and rejections.
type Reporter interface {
	Extractor
	Report(ctx context.Context, ev Event) (*Report, error)
}

// keySynonyms maps keys a model may write to the slot vocabulary the
// rules write (see the package documentation's Slots).
var keySynonyms = map[string]string{
	"location": "lives_in", "city": "lives_in", "home": "lives_in", "lives": "lives_in", "lives_at": "lives_in",
	"residence": "lives_in", "home_city": "lives_in", "current_city": "lives_in", "resides_in": "lives_in", "living_in": "lives_in",
	"employer": "works_at", "company": "works_at", "workplace": "works_at", "works_for": "works_at", "job": "works_at",
	"employed_at": "works_at", "employed_by": "works_at", "work": "works_at",
	"hometown": "from", "origin": "from", "born_in": "from", "comes_from": "from", "is_from": "from",
	"job_title": "role", "title": "role", "position": "role", "occupation": "role", "profession": "role",
	"full_name": "name", "first_name": "name", "called": "name",
	"diet_type": "diet", "dietary_preference": "diet", "birth_date": "birthday", "date_of_birth": "birthday", "dob": "birthday",
	"time_zone": "timezone", "tz": "timezone", "mother_tongue": "native_language", "first_language": "native_language",
	"citizenship": "nationality",
}

// perThing are the slots with one key per thing ("likes:hiking"): a model
// that writes the bare name gets the value appended.
var perThing = map[string]bool{"likes": true, "dislikes": true, "speaks": true, "allergic_to": true}

// categoryPrefixes are the ways a model says "prefers:<category>".
var categoryPrefixes = []string{"favorite_", "favourite_", "preferred_", "prefers_", "preference_", "fav_"}

// NormalizeKey maps a key as a model writes it ("Favorite Text Editor",
// "employer", "prefers:IDE", "allergy") to the slot vocabulary of the
// rules ("prefers:editor", "works_at", "allergic_to:peanuts"), given the
// fact's value. ok is false when no canonical key can be made.
func NormalizeKey(key, value string) (string, bool) {
	k := strings.ToLower(strings.TrimSpace(key))
	if k == "" {
		return "", false
	}
	segs := strings.Split(k, ":")
	for i, s := range segs {
		segs[i] = Slug(strings.TrimSpace(s))
	}
	head := segs[0]
	if syn, ok := keySynonyms[head]; ok && len(segs) == 1 {
		return syn, true
	}
	switch head {
	case "allergy", "allergies", "allergic":
		head = "allergic_to"
	case "like", "loves", "enjoys":
		head = "likes"
	case "dislike", "hates":
		head = "dislikes"
	case "language", "languages", "speaks_language":
		head = "speaks"
	case "preference", "preferences", "favorite", "favourite", "prefers":
		head = "prefers"
	}
	for _, p := range categoryPrefixes {
		if rest, ok := strings.CutPrefix(head, p); ok && rest != "" && len(segs) == 1 {
			segs = []string{"prefers", rest}
			head = "prefers"
			break
		}
	}
	if rest, ok := strings.CutSuffix(head, "_preference"); ok && rest != "" && len(segs) == 1 {
		segs, head = []string{"prefers", rest}, "prefers"
	}
	if len(segs) == 1 && !perThing[head] && head != "prefers" && head != "uses" {
		// A bare category noun ("editor", "ide") is the choice in it.
		if cat := CanonicalCategory(strings.ReplaceAll(head, "_", " ")); len(categoryMembers[cat]) > 0 {
			if vc, ok := CategoryOf(value); !ok || vc == cat {
				segs, head = []string{"prefers", cat}, "prefers"
			}
		}
	}
	segs[0] = head
	switch {
	case head == "prefers":
		cat := ""
		if len(segs) > 1 {
			cat = CanonicalCategory(strings.ReplaceAll(strings.Join(segs[1:], " "), "_", " "))
		} else if c, ok := CategoryOf(value); ok {
			cat = c
		}
		if cat == "" {
			return "", false
		}
		segs = []string{"prefers", cat}
	case head == "uses" && len(segs) == 2:
		segs[1] = CanonicalCategory(strings.ReplaceAll(segs[1], "_", " "))
	case perThing[head] && len(segs) == 1:
		thing := Slug(value)
		if thing == "" {
			return "", false
		}
		segs = append(segs, thing)
	}
	out := strings.Join(segs, ":")
	if !ValidKey(out) {
		return "", false
	}
	return out, true
}

// Supported reports whether value is said in text: every word of the
// value (letters and digits, case folded) is a word of the text, or a
// plural or possessive of it. A model's value the episode does not state
// is a hallucination.
func Supported(value, text string) bool {
	vw := wordsOf(value)
	if len(vw) == 0 {
		return false
	}
	tw := map[string]bool{}
	for _, w := range wordsOf(text) {
		tw[w] = true
		tw[strings.TrimSuffix(w, "s")] = true
	}
	for _, w := range vw {
		if !tw[w] && !tw[strings.TrimSuffix(w, "s")] {
			return false
		}
	}
	return true
}

func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// SentenceSpan is the byte span of the sentence of text that holds value
// (case folded), or the whole text when no sentence holds it whole.
func SentenceSpan(text, value string) (start, end int) {
	i := strings.Index(strings.ToLower(text), strings.ToLower(value))
	if i < 0 {
		return 0, len(text)
	}
	start = strings.LastIndexAny(text[:i], ".!?\n") + 1
	for start < i && text[start] == ' ' {
		start++
	}
	end = len(text)
	if j := strings.IndexAny(text[i+len(value):], ".!?\n"); j >= 0 {
		end = i + len(value) + j + 1
		if text[end-1] == '\n' {
			end--
		}
	}
	return start, end
}
