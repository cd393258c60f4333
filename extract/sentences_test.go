package extract

import (
	"reflect"
	"testing"
)

func TestSplitSentences(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"plain", "I prefer Vim. I live in Lisbon.", []string{"I prefer Vim.", "I live in Lisbon."}},
		{"no trailing period", "I prefer Vim. I live in Lisbon", []string{"I prefer Vim.", "I live in Lisbon"}},
		{"lowercase chat", "i prefer vim. i live in lisbon.", []string{"i prefer vim.", "i live in lisbon."}},
		{"question and exclamation", "Really? Yes! I use Go.", []string{"Really?", "Yes!", "I use Go."}},
		{"repeated punctuation", "Wow!!! I use Go?!", []string{"Wow!!!", "I use Go?!"}},
		{"e.g. stays inside", "I use editors, e.g. Vim and Emacs. Fine.", []string{"I use editors, e.g. Vim and Emacs.", "Fine."}},
		{"i.e. stays inside", "My shell, i.e. zsh, is fast. Yes.", []string{"My shell, i.e. zsh, is fast.", "Yes."}},
		{"titles", "Dr. Smith uses Vim. Mr. Jones too.", []string{"Dr. Smith uses Vim.", "Mr. Jones too."}},
		{"vs.", "Vim vs. Emacs is old. Done.", []string{"Vim vs. Emacs is old.", "Done."}},
		{"etc. before lowercase", "Vim, Emacs, etc. are editors.", []string{"Vim, Emacs, etc. are editors."}},
		{"etc. before a capital ends", "I like Vim, Emacs, etc. I use Vim.", []string{"I like Vim, Emacs, etc.", "I use Vim."}},
		{"decimals", "Pi is 3.14 roughly. Yes.", []string{"Pi is 3.14 roughly.", "Yes."}},
		{"dotted names", "I use Node.js daily. And Next.js.", []string{"I use Node.js daily.", "And Next.js."}},
		{"initials", "I read J. R. R. Tolkien. Great.", []string{"I read J. R. R. Tolkien.", "Great."}},
		{"a capital letter at the end is a word", "My favorite language is C. I also like Go.", []string{"My favorite language is C.", "I also like Go."}},
		{"U.S.", "I moved to the U.S. last year. Nice.", []string{"I moved to the U.S. last year.", "Nice."}},
		{"quotes keep their sentences", `She said "I love Paris. It is great." Then she left.`, []string{`She said "I love Paris. It is great."`, "Then she left."}},
		{"unbalanced quote does not swallow", `He said "hi. I use Vim. Ok.`, []string{`He said "hi.`, "I use Vim.", "Ok."}},
		{"newlines end lines", "I prefer Vim\nI live in Oslo", []string{"I prefer Vim", "I live in Oslo"}},
		{"lowercase first-person lines", "i prefer vim\ni live in oslo", []string{"i prefer vim", "i live in oslo"}},
		{"hard-wrapped text joins", "I have always\npreferred Vim.", []string{"I have always\npreferred Vim."}},
		{"bullets", "- I prefer Vim\n- Always use pnpm\n* I live in Oslo", []string{"I prefer Vim", "Always use pnpm", "I live in Oslo"}},
		{"blank lines", "One.\n\n\nTwo.", []string{"One.", "Two."}},
		{"ellipsis", "Well... I use Vim.", []string{"Well...", "I use Vim."}},
		{"closing parenthesis", "(I use Vim.) Then Go.", []string{"(I use Vim.)", "Then Go."}},
		{"empty", "", nil},
		{"spaces", "   ", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, s := range SplitSentences(tc.in) {
				if s.Text != tc.in[s.Start:s.End] {
					t.Fatalf("span [%d,%d) = %q, text %q", s.Start, s.End, tc.in[s.Start:s.End], s.Text)
				}
				got = append(got, s.Text)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("SplitSentences(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}
