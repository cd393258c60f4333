package extract

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// Casual shapes of issue 16 (round five): "scratch that" and "make that"
// correcting a value in the same breath, a change dated "since last
// week", a tool said to serve one component ("for the api"), running or
// heading a team somewhere, and a relation named in apposition ("my
// daughter Mira"). Each writes what it says, or nothing.
func TestCasualShapesIssue16Casual5(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		// "scratch that", "make that": the value after replaces the one
		// before, and is no item of a list.
		{"scratch that in one sentence", "we're on node 20, scratch that, node 22", []string{"fact team uses:runtime=node 22 cue=correction"}},
		{"scratch that, a place", "I live in Graz, scratch that, Linz", []string{"fact user lives_in=Linz cue=correction"}},
		{"actually make that", "I live in Graz, actually make that Linz", []string{"fact user lives_in=Linz cue=correction"}},
		{"make that, a tool", "my editor is Vim, make that Helix", []string{"preference user prefers:editor=Helix cue=correction"}},
		{"make it, a date", "the recital is the 9th, make it the 19th", []string{"fact user date:recital=the 19th cue=correction"}},
		{"scratch that, next sentence, dated", "we're on node 20. scratch that, node 22 since last week", []string{"fact team uses:runtime=node 22 cue=correction"}},
		{"scratch that, a version", "we're on postgres 15, scratch that, postgres 16", []string{"fact team uses:database=postgres 16 cue=correction"}},
		{"a list stays a list", "we're on node 20, pnpm, vitest", []string{"fact team uses:runtime=node 20", "fact team uses:package_manager=pnpm", "fact team uses:test_framework=vitest"}},
		{"scratch that alone names nothing", "scratch that, node 22 since last week", nil},

		// A correction stands in only for a value of its own kind.
		{"a tool corrects no allergy", "I'm allergic to shellfish. sorry, node 22", []string{"fact user allergic_to:shellfish=shellfish crit=high"}},
		{"a food corrects an allergy", "I'm allergic to shellfish. sorry, sesame", []string{"fact user allergic_to:sesame=sesame cue=correction crit=high"}},
		{"an editor corrects no runtime", "we're on node 20. sorry, Helix", []string{"fact team uses:runtime=node 20"}},
		{"a version corrects no name", "my daughter Mira started violin. scratch that, node 22", nil},

		// A thing used for one component is keyed by its own category.
		{"on a runtime for the api", "we're on node 20 for the api", []string{"fact team uses:runtime=node 20"}},
		{"a database for the api", "we use postgres for the api", []string{"fact team uses:database=postgres"}},
		{"a purpose that is a role", "we use Redis for caching", []string{"fact team uses:cache=Redis"}},

		// Running or heading a team somewhere: where the person works.
		{"run a team at", "I run the data team at Kestrel Labs", []string{"fact user works_at=Kestrel Labs"}},
		{"a name, then run a team at", "I'm Dana, I run the platform team at Orbitly", []string{"fact user name=Dana", "fact user works_at=Orbitly"}},
		{"lead a component at", "I lead infra at Orbitly", []string{"fact user works_at=Orbitly"}},
		{"manage a two-word team", "I manage the mobile squad at Pell", []string{"fact user works_at=Pell"}},
		{"someone else runs a team", "my sister runs the design team at Figwort", []string{"fact sister works_at=Figwort"}},
		{"ran a team once", "I used to run the data team at Kestrel", []string{"fact user works_at=Kestrel cue=past"}},
		{"teach a subject at", "I teach chemistry at Hollins Academy", []string{"fact user works_at=Hollins Academy"}},
		{"taught once at", "I used to teach maths at Ridgeway School", []string{"fact user works_at=Ridgeway School cue=past"}},
		{"teach somewhere no employer", "I teach my kids at home", nil},
		{"teach, a plan", "I'll be teaching at Westbrook in September", nil},
		{"run no team", "I run a book club at the library", nil},
		{"lead a meeting", "I lead standups at 9", nil},
		{"run, a sport", "I run marathons", nil},

		// After "moved to", a day or words closing on a common noun are
		// no place.
		{"moved to a day's meeting", "we moved to Thursday standups", nil},
		{"moved to a city, then a season", "moved to Leeds in the spring, loving it", []string{"fact user lives_in=Leeds cue=correction"}},
		{"a place ending on a place word", "I moved to Mexico city last year", []string{"fact user lives_in=Mexico city cue=correction"}},

		// Quitting a product the lexicon knows says nothing of a job (the
		// engine contests the tool's fact); a company stays an employer.
		{"quit a music app", "I quit Spotify", nil},
		{"quit a company", "I quit Acme last week", []string{"fact user works_at=Acme cue=negation"}},

		// A rule's closing "for me", "please" is no part of it.
		{"no X for me anymore", "no dairy for me anymore", []string{"constraint user constraint:dairy=no dairy crit=high"}},
		{"no X for me please", "no gluten for me please", []string{"constraint user constraint:gluten=no gluten crit=high"}},

		// A relation named in apposition names the relation.
		{"my daughter X", "my daughter Mira started violin lessons", []string{"fact daughter name:mira=Mira"}},
		{"my son X is allergic", "my son Theo is allergic to peanuts", []string{"fact theo allergic_to:peanuts=peanuts crit=high", "fact son name:theo=Theo"}},
		{"my manager, X,", "my manager, Priya, wants the report by Friday", []string{"fact manager name=Priya"}},
		{"my wife X is a", "my wife Ines is a dentist", []string{"fact ines role=dentist", "fact wife name=Ines"}},
		{"my older sister X", "my older sister Lise is a nurse", []string{"fact lise role=nurse", "fact sister name:lise=Lise"}},
		{"my son X's", "my son Theo's school is closed", []string{"fact son name:theo=Theo"}},
		{"my manager, X then a verb", "my boss, Priya wants it done", nil},
		{"several people", "my kids Mira and Theo", nil},
		{"a pet is no relation", "my dog Rex", nil},
		{"a day is no name", "my manager Monday", nil},
		{"asked", "is my son Theo allowed peanuts?", nil},
	})
}

// A phrasal verb whose verb alone means something else is read as one
// word by a search: "work out" is no work.
func TestPhrasalSenses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"where do I work out?", "where do I workout?"},
		{"Where do I Work Out these days", "Where do I workout these days"},
		{"when is she working out", "when is she workout"},
		{"where do I work?", "where do I work?"},
		{"my workout plan", "my workout plan"},
		{"homework outline", "homework outline"},
	} {
		if got := PhrasalSenses(tc.in); got != tc.want {
			t.Errorf("PhrasalSenses(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
