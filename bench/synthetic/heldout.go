package synthetic

import (
	"context"
	"hash/fnv"
	"slices"
	"strings"
	"unicode"

	"github.com/mnemon-dev/mnemon/extract"
)

// Held-out templates. The extractor is tuned by reading failures on tuning
// seeds; if those seeds used every template, a test seed would only check
// new combinations of phrasings someone already fixed. So a fixed share of
// the statement templates is held out: tuning seeds never say them, test
// seeds say them among the others, and the report scores questions whose
// answer was stated in a held-out phrasing apart from the rest.
//
// The rule is fixed and does not depend on a list's order or on what the
// extractor reads: in every list of statement templates (each attribute's
// State, Change, Other, Mention and Tentative, and the restatements), the
// ceil(n/4) templates with the smallest FNV-1a hash of their text are held
// out. Adding a template to a list can move which ones are held out; the
// tests check that every list keeps at least a quarter aside.

// heldOutTemplates returns the held-out templates of one list.
func heldOutTemplates(list []string) []string {
	if len(list) == 0 {
		return nil
	}
	byHash := slices.Clone(list)
	slices.SortFunc(byHash, func(a, b string) int {
		ha, hb := templateHash(a), templateHash(b)
		switch {
		case ha < hb:
			return -1
		case ha > hb:
			return 1
		}
		return strings.Compare(a, b)
	})
	return byHash[:(len(list)+3)/4]
}

func templateHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// templateSplit knows which statement templates are held out.
type templateSplit map[string]bool

// newTemplateSplit marks the held-out templates of every statement list.
func newTemplateSplit(attrs []Attribute) templateSplit {
	s := templateSplit{}
	for _, list := range statementLists(attrs) {
		for _, t := range heldOutTemplates(list) {
			s[t] = true
		}
	}
	return s
}

// statementLists returns every list of templates a user says about
// themselves or others: what the extractor reads.
func statementLists(attrs []Attribute) [][]string {
	var out [][]string
	for _, a := range attrs {
		out = append(out, a.State, a.Change, a.Other, a.Mention, a.Tentative)
	}
	return append(out, restatements())
}

// tuningOnly returns the templates of list that are not held out.
func (s templateSplit) tuningOnly(list []string) []string {
	var out []string
	for _, t := range list {
		if !s[t] {
			out = append(out, t)
		}
	}
	return out
}

// SplitScore is one condition's result on the questions whose answer was
// stated in a tuning or in a held-out template.
type SplitScore struct {
	Questions int     `json:"questions"`
	Accuracy  float64 `json:"accuracy"`
	RecallAt1 float64 `json:"recall_at_1"`
	RecallAt5 float64 `json:"recall_at_5"`
}

// splitTally accumulates a SplitScore.
type splitTally struct{ n, acc, r1, r5 float64 }

func (t *splitTally) add(right, hit1, hit5 float64) {
	t.n++
	t.acc += right
	t.r1 += hit1
	t.r5 += hit5
}

func (t splitTally) score() SplitScore {
	return SplitScore{Questions: int(t.n), Accuracy: mean(t.acc, int(t.n)), RecallAt1: mean(t.r1, int(t.n)), RecallAt5: mean(t.r5, int(t.n))}
}

// ExtractionScore is the rule extractor's precision and recall on the
// user's turns about an attribute, for the turns said in tuning or in
// held-out templates.
type ExtractionScore struct {
	Templates string `json:"templates"` // "tuning" or "held-out"
	Turns     int    `json:"turns"`     // user turns about an attribute
	// Statements are the turns that state the user's value (a statement,
	// a change or a restatement); Stated those whose value the extractor
	// wrote as a fact about the user.
	Statements int     `json:"statements"`
	Stated     int     `json:"stated"`
	Recall     float64 `json:"recall"`
	// Facts are the candidates written on those turns that name one of
	// the attribute's values (others, such as the role in "I'm an engineer
	// at Initech", cannot be judged here); Right the ones that hold: the
	// user's value on a statement (a change's old value only as history),
	// someone else's value about them on a turn about someone else. A fact
	// naming a value from a question, a remark or a plan is wrong.
	Facts     int     `json:"facts"`
	Right     int     `json:"right"`
	Precision float64 `json:"precision"`
}

// scoreExtraction runs the rule extractor on every user turn about an
// attribute and scores its candidates against what the turn says.
func scoreExtraction(ctx context.Context, users []User) ([]ExtractionScore, error) {
	x := extract.NewRules()
	values := map[string][]string{}
	for _, a := range attributes() {
		values[a.Name] = a.Values
	}
	out := []ExtractionScore{{Templates: "tuning"}, {Templates: "held-out"}}
	for _, u := range users {
		for _, t := range u.Turns {
			if t.Speaker != SpeakerUser || t.Attr == "" {
				continue
			}
			cs, err := x.Extract(ctx, extract.Event{Kind: "user_message", Speaker: SpeakerUser, Content: t.Text, OccurredAt: t.At})
			if err != nil {
				return nil, err
			}
			s := &out[b2i(t.HeldOut)]
			s.Turns++
			statement := t.Role == RoleState || t.Role == RoleChange || t.Role == RoleRestate
			stated := false
			for _, c := range cs {
				if !namesAny(c.Value, values[t.Attr]) {
					continue
				}
				s.Facts++
				if candidateHolds(t, c) {
					s.Right++
					stated = stated || statement && c.Subject == "user" && strings.EqualFold(c.Value, t.Value)
				}
			}
			if statement {
				s.Statements++
				if stated {
					s.Stated++
				}
			}
		}
	}
	for i := range out {
		out[i].Recall = mean(float64(out[i].Stated), out[i].Statements)
		out[i].Precision = mean(float64(out[i].Right), out[i].Facts)
	}
	return out, nil
}

// candidateHolds reports whether candidate c is true of what turn t says.
func candidateHolds(t Turn, c extract.Candidate) bool {
	ended := c.Cue == extract.CueNegation || c.Cue == extract.CuePast
	switch t.Role {
	case RoleState, RoleRestate:
		return c.Subject == "user" && !ended && !c.Hedged && namesAny(c.Value, []string{t.Value})
	case RoleChange:
		if c.Subject != "user" || c.Hedged {
			return false
		}
		return !ended && namesAny(c.Value, []string{t.Value}) || ended && namesAny(c.Value, []string{t.Old})
	case RoleOther:
		return c.Subject != "user" && namesAny(c.Value, []string{t.Value})
	}
	return false
}

// namesAny reports whether text names one of values as whole words.
func namesAny(text string, values []string) bool {
	words := " " + strings.Join(strings.FieldsFunc(strings.ToLower(text), notWordRune), " ") + " "
	for _, v := range values {
		if strings.Contains(words, " "+strings.Join(strings.FieldsFunc(strings.ToLower(v), notWordRune), " ")+" ") {
			return true
		}
	}
	return false
}

func notWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '+' && r != '#'
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
