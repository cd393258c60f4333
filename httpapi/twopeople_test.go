package httpapi_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two friends chatting over four sittings (the engine's fixture
// testdata/two-friends.json), each captured over HTTP as one POST
// /v1/episodes with its own session id and the turns' speakers; asked
// from a later session of its own, a question whose answer is spread over
// sittings gets a turn from each of them in the context packed for its
// top five (the items and the turns shown around them). The weekend's turns name Saturday and Sunday, not the
// weekend (Ranking.SetMembers): their items' explanations say so.
func TestE2ETwoPeopleAcrossSessions(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	hdr := []string{"X-Mnemon-Namespace", "two-friends"}
	b, err := os.ReadFile(filepath.Join("..", "engine", "testdata", "two-friends.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sessions []struct {
		Session string      `json:"session"`
		At      time.Time   `json:"at"`
		Turns   [][2]string `json:"turns"`
	}
	if err := json.Unmarshal(b, &sessions); err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		var evs []map[string]any
		for i, turn := range s.Turns {
			ev := e2eEvent("user_message", turn[1], s.At.Add(time.Duration(i)*time.Minute))
			ev["speaker"] = turn[0]
			evs = append(evs, ev)
		}
		f.e2eCapture(t, s.Session, evs, hdr...)
	}

	for _, c := range []struct {
		query string
		want  []string
		// byMember are wanted turns the lexical channel finds by a
		// member of the kind asked for, as their explanation says.
		byMember []string
	}{
		{"what does Odile get up to on weekends?", []string{"bouldering", "tomato seedlings"}, []string{"bouldering"}},
		{"name the cities Odile mentioned", []string{"Porto", "Vienna"}, []string{"Porto", "Vienna"}},
		{"what's new in Baptiste's family?", []string{"twins"}, nil},
	} {
		var rr e2eRetrieveResp
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{
			"query": c.query, "limit": 5, "token_budget": 1200, "session_id": "june",
		}, hdr...), http.StatusOK, &rr)
		// The packed context: the five items and the turns shown
		// around them.
		shown := rr.Context
		for _, w := range c.byMember {
			byMember := false
			for _, it := range rr.Items {
				if strings.Contains(it.Content, w) && strings.Contains(it.Explanation, "one of the kind asked for") {
					byMember = true
				}
			}
			if !byMember {
				t.Errorf("%q: no item holding %q was found through one of the kind's words: %v", c.query, w, e2eContents(rr.Items))
			}
		}
		for _, w := range c.want {
			if !strings.Contains(shown, w) {
				t.Errorf("%q: %q not among the top 5 or their neighbours:\n%s", c.query, w, shown)
			}
		}
	}
}
