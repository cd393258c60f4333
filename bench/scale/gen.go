package scale

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/search/searchtest"
)

// Turn is one captured message of a generated conversation.
type Turn struct {
	Speaker string // "user" or "assistant"
	Text    string
	At      time.Time
}

// Session is one generated conversation.
type Session struct {
	ID    string
	Turns []Turn
}

// Conversations generates seeded multi-session conversations between one
// user and an assistant. The user keeps coming back to a fixed pool of
// facts about themselves (restated, sometimes changed) between new
// one-off remarks, as real users do: that repetition is what consolidation
// is meant to fold away, so storage with consolidation should flatten while
// storage without it grows with every session.
type Conversations struct {
	g     *searchtest.Generator
	r     *rand.Rand
	pool  []string
	start time.Time
	turns int
	n     int
}

// NewConversations returns a generator of sessions of turns turns each
// (at least 2), the first starting at start. The same seed yields the same
// conversations.
func NewConversations(seed uint64, turns int, start time.Time) *Conversations {
	c := &Conversations{
		g:     searchtest.NewGenerator(seed),
		r:     rand.New(rand.NewPCG(seed, 0x5ca1e)),
		start: start,
		turns: max(2, turns),
	}
	// 60 standing facts: enough that a session restates a few of them, few
	// enough that 1,000 sessions restate each many times.
	for range 60 {
		c.pool = append(c.pool, c.fact())
	}
	return c
}

func (c *Conversations) fact() string {
	switch c.r.IntN(6) {
	case 0:
		return fmt.Sprintf("I prefer %s in the morning.", c.g.Word("drink"))
	case 1:
		return fmt.Sprintf("I live in %s now.", c.g.Word("city"))
	case 2:
		return fmt.Sprintf("My favourite editor is %s.", c.g.Word("editor"))
	case 3:
		return fmt.Sprintf("I work at a %s company as a %s.", c.g.Word("company"), c.g.Word("job"))
	case 4:
		return fmt.Sprintf("My %s is called %s.", c.g.Word("pet"), c.g.Word("petname"))
	}
	return fmt.Sprintf("I am learning %s this %s.", c.g.Word("lang"), c.g.Word("period"))
}

// Next returns the next session. Sessions are a day apart; turns within a
// session 30 seconds apart.
func (c *Conversations) Next() Session {
	s := Session{ID: fmt.Sprintf("session-%d", c.n+1)}
	at := c.start.Add(time.Duration(c.n) * 24 * time.Hour)
	for i := range c.turns {
		t := Turn{Speaker: "user", At: at.Add(time.Duration(i) * 30 * time.Second)}
		if i%2 == 1 {
			t.Speaker = "assistant"
			t.Text = fmt.Sprintf("Noted. %s", c.g.Sentence())
		} else {
			switch k := c.r.IntN(10); {
			case k < 4: // restate a standing fact
				t.Text = c.pool[c.r.IntN(len(c.pool))]
			case k < 5: // change one
				j := c.r.IntN(len(c.pool))
				c.pool[j] = c.fact()
				t.Text = "Actually, " + lowerFirst(c.pool[j])
			default: // something new
				t.Text = c.g.Sentence()
			}
		}
		s.Turns = append(s.Turns, t)
	}
	c.n++
	return s
}

func lowerFirst(s string) string {
	if strings.HasPrefix(s, "I ") {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// Queries returns n queries of the kind an agent sends: a window of 3-7
// words from sentences like the stored ones (but not among them), or a
// question about the user built from their vocabulary. It uses its own
// seed space so queries never copy a stored sentence.
func Queries(seed uint64, n int) []string {
	g := searchtest.NewGenerator(1000 + seed)
	r := rand.New(rand.NewPCG(seed, 77))
	out := make([]string, n)
	for i := range out {
		switch r.IntN(5) {
		case 0:
			out[i] = fmt.Sprintf("what does %s prefer to drink in the morning?", g.Word("name"))
		case 1:
			out[i] = fmt.Sprintf("which editor does %s use for %s", g.Word("name"), g.Word("lang"))
		case 2:
			out[i] = [...]string{"where do I live now", "what is my favourite editor", "what am I learning", "where do I work"}[r.IntN(4)]
		default:
			w := strings.Fields(g.Sentence())
			size := min(len(w), 3+r.IntN(5))
			start := r.IntN(len(w) - size + 1)
			out[i] = strings.Join(w[start:start+size], " ")
		}
	}
	return out
}
