package engine_test

import (
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
)

// A turn near the top of a small store only for want of better (a weak
// semantic hit, a recent one) is not followed to the turn that changed it
// after: "where does the stripe key go?" is answered by nothing about the
// ORM, so "we swapped gorm for sqlc last sprint" takes no change lift, and
// ranks below what the question's words found.
func TestNoChangeFollowFromAWeakHit(t *testing.T) {
	t.Parallel()
	e, _, _ := newEngine(t)
	notes := []string{
		"Settled on sqlc rather than gorm for the persistence layer, the reflection magic kept hurting us",
		"API errors use RFC 7807 problem details, never bare strings",
		"don't commit dotenv files, credentials live in the vault",
		"the flaky test in payouts is TestRefundRounding, skip it locally",
		"we swapped gorm for sqlc last sprint",
		"Ines owns the payouts service, ask her before touching refund math",
		"prod deploys only on tuesdays and thursdays, never fridays",
	}
	for i, n := range notes {
		remember(t, e, "ns", n, t0.Add(time.Duration(i-len(notes))*time.Hour))
	}
	res := retrieve(t, e, engine.RetrieveParams{Namespace: "ns", Query: "where do I put the stripe api key?", Limit: 6})
	if len(res.Items) == 0 {
		t.Fatal("no items")
	}
	for i, it := range res.Items {
		if it.Content == notes[4] && it.Terms["change"] > 0 {
			t.Errorf("item %d %q took a change lift of %.3f from a weak hit: %s", i+1, it.Content, it.Terms["change"], it.Explanation)
		}
	}
	if res.Items[0].Content != notes[1] {
		t.Errorf("first item %q, want the one sharing the question's word (%q)", res.Items[0].Content, notes[1])
	}
}
