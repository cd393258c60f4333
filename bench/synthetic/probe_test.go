package synthetic

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/extract"
)

// TestProbeExtraction checks that the generator's small talk yields no
// candidate at all, and with PROBE=1 prints what the rule extractor makes
// of every template, filled with sample values (a reading aid for extractor
// work):
//
//	PROBE=1 go test ./bench/synthetic -run Probe -v
func TestProbeExtraction(t *testing.T) {
	x := extract.NewRules()
	probe := os.Getenv("PROBE") != ""
	show := func(role, s string) []extract.Candidate {
		cs, err := x.Extract(context.Background(), extract.Event{Kind: "user_message", Speaker: "user", Content: s, OccurredAt: time.Now()})
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if probe {
			fmt.Printf("%-9s %s\n", role, s)
			for _, c := range cs {
				fmt.Printf("          -> %s\n", c)
			}
		}
		return cs
	}
	if len(smallTalk()) == 0 {
		t.Fatal("the generator has no small talk")
	}
	for _, s := range smallTalk() {
		if cs := show("smalltalk", s); len(cs) > 0 {
			t.Errorf("small talk %q yields %v", s, cs)
		}
	}
	if !probe {
		return
	}
	for _, a := range attributes() {
		v, old := a.Values[1], a.Values[0]
		fmt.Println("==", a.Name)
		for _, s := range a.State {
			show("state", fill(s, v, ""))
		}
		for _, s := range a.Change {
			show("change", fill(s, v, old))
		}
		for _, s := range a.Other {
			show("other", fill(s, v, ""))
		}
		for _, s := range a.Mention {
			show("mention", fill(s, v, ""))
		}
		for _, s := range a.Tentative {
			show("tentative", fill(s, v, ""))
		}
		for _, s := range restatements() {
			show("restate", fill(s, v, ""))
		}
	}
}
