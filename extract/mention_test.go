package extract

import "testing"

func TestPlainMention(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text, value string
		want              bool
	}{
		{"said plainly", "honestly we binned circleci months ago, it's all gitlab runners", "circleci", true},
		{"case aside", "binned CircleCI, it's all GitLab runners", "circleci", true},
		{"not anymore is a change", "nobody touches Nomad anymore, k8s won", "Nomad", true},
		{"no longer is a change", "Nomad is no longer a thing here", "Nomad", true},
		{"second sentence", "long week. we finally retired Heroku for good.", "Heroku", true},
		{"a question", "did we ever actually retire Heroku?", "Heroku", false},
		{"a plan", "we're gonna retire Heroku at some point", "Heroku", false},
		{"a future time", "retiring Heroku next month, fingers crossed", "Heroku", false},
		{"a wish", "I wish we'd retired Heroku already", "Heroku", false},
		{"a condition", "if we retire Heroku the bill halves", "Heroku", false},
		{"a hedge", "maybe we dropped Heroku, not sure", "Heroku", false},
		{"a negation", "we never retired Heroku in the end", "Heroku", false},
		{"a negation with n't", "we didn't drop Heroku after all", "Heroku", false},
		{"someone else's report", "Priya said we dropped Heroku", "Heroku", false},
		{"part of a bigger name", "dropped Heroku Postgres, kept the rest", "Heroku", false},
		{"part of a bigger phrase", "quit green tea for good", "tea", false},
		{"a phrase going on", "ripped out the heroku addons yesterday", "heroku", false},
		{"a hyphenated word", "dropped our Heroku-style deploys", "Heroku", false},
		{"not named", "we moved everything to Fly", "Heroku", false},
		{"a longer value whole", "sold the old Ford Fiesta last week", "Ford Fiesta", true},
		// A plan word as a noun is no plan.
		{"plans as a noun closing a clause", "we ditched Trello, Notion now for lesson plans", "Trello", true},
		{"a plan after a possessive", "moved my phone plan off Voxtel", "Voxtel", true},
		{"plans to, a plan", "we plan to ditch Trello", "Trello", false},
		{"plans as a verb", "she plans on dropping Trello", "Trello", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, ok := PlainMention(c.text, c.value)
			if ok != c.want {
				t.Fatalf("PlainMention(%q, %q) = %q, %v; want %v", c.text, c.value, s, ok, c.want)
			}
			if ok && s == "" {
				t.Fatalf("PlainMention(%q, %q): ok with no sentence", c.text, c.value)
			}
		})
	}
}

func TestPlainMentionClauseAndNewValue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, value, want string }{
		{"ditched heroku, it's all fly.io", "heroku", "ditched heroku"},
		{"we moved the blog over to Hugo", "Hugo", ""},
		{"swapped the Kona for a Brompton", "Brompton", ""},
		{"swapped the Kona for a Brompton", "Kona", "swapped the Kona for a Brompton"},
		{"it's all Fly now", "Fly", ""},
	} {
		got, ok := PlainMention(c.text, c.value)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("PlainMention(%q, %q) = %q, %v; want %q", c.text, c.value, got, ok, c.want)
		}
	}
}
