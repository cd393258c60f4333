// Package synthetic is the `mnemon bench synthetic` suite: seeded users
// whose preferences, home city and employer change over several sessions,
// questions about the current value and the value before the latest
// change, and a deterministic reader that answers them from whatever
// context a condition hands it (no memory, the last words of the
// conversation, or mnemon's retrieval).
package synthetic

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Asks says which value a question is about.
type Asks string

const (
	// Current asks for the value now.
	Current Asks = "current"
	// Previous asks for the value before the latest change.
	Previous Asks = "previous"
)

// Role says what a turn is, for tests and for reading the data.
type Role string

// Turn roles.
const (
	RoleState     Role = "state"      // the user states a value
	RoleChange    Role = "change"     // the user states a new value
	RoleRestate   Role = "restate"    // the user says the current value again
	RoleOther     Role = "other"      // someone else's value
	RoleMention   Role = "mention"    // a value named in a question or remark
	RoleTentative Role = "tentative"  // a plan or a maybe
	RoleSmallTalk Role = "small_talk" // nothing about the user
	RoleReply     Role = "reply"      // the assistant
)

// Speakers.
const (
	SpeakerUser      = "user"
	SpeakerAssistant = "assistant"
)

// Turn is one message of a conversation.
type Turn struct {
	Index   int    // position in the user's whole conversation
	Session int    // session number, from 0
	Speaker string // SpeakerUser or SpeakerAssistant
	Text    string
	At      time.Time
	Role    Role
	Attr    string // the attribute the turn is about, if any
	Value   string // the value it names, if any
	Old     string // for a change, the value before it
	// HeldOut says the turn's template is held out (heldout.go): said on
	// test seeds only.
	HeldOut bool
}

// Question asks about one attribute of one user.
type Question struct {
	ID         string
	Attr       string
	Asks       Asks
	Text       string
	Candidates []string // every value of the attribute; the reader picks one
	Answer     string
	// Evidence are the indexes of the turns that state the answer: the
	// statement that made it true, restatements, and for a previous value
	// the change that names it as the old one.
	Evidence []int
	// HeldOut says the statement that made the answer true used a
	// held-out template.
	HeldOut bool
}

// User is one person's conversation with an assistant and the questions
// asked about it afterwards.
type User struct {
	ID        string
	Turns     []Turn // in time order
	Questions []Question
}

// Spec says what to generate.
type Spec struct {
	Seed     uint64
	Users    int
	Sessions int // per user, at least 1
}

// Tuning of the generator itself (not of the engine). Fixed: changing any
// of them changes every seed's data.
const (
	attrsPerUser          = 5   // attributes each user talks about
	restateChance         = 0.3 // a value is said again later
	distractorsPerSession = 2   // distractor turns per session
	replyChance           = 0.6 // the assistant answers a user turn
)

// Generate returns spec.Users users. The same spec always gives the same
// users: each user draws from its own stream, seeded by (seed, user).
func Generate(spec Spec) []User {
	attrs := attributes()
	g := generator{split: newTemplateSplit(attrs), tuning: SplitOf(spec.Seed) == "tuning"}
	users := make([]User, spec.Users)
	for i := range users {
		rng := rand.New(rand.NewPCG(spec.Seed, uint64(i)))
		users[i] = g.user(rng, attrs, fmt.Sprintf("u%03d", i), max(spec.Sessions, 1))
	}
	return users
}

// generator draws users; on tuning seeds it never says a held-out
// template.
type generator struct {
	split  templateSplit
	tuning bool
}

// say picks a template of list and reports whether it is held out. A test
// seed draws from the whole list, so its data does not depend on the split.
func (g generator) say(rng *rand.Rand, list []string) (string, bool) {
	if g.tuning {
		list = g.split.tuningOnly(list)
	}
	t := pick(rng, list)
	return t, g.split[t]
}

// plan is one attribute's history for a user: values[i] becomes true in
// session sessions[i].
type plan struct {
	attr     Attribute
	values   []string
	sessions []int
}

// valueAt returns the value true during session s, or "" before the first.
func (p plan) valueAt(s int) string {
	v := ""
	for i, at := range p.sessions {
		if at <= s {
			v = p.values[i]
		}
	}
	return v
}

