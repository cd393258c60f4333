package synthetic

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/extract"
)

// TestProbeExtraction prints what the rule extractor makes of every
// template, filled with sample values: a reading aid for extractor work,
// not a check (it asserts nothing and runs only with PROBE=1):
//
//	PROBE=1 go test ./bench/synthetic -run Probe -v
func TestProbeExtraction(t *testing.T) {
	if os.Getenv("PROBE") == "" {
		t.Skip()
	}
	x := extract.NewRules()
	show := func(role, s string) {
		cs, _ := x.Extract(context.Background(), extract.Event{Kind: "user_message", Speaker: "user", Content: s, OccurredAt: time.Now()})
		fmt.Printf("%-9s %s\n", role, s)
		for _, c := range cs {
			fmt.Printf("          -> %s\n", c)
		}
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
	for _, s := range smallTalk() {
		show("smalltalk", s)
	}
}
