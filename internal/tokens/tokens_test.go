package tokens

import (
	"strings"
	"sync"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

func newCounter(tb testing.TB) *Counter {
	tb.Helper()
	c, err := NewCounter()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// Known cl100k_base counts (checked against OpenAI's tiktoken).
func TestCountKnown(t *testing.T) {
	t.Parallel()
	c := newCounter(t)
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"tiktoken is great!", 6},
		{"Hello, world!", 4},
		{"I'm here", 3},
		{"antidisestablishmentarianism", 6},
		{"    indented", 3},
		{"line one\n\nline two", 5},
		{"1234567", 3},
	}
	for _, tt := range tests {
		if got := c.Count(tt.in); got != tt.want {
			t.Errorf("Count(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// The hand-written split must agree with the library's regular expression on
// text of every shape; this table covers each alternative of the pattern and
// the boundaries between them.
func TestCountMatchesLibrary(t *testing.T) {
	t.Parallel()
	c := newCounter(t)
	lib, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range corpus() {
		want, _ := lib.Count(s)
		if got := c.Count(s); got != want {
			t.Errorf("Count(%q) = %d, library %d", s, got, want)
		}
	}
}

func corpus() []string {
	return []string{
		"Rosalind's beekeeping club met on 7 May 2023.",
		"they're, we've, I'll, she'd, I'M, YOU'RE, it'S",
		"  two spaces, three   spaces\tand\ttabs \t\n\n  \r\n mixed",
		"trailing spaces   ",
		"\n\n\nleading newlines",
		"12345 1,234,567.89 ٣٤٥ ½ Ⅻ",
		"func main() {\n\tfmt.Println(\"hi\")\n}\n",
		"(parens) [brackets] {braces} <angles> !!! ??? ... --- ***",
		" !!\n\nx",
		"emoji 🎉🎉 and 👩‍👩‍👧 family",
		"日本語のテキストと English mixed",
		"Ελληνικά кириллица עברית العربية",
		"a\u00a0b\u2003c\u3000d",
		"x'", "'", "''", "'s", " 's", "a'sb", "'ll'", "'LL", "'re'", "''re",
		"\r", "\r\n", " \r\n ", "  \n  ", "\t", " ", "  ", "x  ", "x \u00a0y",
		"path/to/file.go:42:7", "https://example.com/a?b=c&d=e#f",
		"$100 €200 ¥300", "C++ and C# and F#", "snake_case camelCase kebab-case",
		strings.Repeat("ab", 60), strings.Repeat("!", 70), strings.Repeat(" ", 70) + "x",
	}
}

func FuzzCountMatchesLibrary(f *testing.F) {
	for _, s := range corpus() {
		f.Add(s)
	}
	c := newCounter(f)
	lib, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// regexp2, which the library splits with, skips a leading U+007F
		// in some contexts ("\x7f&A" counts as "&A"); that is a library
		// bug, not a behaviour to copy.
		// Pieces over maxExactPiece bytes are counted approximately by design.
		if strings.ContainsRune(s, 0x7f) || len(s) > maxExactPiece {
			t.Skip()
		}
		want, err := lib.Count(s)
		if err != nil {
			t.Skip()
		}
		if got := c.Count(s); got != want {
			t.Fatalf("Count(%q) = %d, library %d", s, got, want)
		}
	})
}

func TestCountConcurrent(t *testing.T) {
	t.Parallel()
	c := newCounter(t)
	text := "Imogen sketched a lighthouse last year and shared it with her kids."
	want := c.Count(text)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				if got := c.Count(text); got != want {
					t.Errorf("Count = %d, want %d", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

var benchText = strings.Repeat("Imogen sketched a lighthouse last year and shared it with her kids; Rosalind's beekeeping club meets on Tuesdays at 7pm. ", 4)

func BenchmarkCount(b *testing.B) {
	c := newCounter(b)
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		c.Count(benchText)
	}
}

// BenchmarkCountLibrary is the library's own Count on the same text, for
// comparison.
func BenchmarkCountLibrary(b *testing.B) {
	lib, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(benchText)))
	for b.Loop() {
		lib.Count(benchText)
	}
}
