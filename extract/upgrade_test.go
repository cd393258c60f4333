package extract

import (
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// An upgrade to a new version is a switch: "we upgraded to kotlin 2.0"
// names what the team uses now, as "we switched to kotlin 2.0" does. An
// upgrade of a thing ("upgraded the build server to 64GB"), someone else's,
// or one only thought about names nothing the speaker uses.
func TestUpgradeIsASwitch(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		{"upgraded to a version", "we upgraded to kotlin 2.0", []string{"fact team uses:programming_language=kotlin 2.0 cue=correction"}},
		{"just upgraded, a database", "we just upgraded to Postgres 16 over the weekend", []string{"fact team uses:database=Postgres 16 cue=correction"}},
		{"as switched", "we switched to kotlin 2.0", []string{"fact team uses:programming_language=kotlin 2.0 cue=correction"}},
		{"a thing upgraded", "we upgraded the build server to 64GB", nil},
		{"a plan to upgrade", "I'm thinking of upgrading to kotlin 2.0", nil},
		{"someone else's upgrade", "my sister upgraded to an iPhone 16", nil},
		{"a plan upgraded", "I upgraded to the pro plan", nil},
	})
}

// "our backend is on Postgres 15": a part of the project on a known thing
// of another category uses it, as "the backend is on …" does; a part that
// is itself a category is on its own tool, and a state is no tool.
func TestPartIsOnAThing(t *testing.T) {
	t.Parallel()
	runCases(t, Event{Kind: memory.EpisodeUserMessage}, []extractCase{
		{"our part on a database", "our backend is on postgres 15", []string{"fact team uses:database:backend=postgres 15"}},
		{"our part on a runtime", "our api is on node 20", []string{"fact team uses:runtime:api=node 20"}},
		{"our part on a host", "our frontend is on Vercel", []string{"fact team uses:hosting:frontend=Vercel"}},
		{"a category part", "our CI is on GitLab runners", []string{"fact team uses:ci=GitLab runners"}},
		{"a state", "our backend is on fire", nil},
	})
}