func (g generator) user(rng *rand.Rand, attrs []Attribute, id string, sessions int) User {
	// Which attributes, and how each changes: no change 30 %, one 45 %,
	// two 25 %, never more changes than sessions allow.
	picked := rng.Perm(len(attrs))[:min(attrsPerUser, len(attrs))]
	slices.Sort(picked)
	plans := make([]plan, 0, len(picked))
	for _, ai := range picked {
		a := attrs[ai]
		changes := 0
		switch r := rng.Float64(); {
		case r < 0.30:
		case r < 0.75:
			changes = 1
		default:
			changes = 2
		}
		changes = min(changes, sessions-1)
		order := rng.Perm(len(a.Values))[:changes+1]
		p := plan{attr: a}
		for _, vi := range order {
			p.values = append(p.values, a.Values[vi])
		}
		p.sessions = rng.Perm(sessions)[:changes+1]
		slices.Sort(p.sessions)
		plans = append(plans, p)
	}

	// User turns per session, before ordering.
	bySession := make([][]Turn, sessions)
	add := func(s int, t Turn) {
		t.Session, t.Speaker = s, SpeakerUser
		bySession[s] = append(bySession[s], t)
	}
	for _, p := range plans {
		for i, v := range p.values {
			s := p.sessions[i]
			if i == 0 {
				t, held := g.say(rng, p.attr.State)
				add(s, Turn{Role: RoleState, Attr: p.attr.Name, Value: v, Text: fill(t, v, ""), HeldOut: held})
			} else {
				t, held := g.say(rng, p.attr.Change)
				add(s, Turn{Role: RoleChange, Attr: p.attr.Name, Value: v, Old: p.values[i-1], Text: fill(t, v, p.values[i-1]), HeldOut: held})
			}
			// A restatement in a later session while the value holds.
			end := sessions
			if i+1 < len(p.sessions) {
				end = p.sessions[i+1]
			}
			if end-s > 1 && rng.Float64() < restateChance {
				at := s + 1 + rng.IntN(end-s-1)
				t, held := g.say(rng, restatements())
				add(at, Turn{Role: RoleRestate, Attr: p.attr.Name, Value: v, Text: fill(t, v, ""), HeldOut: held})
			}
		}
	}
	for s := range sessions {
		for range distractorsPerSession {
			p := plans[rng.IntN(len(plans))]
			// A distractor names a value the user does not hold at the
			// time (before or after a change in this session), so a
			// reader taken in by it answers wrong.
			v := otherValue(rng, p.attr.Values, p.valueAt(s-1), p.valueAt(s))
			var role Role
			var templates []string
			switch rng.IntN(3) {
			case 0:
				role, templates = RoleOther, p.attr.Other
			case 1:
				role, templates = RoleMention, p.attr.Mention
			default:
				role, templates = RoleTentative, p.attr.Tentative
			}
			t, held := g.say(rng, templates)
			add(s, Turn{Role: role, Attr: p.attr.Name, Value: v, Text: fill(t, v, ""), HeldOut: held})
		}
		for range 3 + rng.IntN(4) {
			add(s, Turn{Role: RoleSmallTalk, Text: pick(rng, smallTalk())})
		}
	}

	// Sessions 2 to 9 days apart, starting in the day; turns a minute or
	// two apart, user turns in random order, some answered.
	u := User{ID: id}
	at := time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(30*24)) * time.Hour)
	for s, turns := range bySession {
		if s > 0 {
			at = at.Add(time.Duration(2+rng.IntN(8)) * 24 * time.Hour)
		}
		t := at.Add(time.Duration(rng.IntN(10*60)) * time.Minute)
		rng.Shuffle(len(turns), func(i, j int) { turns[i], turns[j] = turns[j], turns[i] })
		for _, turn := range turns {
			t = t.Add(time.Duration(40+rng.IntN(80)) * time.Second)
			turn.At, turn.Index = t, len(u.Turns)
			u.Turns = append(u.Turns, turn)
			if rng.Float64() < replyChance {
				t = t.Add(time.Duration(5+rng.IntN(20)) * time.Second)
				u.Turns = append(u.Turns, Turn{Index: len(u.Turns), Session: s, Speaker: SpeakerAssistant, Text: pick(rng, agentReplies()), At: t, Role: RoleReply})
			}
		}
	}

	for _, p := range plans {
		last := len(p.values) - 1
		q := Question{
			ID: fmt.Sprintf("%s-%s-current", id, slug(p.attr.Name)), Attr: p.attr.Name, Asks: Current,
			Text: pick(rng, p.attr.AskCurrent), Candidates: slices.Clone(p.attr.Values), Answer: p.values[last],
			Evidence: statementsOf(u.Turns, p.attr.Name, p.values[last], ""),
			HeldOut:  statedHeldOut(u.Turns, p.attr.Name, p.values[last]),
		}
		u.Questions = append(u.Questions, q)
		if last == 0 {
			continue
		}
		q = Question{
			ID: fmt.Sprintf("%s-%s-previous", id, slug(p.attr.Name)), Attr: p.attr.Name, Asks: Previous,
			Text: pick(rng, p.attr.AskPrevious), Candidates: slices.Clone(p.attr.Values), Answer: p.values[last-1],
			Evidence: statementsOf(u.Turns, p.attr.Name, p.values[last-1], p.values[last]),
			HeldOut:  statedHeldOut(u.Turns, p.attr.Name, p.values[last-1]),
		}
		u.Questions = append(u.Questions, q)
	}
	return u
}

// statedHeldOut reports whether the statement that made value true for
// attr (its state or change turn) used a held-out template.
func statedHeldOut(turns []Turn, attr, value string) bool {
	for _, t := range turns {
		if t.Attr == attr && t.Value == value && (t.Role == RoleState || t.Role == RoleChange) {
			return t.HeldOut
		}
	}
	return false
}

// statementsOf returns the turns that state value for attr: its statement,
// change and restatements, and, when next is set, the change to next if it
// names value as the old one.
func statementsOf(turns []Turn, attr, value, next string) []int {
	var out []int
	for _, t := range turns {
		if t.Attr != attr {
			continue
		}
		switch t.Role {
		case RoleState, RoleChange, RoleRestate:
			if t.Value == value || (next != "" && t.Value == next && t.Role == RoleChange && strings.Contains(strings.ToLower(t.Text), strings.ToLower(value))) {
				out = append(out, t.Index)
			}
		}
	}
	return out
}

func otherValue(rng *rand.Rand, values []string, not1, not2 string) string {
	for {
		if v := values[rng.IntN(len(values))]; v != not1 && v != not2 {
			return v
		}
	}
}

func pick(rng *rand.Rand, xs []string) string { return xs[rng.IntN(len(xs))] }

// fill puts values into a template.
func fill(tmpl, v, old string) string {
	s := strings.ReplaceAll(tmpl, "{old}", old)
	s = strings.ReplaceAll(s, "{new}", v)
	s = strings.ReplaceAll(s, "{v}", v)
	// A sentence must start with a capital letter even when the value is
	// lower case ("coffee is...").
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

func slug(s string) string { return strings.ReplaceAll(s, " ", "_") }
