package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/engine/enginetest"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

// friendsSession is one sitting of testdata/two-friends.json: two people
// chatting, each turn [speaker, text].
type friendsSession struct {
	Session string      `json:"session"`
	At      time.Time   `json:"at"`
	Turns   [][2]string `json:"turns"`
}

// captureFriends captures testdata/two-friends.json into eng, each sitting
// with its own session id, one turn a minute.
func captureFriends(t *testing.T, eng *engine.Engine, ns string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "two-friends.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sessions []friendsSession
	if err := json.Unmarshal(b, &sessions); err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		evs := make([]engine.Event, len(s.Turns))
		for i, turn := range s.Turns {
			evs[i] = engine.Event{Kind: memory.EpisodeUserMessage, Speaker: turn[0], Content: turn[1], OccurredAt: s.At.Add(time.Duration(i) * time.Minute)}
		}
		if _, err := eng.Capture(context.Background(), engine.CaptureParams{Namespace: ns, Scope: memory.Scope{SessionID: s.Session}, Events: evs}); err != nil {
			t.Fatal(err)
		}
	}
}

// shown is every line a retrieval shows: its items and their neighbours.
func shown(res *engine.Result, k int) string {
	var b strings.Builder
	for _, it := range res.Items[:min(k, len(res.Items))] {
		b.WriteString(it.Content + "\n")
		for _, l := range it.Context {
			b.WriteString(l.Content + "\n")
		}
	}
	return b.String()
}

// A question between two people that names a kind of thing in the plural
// ("what cities ...", "on weekends") is answered by turns from several
// sittings that name members of that kind and not the kind itself: the
// lexical channel matches them at half a word's weight
// (Ranking.SetMembers), and each sitting's turn is in the top five, asked
// from a later session of its own. Without SetMembers the lexical channel
// does not find the weekend's turns (in a chat this small the semantic
// channel still may).
func TestKindInPluralFindsMembersAcrossSessions(t *testing.T) {
	t.Parallel()
	off := engine.DefaultRanking()
	off.SetMembers = 0
	engines := map[string]*engine.Engine{}
	for name, r := range map[string]engine.Ranking{"default": engine.DefaultRanking(), "off": off} {
		_, eng := enginetest.Open(t, filepath.Join(t.TempDir(), "m.db"), sqlite.Options{Synchronous: "NORMAL"}, engine.Config{Ranking: r})
		captureFriends(t, eng, "friends")
		engines[name] = eng
	}
	for _, c := range []struct {
		query string
		want  []string // each in its own sitting
		// byMember are the wanted turns only the kind's own words find
		// in the lexical channel.
		byMember []string
	}{
		{"name the cities Odile mentioned", []string{"Porto", "Vienna"}, []string{"Porto", "Vienna"}},
		{"what does Odile get up to on weekends?", []string{"bouldering", "tomato seedlings"}, []string{"bouldering", "tomato seedlings"}},
		{"what does Odile get up to at the weekend?", nil, nil}, // singular: no kind asked for
	} {
		for name, eng := range engines {
			res, err := eng.Retrieve(context.Background(), engine.RetrieveParams{
				Namespace: "friends", Query: c.query, Limit: 5, Scope: memory.Scope{SessionID: "june"},
			})
			if err != nil {
				t.Fatal(err)
			}
			text := shown(res, 5)
			for _, w := range c.want {
				if name == "default" && !strings.Contains(text, w) {
					t.Errorf("%q: %q not in the top 5:\n%s", c.query, w, text)
				}
			}
			for _, it := range res.Items {
				_, lexical := it.Channels[engine.ChannelLexical]
				member := strings.Contains(it.Explanation, "one of the kind asked for")
				for _, w := range c.byMember {
					if !strings.Contains(it.Content, w) {
						continue
					}
					if name == "default" && (!lexical || !member) {
						t.Errorf("%q: %q found by %v: want the lexical channel, through one of the kind's words (%s)", c.query, w, it.Channels, it.Explanation)
					}
					if name == "off" && lexical {
						t.Errorf("%q, SetMembers 0: %q found by the lexical channel (%s)", c.query, w, it.Explanation)
					}
				}
				if member && (name == "off" || len(c.byMember) == 0) {
					t.Errorf("%q (%s): %q explained as one of a kind: %s", c.query, name, it.Content, it.Explanation)
				}
			}
		}
	}
}
