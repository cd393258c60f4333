package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentence is one sentence of a text: its byte span and its text.
type Sentence struct {
	Start, End int
	Text       string
}

// abbreviations never end a sentence: "e.g. Vim", "Dr. Smith", "vs. Emacs".
var abbreviations = wordSet("sentences", "abbreviations")

// softAbbreviations end a sentence only when a capitalised word follows:
// "Vim, Emacs, etc. are fine" versus "...Vim, Emacs, etc. I prefer Vim."
var softAbbreviations = wordSet("sentences", "soft-abbreviations")

// SplitSentences splits text into sentences with their byte spans. It
// breaks after '.', '!', '?' and '…' followed by a space or the end, but
// not after abbreviations ("e.g.", "Dr.", "vs."), initials, decimals
// ("3.14") or dotted names ("node.js"), and not inside double quotes. A line
// break ends a sentence unless the next line plainly continues it (a
// lowercase word after a line with no closing punctuation). Leading list
// bullets are dropped from the span. Text with no closing punctuation is one
// sentence.
func SplitSentences(text string) []Sentence {
	out := make([]Sentence, 0, 4)
	quoteAware := balancedQuotes(text)
	inQuote := false
	segStart := 0
	emit := func(a, b int) {
		a, b = trimSpan(text, a, b)
		if a < b {
			out = append(out, Sentence{Start: a, End: b, Text: text[a:b]})
		}
	}
	for i := 0; i < len(text); {
		r, size := decodeRune(text, i)
		switch {
		case (r == '"' || r == '“' || r == '„' || r == '”') && quoteAware:
			closing := r == '”' || r == '"' && inQuote
			inQuote = !closing
			// `She said "I love Paris." Then...`: a quote closing after the
			// sentence's end ends the sentence too.
			if closing && i > 0 && strings.IndexByte(".!?", text[i-1]) >= 0 &&
				(i+size == len(text) || text[i+size] == ' ' || text[i+size] == '\n') {
				emit(segStart, i+size)
				segStart = i + size
			}
		case r == '\n':
			if lineBreakEnds(text, segStart, i) {
				emit(segStart, i)
				segStart = i + 1
				inQuote = false
			}
		case (r == '.' || r == '!' || r == '?' || r == '…') && !inQuote:
			j := i
			for j < len(text) {
				c, cs := decodeRune(text, j)
				if c != '.' && c != '!' && c != '?' && c != '…' {
					break
				}
				j += cs
			}
			for j < len(text) && strings.ContainsRune(")]\"'”’»", rune(text[j])) {
				j++
			}
			for j < len(text) {
				c, cs := decodeRune(text, j)
				if c != '”' && c != '’' && c != '»' {
					break
				}
				j += cs
			}
			if j < len(text) {
				c, _ := decodeRune(text, j)
				if !unicode.IsSpace(c) {
					i = j
					continue
				}
			}
			if r == '.' && j == i+1 && !breaksAfterDot(text, segStart, i, j) {
				i = j
				continue
			}
			emit(segStart, j)
			segStart = j
			i = j
			continue
		}
		i += size
	}
	emit(segStart, len(text))
	return out
}

// balancedQuotes reports whether double quotes pair up; an unpaired quote
// must not glue the rest of the text into one sentence.
func balancedQuotes(text string) bool {
	straight := strings.Count(text, "\"")
	open := strings.Count(text, "“") + strings.Count(text, "„")
	closeQ := strings.Count(text, "”")
	return straight%2 == 0 && open == closeQ
}

// trimSpan trims spaces and list bullets ("- ", "* ", "• ", "> ") off a span.
func trimSpan(text string, a, b int) (int, int) {
	for {
		for a < b {
			r, size := decodeRune(text, a)
			if !unicode.IsSpace(r) {
				break
			}
			a += size
		}
		if a+1 < b && strings.ContainsRune("-*•>+", rune(text[a])) && text[a+1] == ' ' {
			a += 2
			continue
		}
		if strings.HasPrefix(text[a:b], "•") {
			a += len("•")
			continue
		}
		break
	}
	for b > a {
		r, size := utf8.DecodeLastRuneInString(text[a:b])
		if !unicode.IsSpace(r) {
			break
		}
		b -= size
	}
	return a, b
}

// lineBreakEnds decides whether the newline at i ends the sentence begun at
// segStart.
func lineBreakEnds(text string, segStart, i int) bool {
	// The previous line's last visible character.
	k := i
	for k > segStart && (text[k-1] == ' ' || text[k-1] == '\t' || text[k-1] == '\r') {
		k--
	}
	if k == segStart {
		return true
	}
	prev := text[k-1]
	if strings.IndexByte(".!?:;)", prev) >= 0 {
		return true
	}
	// The next line's first visible character.
	j := i + 1
	for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r') {
		j++
	}
	if j >= len(text) || text[j] == '\n' {
		return true
	}
	r, _ := decodeRune(text, j)
	if !unicode.IsLower(r) {
		return true // a capital, a digit, a bullet, a heading
	}
	// A new first-person statement on its own line ("i prefer vim\ni use zsh").
	rest := text[j:]
	for _, p := range []string{"i ", "i'm ", "i’m ", "we ", "we're ", "my ", "our ", "i've ", "im "} {
		if strings.HasPrefix(rest, p) {
			return true
		}
	}
	return false
}

// breaksAfterDot decides whether the '.' at i (followed by a space at j)
// ends a sentence.
func breaksAfterDot(text string, segStart, i, j int) bool {
	// The word before the dot, inner dots included ("e.g", "U.S").
	w := i
	for w > segStart {
		c := text[w-1]
		if c == '.' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') {
			w--
			continue
		}
		break
	}
	word := strings.ToLower(text[w:i])
	// The next word after the spaces.
	n := j
	for n < len(text) && (text[n] == ' ' || text[n] == '\t') {
		n++
	}
	nextUpper, nextDigit := false, false
	if n < len(text) {
		r, _ := decodeRune(text, n)
		nextUpper = unicode.IsUpper(r)
		nextDigit = unicode.IsDigit(r)
	}
	if word == "" {
		return true
	}
	if w > segStart && text[w-1] >= '0' && text[w-1] <= '9' {
		return true // "version 1.2b." is a word glued to digits; treat as plain
	}
	if abbreviations[word] {
		return false
	}
	if softAbbreviations[word] {
		if word == "no" {
			return !nextDigit
		}
		return nextUpper
	}
	// An initial: "J. K. Jerome", "Franklin D. Roosevelt" — but not the last
	// word of "my favorite language is C. I also...".
	if len(word) == 1 && text[w] >= 'A' && text[w] <= 'Z' && nextUpper && (prevWordCapital(text, segStart, w) || nextIsInitial(text, n)) {
		return false
	}
	if strings.Contains(word, ".") {
		return nextUpper
	}
	return true
}

// prevWordCapital reports whether the word before position w starts with a
// capital letter, or w starts the sentence.
func prevWordCapital(text string, segStart, w int) bool {
	k := w
	for k > segStart && text[k-1] == ' ' {
		k--
	}
	if k == segStart {
		return true
	}
	s := k
	for s > segStart && text[s-1] != ' ' {
		s--
	}
	return startsUpper(text[s:k])
}

// nextIsInitial reports whether text at n is a capital letter and a dot:
// "G. B. H. Shaw".
func nextIsInitial(text string, n int) bool {
	return n+1 < len(text) && text[n] >= 'A' && text[n] <= 'Z' && text[n+1] == '.'
}
