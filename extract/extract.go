package extract

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/memory"
)

// Event is one captured event as the extractor sees it.
type Event struct {
	Kind memory.EpisodeKind
	// Speaker says who said it; first-person statements are attributed to
	// the speaker. "" means "user".
	Speaker    string
	Content    string
	OccurredAt time.Time
	// ProjectID is a scope hint: "we"/"our" statements are about this project
	// when it is set, else about subject "team".
	ProjectID string
	// Before holds the speaker's own turns just before this one in the
	// same conversation, oldest first, with no other person's turn
	// between them (the engine fills it for a turn that opens on "she"
	// or "he": see OpensOnPronoun). They are read only to know whom that
	// pronoun names ("my sister just moved to Lyon", then "she hates the
	// rain"); nothing they state becomes a candidate of this event.
	Before []string
}

// TeamSubject is the subject of what the speaker's team or project does
// ("we use pnpm", "the repo deploys with Fly") when the event names no
// project.
const TeamSubject = "team"

// Cue tells reconciliation how a candidate relates to the slot's current
// value.
type Cue string

const (
	// CueNone: a plain statement of the current value.
	CueNone Cue = ""
	// CueCorrection: the value replaces an earlier one ("actually",
	// "switched to", "changed to", "moved to", "now", "instead", "correction:").
	CueCorrection Cue = "correction"
	// CueNegation: the slot's current value ends ("no longer", "not
	// anymore", "stopped"); Value names what ended.
	CueNegation Cue = "negation"
	// CuePast: the value is history, not current ("used to").
	CuePast Cue = "past"
)

// Candidate is one memory an extractor proposes. Admission and
// reconciliation decide what becomes of it.
type Candidate struct {
	Type memory.Type
	// Subject is the lowercased canonical subject: the speaker ("user",
	// "alice"), a project ("atlas"), "team", or a third party ("bob",
	// "sister").
	Subject string
	// Key is the canonical slot key, lowercase, ':'-separated, for example
	// "prefers:editor", "lives_in", "uses:package_manager".
	Key string
	// Value is the value as stated, trimmed (for example "Neovim").
	Value string
	// Content is one natural third-person sentence, for example
	// "The user's favorite editor is Neovim.".
	Content string
	// Confidence is 0.9 for a plain first-person statement and at most 0.5
	// when hedged.
	Confidence float64
	Hedged     bool
	Cue        Cue
	// Criticality is normal, high for constraints, and must_include when the
	// sentence carries an explicit marker ("critical", "important:",
	// "non-negotiable", "must always", "never ever").
	Criticality memory.Criticality
	// Start and End are the byte span in Event.Content of the sentence the
	// candidate came from.
	Start, End int
}

// Extractor proposes candidate memories from one event.
type Extractor interface {
	Name() string
	Extract(ctx context.Context, ev Event) ([]Candidate, error)
}

// knownTypes are the types an extractor may propose; episodic "event" rows
// are made by the engine, never extracted.
var knownTypes = map[memory.Type]bool{
	memory.TypeFact: true, memory.TypePreference: true, memory.TypeDecision: true,
	memory.TypeConstraint: true, memory.TypeGoal: true, memory.TypeLesson: true,
	memory.TypeProcedure: true, memory.TypeSummary: true,
}

// Validate checks a candidate against the rules every extractor must obey,
// whatever produced it: a known type, a well-formed subject and key, a
// non-empty value and content, a confidence in [0, 1] (at most 0.5 when
// hedged), a known cue and criticality, and a span inside content. The LLM
// extractor relies on it to reject bad model replies deterministically.
func (c Candidate) Validate(content string) error {
	switch {
	case !knownTypes[c.Type]:
		return memory.Invalidf("candidate type %q is unknown", c.Type)
	case !ValidSubject(c.Subject):
		return memory.Invalidf("candidate subject %q is not a lowercase slug", c.Subject)
	case !ValidKey(c.Key):
		return memory.Invalidf("candidate key %q is not a canonical key", c.Key)
	case strings.TrimSpace(c.Value) == "" || c.Value != strings.TrimSpace(c.Value):
		return memory.Invalidf("candidate value %q is empty or untrimmed", c.Value)
	case strings.TrimSpace(c.Content) == "":
		return memory.Invalidf("candidate content is empty")
	case !(c.Confidence >= 0 && c.Confidence <= 1):
		return memory.Invalidf("candidate confidence %v is outside [0, 1]", c.Confidence)
	case c.Hedged && c.Confidence > 0.5:
		return memory.Invalidf("hedged candidate has confidence %v above 0.5", c.Confidence)
	case c.Cue != CueNone && c.Cue != CueCorrection && c.Cue != CueNegation && c.Cue != CuePast:
		return memory.Invalidf("candidate cue %q is unknown", c.Cue)
	case c.Criticality != memory.CriticalityNormal && c.Criticality != memory.CriticalityHigh &&
		c.Criticality != memory.CriticalityMustInclude:
		return memory.Invalidf("candidate criticality %q is unknown", c.Criticality)
	case c.Start < 0 || c.End < c.Start || c.End > len(content):
		return memory.Invalidf("candidate span [%d, %d) is outside content of %d bytes", c.Start, c.End, len(content))
	}
	return nil
}

// String renders a candidate compactly for logs and test failures.
func (c Candidate) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s/%s=%q", c.Type, c.Subject, c.Key, c.Value)
	if c.Cue != CueNone {
		fmt.Fprintf(&b, " cue=%s", c.Cue)
	}
	if c.Hedged {
		b.WriteString(" hedged")
	}
	fmt.Fprintf(&b, " conf=%.2f %s [%d,%d) %q", c.Confidence, c.Criticality, c.Start, c.End, c.Content)
	return b.String()
}

// ValidSubject reports whether s is a canonical subject: a non-empty slug of
// lowercase letters, digits and single underscores.
func ValidSubject(s string) bool { return validSegment(s) }

// ValidKey reports whether k is a canonical key: one or more ':'-separated
// segments, each a non-empty slug of lowercase letters, digits and single
// underscores, with no leading or trailing underscore.
func ValidKey(k string) bool {
	if k == "" || len(k) > 200 {
		return false
	}
	for {
		i := strings.IndexByte(k, ':')
		if i < 0 {
			return validSegment(k)
		}
		if !validSegment(k[:i]) {
			return false
		}
		k = k[i+1:]
	}
}

func validSegment(s string) bool {
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return false
	}
	for _, r := range s {
		if r == '_' || unicode.IsDigit(r) {
			continue
		}
		if !unicode.IsLetter(r) || unicode.IsUpper(r) || unicode.IsTitle(r) || r == utf8.RuneError {
			return false
		}
	}
	return true
}
