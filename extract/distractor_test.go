package extract

import "testing"

func TestDistractor(t *testing.T) {
	tests := []struct {
		text   string
		want   bool
		reason string
	}{
		{"What is your favorite editor?", true, "question"},
		{"Do you like Vim?", true, "question"},
		{"If I lived in Berlin I would bike everywhere.", true, "hypothetical"},
		{"Ana said she prefers Emacs.", true, "reported"},
		{"Should I move to Berlin? If I did, I'd bike.", true, "question"},
		{"The deploy script lives in tools/deploy.sh and needs Docker.", false, ""},
		{"My favorite editor is Vim.", false, ""},
		{"Is it raining? The build is green.", false, ""},
		{"He prefers dark mode.", true, "unresolved_pronoun"},
		{"My manager wants me to use Java.", true, "someone_elses_wish"},
		{"I want me to be better.", false, ""},
		{"It rained all day.", false, ""},
		{"", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, reason := Distractor(tt.text)
			if got != tt.want || reason != tt.reason {
				t.Fatalf("Distractor(%q) = %v %q, want %v %q", tt.text, got, reason, tt.want, tt.reason)
			}
		})
	}
}
