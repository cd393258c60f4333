package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Told at the command line that a tool is gone, mnemon facts lists the
// old fact as contested, remember says it contested it, and show and
// explain cite the statement; a plan to drop another tool leaves that
// one current.
func TestCLIChangeContestsFact(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	mustRun(t, db, "remember", "--session", "standup-1", "we use Jira for tickets")
	mustRun(t, db, "remember", "--session", "standup-1", "we deploy with Jenkins")
	out := mustRun(t, db, "remember", "--session", "standup-2", "we're thinking about switching off Jira")
	if strings.Contains(out, "CONTEST") {
		t.Fatalf("a plan contested a fact:\n%s", out)
	}
	out = mustRun(t, db, "remember", "--session", "standup-2", "ugh, finally ditched Jenkins, github actions does it all")
	if !regexp.MustCompile(`(?m)^CONTEST .*Jenkins.*\[change_stated\]`).MatchString(out) {
		t.Fatalf("remember does not report the contest:\n%s", out)
	}
	facts := mustRun(t, db, "facts")
	jenkins := regexp.MustCompile(`(?m)^contested +team +\S+ +Jenkins +(mem_\S+)`).FindStringSubmatch(facts)
	if jenkins == nil || !regexp.MustCompile(`(?m)^active +team +\S+ +Jira `).MatchString(facts) {
		t.Fatalf("facts: want Jenkins contested and Jira active:\n%s", facts)
	}
	for _, cmd := range []string{"show", "explain"} {
		out := mustRun(t, db, cmd, jenkins[1])
		if !regexp.MustCompile(`CONTEST.*change_stated\]:? ep_\S+ names "Jenkins" with a change: "finally ditched Jenkins"`).MatchString(out) {
			t.Errorf("%s does not cite the statement:\n%s", cmd, out)
		}
	}
}
