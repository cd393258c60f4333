package httpapi_test

import (
	"fmt"
	"testing"
	"time"
)

// Casual remarks that name a fact's value without changing it, many with
// a word that can say a change ("new", "now", "left", "upgraded"...),
// leave the fact active: contesting is for a statement that the value
// itself changed.
func TestE2ECasualMentionKeepsFact(t *testing.T) {
	t.Parallel()
	f := e2eOpen(t, e2eOptions{})
	day := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	cases := []struct{ before, after, subject, value string }{
		{"we deploy with Jenkins", "Jenkins was down again today, annoying", "team", "Jenkins"},
		{"we deploy with Jenkins", "Jenkins is so slow now, the queue took an hour", "team", "Jenkins"},
		{"we deploy with Jenkins", "wrote a new plugin for Jenkins this weekend", "team", "Jenkins"},
		{"we deploy with Jenkins", "upgraded Jenkins to the latest LTS, went smoothly", "team", "Jenkins"},
		{"we deploy with Jenkins", "gave a talk about how we use Jenkins at the meetup", "team", "Jenkins"},
		{"I use Fedora on my laptop", "new laptop runs Fedora great", "user", "Fedora"},
		{"I use Fedora on my laptop", "the new Fedora release is out, installed it last night", "user", "Fedora"},
		{"I use Notion for my notes", "Notion has a new AI feature now, kinda neat", "user", "Notion"},
		{"I use Notion for my notes", "left my charger at work, at least Notion syncs to my phone", "user", "Notion"},
		{"I live in Lisbon", "Lisbon is so hot now, can't sleep", "user", "Lisbon"},
		{"I live in Lisbon", "Lisbon traffic is terrible now", "user", "Lisbon"},
		{"I live in Lisbon", "my sister came to visit, showed her around Lisbon, she loved it", "user", "Lisbon"},
		{"I work at Deloitte", "Deloitte gave everyone a new laptop", "user", "Deloitte"},
		{"I work at Deloitte", "left Deloitte late today, long meeting", "user", "Deloitte"},
		{"my editor is Vim", "just bought a new monitor, Vim looks gorgeous on it", "user", "Vim"},
		{"we use Slack for chat", "Slack is down now, nobody can reach anyone", "team", "Slack"},
		{"we use Slack for chat", "joined a new Slack channel for the offsite", "team", "Slack"},
		{"we use AWS for hosting", "the AWS bill is huge now", "team", "AWS"},
		{"we use AWS for hosting", "our AWS costs dropped a lot after the cleanup", "team", "AWS"},
		{"I use Firefox", "Firefox crashed twice today, new tabs keep freezing", "user", "Firefox"},
		{"we track bugs in Jira", "Jira is slow as always, nothing new", "team", "Jira"},
		{"we track bugs in Jira", "moved a dozen tickets in Jira now that the sprint ended", "team", "Jira"},
		{"I use Spotify for music", "Spotify raised prices again, the new plan is pricey", "user", "Spotify"},
		{"I use Spotify for music", "sold my old bike, Spotify on the bus is all I need now", "user", "Spotify"},
		{"we deploy with Jenkins", "Jenkins doesn't crash anymore, nice", "team", "Jenkins"},
		{"I live in Lisbon", "Lisbon is no longer this cheap, rents doubled", "user", "Lisbon"},
	}
	for i, c := range cases {
		ns := fmt.Sprintf("casual%d", i)
		f.e2eCapture(t, "chat-"+ns+"-a", []map[string]any{e2eEvent("user_message", c.before, day)}, "X-Mnemon-Namespace", ns)
		first := factWithValue(f.e2eFacts(t, ns), c.subject, c.value)
		if first == nil || first.Status != "active" {
			t.Errorf("%q stored no active %s fact %q: %+v", c.before, c.subject, c.value, f.e2eFacts(t, ns))
			continue
		}
		f.e2eCapture(t, "chat-"+ns+"-b", []map[string]any{e2eEvent("user_message", c.after, day.Add(7*24*time.Hour))}, "X-Mnemon-Namespace", ns)
		for _, fc := range f.e2eFacts(t, ns) {
			if fc.ID == first.ID && fc.Status != "active" {
				t.Errorf("after %q the fact %q is %s, want active", c.after, c.value, fc.Status)
			}
		}
	}
}
