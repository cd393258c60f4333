package httpapi_test

import (
	"fmt"
	"testing"
	"time"
)

// A client captures each message as it is said, one request a turn, with
// the conversation's session id: a "she" opening the user's message names
// the person the user's message before it spoke of ("my sister just moved
// to Lyon", the agent's "oh lovely", then "she hates the rain though"),
// and the fact is the sister's. The same words in another session, after
// a turn about the user, after someone else's turn, or after a long pause
// state nothing of her.
func TestE2EPronounReachesTheTurnBefore(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 6, 2, 18, 0, 0, 0, time.UTC)
	type turn struct {
		session, speaker, kind, text string
		after                        time.Duration // since the turn before
	}
	user := func(s, text string) turn { return turn{s, "", "user_message", text, time.Minute} }
	agent := func(s, text string) turn { return turn{s, "", "agent_message", text, time.Minute} }
	cases := []struct {
		name  string
		turns []turn
		facts []string // subject/key=value live, or with "!" not; "*" is any subject or key
		q     string   // asked from a later session; its first item must hold want
		want  string
	}{
		{"sister, the agent, then she", []turn{
			user("a", "my sister just moved to Lyon"), agent("a", "Oh lovely, how is she settling in?"), user("a", "she hates the rain though"),
		}, []string{"sister/lives_in=Lyon", "sister/dislikes:rain=the rain", "!user/dislikes:rain=the rain"}, "what does my sister hate?", "rain"},
		{"a chain over three messages", []turn{
			user("a", "my uncle finally retired from the railway"), user("a", "he bought a boat with the pension lol"),
			agent("a", "Ha, good for him."), user("a", "he's allergic to shellfish which is funny for a sailor"),
		}, []string{"uncle/allergic_to:shellfish=shellfish"}, "", ""},
		{"another session", []turn{
			user("a", "my sister just moved to Lyon"), user("b", "she hates the rain though"),
		}, []string{"sister/lives_in=Lyon", "!sister/dislikes:rain=the rain"}, "", ""},
		{"a turn about the user", []turn{
			user("a", "my sister just moved to Lyon"), user("a", "I'm thinking of visiting in spring"), user("a", "she hates the rain though"),
		}, []string{"!sister/dislikes:rain=the rain"}, "", ""},
		{"someone else spoke between", []turn{
			user("a", "my sister just moved to Lyon"), {"a", "Marta", "user_message", "no way, I lived there for a year", time.Minute}, user("a", "she hates the rain though"),
		}, []string{"!sister/dislikes:rain=the rain", "!marta/dislikes:rain=the rain"}, "", ""},
		{"the agent asked after someone else", []turn{
			user("a", "Mira started at the dance school and Leni is still doing swimming"), agent("a", "How did Mira like it?"), user("a", "she loved the big mirrors"),
		}, []string{"!*/*=the big mirrors"}, "", ""},
		{"the other kind", []turn{
			user("a", "my brother just moved to Lyon"), user("a", "she hates the rain though"),
		}, []string{"!brother/dislikes:rain=the rain"}, "", ""},
		{"a long pause", []turn{
			user("a", "my sister just moved to Lyon"), {"a", "", "user_message", "she hates the rain though", 3 * time.Hour},
		}, []string{"!sister/dislikes:rain=the rain"}, "", ""},
	}
	for i, c := range cases {
		ns := fmt.Sprintf("pronoun%d", i)
		hdr := []string{"X-Mnemon-Namespace", ns}
		at := day
		for _, tu := range c.turns {
			at = at.Add(tu.after)
			ev := e2eEvent(tu.kind, tu.text, at)
			if tu.speaker != "" {
				ev["speaker"] = tu.speaker
			}
			f.e2eCapture(t, ns+"-"+tu.session, []map[string]any{ev}, hdr...)
		}
		checkSitting(t, f, ns, c.name, c.facts, c.q, c.want, hdr...)
	}
}
