package extract_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/extract"
	"github.com/mnemon-dev/mnemon/memory"
)

func TestZZLocomo(t *testing.T) {
	b, err := os.ReadFile("../../shared/data/locomo/locomo-dev.json")
	if err != nil {
		t.Skip()
	}
	var convs []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(b, &convs); err != nil {
		t.Fatal(err)
	}
	out, _ := os.Create(os.Getenv("ZZOUT"))
	defer out.Close()
	n := 0
	for _, c := range convs {
		for i := 1; i < 40; i++ {
			raw, ok := c.Conversation[fmt.Sprintf("session_%d", i)]
			if !ok {
				continue
			}
			var turns []struct{ Speaker, Text string }
			json.Unmarshal(raw, &turns)
			for _, tu := range turns {
				cands, _ := extract.NewRules().Extract(context.Background(), extract.Event{Kind: memory.EpisodeUserMessage, Content: tu.Text, Speaker: tu.Speaker})
				for _, cd := range cands {
					n++
					fmt.Fprintf(out, "%s | %s/%s=%s | %s | %s\n", strings.ReplaceAll(tu.Text, "\n", " "), cd.Subject, cd.Key, cd.Value, cd.Content, cd.Cue)
				}
			}
		}
	}
	fmt.Fprintln(out, "TOTAL", n)
}
