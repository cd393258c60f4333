package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokKind uint8

const (
	tWord  tokKind = iota
	tPunct         // one punctuation rune: , ; : ! ? . ( ) - and so on
	tQuote         // a whole quoted passage; start/end cover the text inside the quotes
)

// token is one word, punctuation mark or quoted passage of a sentence.
// Matching works on low, the lowercased form with contractions expanded
// ("I'm" → "i" "am", "don't" → "do" "not"), while start and end keep the byte
// offsets into the event content so values are cut from the original text.
type token struct {
	low        string
	start, end int
	kind       tokKind
	capital    bool // the source word starts with an uppercase letter
	newline    bool // a line break precedes the token: values never span lines
	// spliced: a reader put the token right after one it does not follow
	// in the text ("bumped Go to 1.24" read as "Go 1.24"); text joins the
	// two with a space instead of copying the words between them.
	spliced bool
}

func decodeRune(s string, i int) (rune, int) {
	if s[i] < utf8.RuneSelf {
		return rune(s[i]), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' }

// openQuote reports whether r opens a quotation and which runes may close it.
func openQuote(r rune) (bool, string) {
	switch r {
	case '"':
		return true, "\"”"
	case '“', '„':
		return true, "”\"“"
	case '«':
		return true, "»"
	case '\'', '‘', '’':
		return true, "'’"
	case '`':
		return true, "`" // inline code: "we use `pnpm`"
	}
	return false, ""
}

// tokenize splits content[start:end] into tokens. Quoted passages become one
// tQuote token each, so "She said 'I love Paris'" can never match "I love
// X" while "my favorite movie is \"Inception\"" can still use the quote as a
// value.
func tokenize(content string, start, end int, buf []token) []token {
	toks := buf[:0]
	nl := false // a line break since the last token
	for i := start; i < end; {
		r, size := decodeRune(content, i)
		if unicode.IsSpace(r) {
			nl = nl || r == '\n'
			i += size
			continue
		}
		first := len(toks)
		i = nextToken(content, start, i, end, r, size, &toks)
		if nl && len(toks) > first {
			toks[first].newline = true
		}
		nl = false
	}
	return toks
}

// nextToken appends the token(s) starting at i and returns where the next
// one may start.
func nextToken(content string, start, i, end int, r rune, size int, toks *[]token) int {
	switch {
	case isURLAt(content, i, end):
		// A URL is one opaque word: "https://x.io/I-prefer-Vim" must not
		// read as "I prefer Vim".
		j := i
		for j < end && !unicode.IsSpace(rune(content[j])) {
			j++
		}
		for j > i+1 && strings.IndexByte(".,;:!?)]}'\"", content[j-1]) >= 0 {
			j--
		}
		*toks = append(*toks, token{low: "<url>", start: i, end: j, kind: tWord})
		return j
	case isWordRune(r) || (r == '.' && i+1 < end && content[i+1] != '.' && wordAt(content, i+1, end) && (i == start || !isWordRuneAt(content, i-1))):
		j := scanWord(content, i, end)
		*toks = appendWord(*toks, content, i, j)
		return j
	}
	if ok, closers := openQuote(r); ok && quoteMayOpen(content, start, i, end, r) {
		if c, csize := findCloser(content, i+size, end, closers, r); c >= 0 {
			inner := strings.TrimSpace(content[i+size : c])
			if inner != "" {
				is := i + size + strings.Index(content[i+size:c], inner)
				*toks = append(*toks, token{low: strings.ToLower(inner), start: is, end: is + len(inner), kind: tQuote, capital: startsUpper(inner)})
			}
			return c + csize
		}
	}
	*toks = append(*toks, token{low: punctLow(r), start: i, end: i + size, kind: tPunct})
	return i + size
}

// isURLAt reports whether a URL ("https://...", "www.") starts at i.
func isURLAt(s string, i, end int) bool {
	rest := s[i:end]
	if len(rest) < 5 {
		return false
	}
	if i > 0 && isWordRuneAt(s, i-1) {
		return false
	}
	c := rest[0] | 0x20
	if c != 'h' && c != 'w' && c != 'f' {
		return false
	}
	l := strings.ToLower(rest[:min(len(rest), 8)])
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") ||
		strings.HasPrefix(l, "www.") || strings.HasPrefix(l, "ftp://")
}

func wordAt(s string, i, end int) bool {
	if i >= end {
		return false
	}
	r, _ := decodeRune(s, i)
	return unicode.IsLetter(r)
}

func isWordRuneAt(s string, i int) bool {
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	r, _ := decodeRune(s, i)
	return isWordRune(r)
}

func punctLow(r rune) string {
	switch r {
	case '’', '‘':
		return "'"
	case '—', '–':
		return "-"
	case '…':
		return "..."
	}
	return string(r)
}

func startsUpper(s string) bool {
	if s == "" {
		return false
	}
	r, _ := decodeRune(s, 0)
	return unicode.IsUpper(r)
}

// quoteMayOpen tells an opening single quote from an apostrophe: it must
// follow a space, an opening bracket or the start and precede a word.
func quoteMayOpen(s string, start, i, end int, r rune) bool {
	if r == '"' || r == '“' || r == '„' || r == '«' {
		return true
	}
	if i > start {
		p, _ := utf8.DecodeLastRuneInString(s[start:i])
		if !unicode.IsSpace(p) && p != '(' && p != '[' && p != ':' {
			return false
		}
	}
	_, size := decodeRune(s, i)
	return wordAt(s, i+size, end)
}

// findCloser finds the closing quote after i. A single-quote closer must end
// a word and not start another one, so "she said 'I don't know'" closes at
// the last quote, not at the apostrophe in "don't".
func findCloser(s string, i, end int, closers string, open rune) (int, int) {
	single := open == '\'' || open == '‘' || open == '’'
	for j := i; j < end; {
		r, size := decodeRune(s, j)
		if strings.ContainsRune(closers, r) {
			if !single {
				return j, size
			}
			next := j + size
			if next >= end || !wordAt(s, next, end) {
				if j > i {
					p, _ := utf8.DecodeLastRuneInString(s[:j])
					if !unicode.IsSpace(p) {
						return j, size
					}
				}
			}
		}
		j += size
	}
	return -1, 0
}

// scanWord returns where the word starting at i ends. Words keep inner dots
// ("node.js", "3.14", "e.g"), hyphens, slashes, underscores and ampersands
// when a word character follows, trailing "++"/"#" ("C++", "C#"), and
// apostrophes between letters ("don't", "O'Brien").
func scanWord(s string, i, end int) int {
	j := i
	for j < end {
		r, size := decodeRune(s, j)
		switch {
		case isWordRune(r):
			j += size
		case r == '.' || r == '-' || r == '_' || r == '/' || r == '&' || isApostrophe(r) || r == '@':
			if j+size < end && j > i {
				n, _ := decodeRune(s, j+size)
				if isWordRune(n) && (!isApostrophe(r) || unicode.IsLetter(n)) {
					j += size
					continue
				}
			}
			if r == '.' && j == i {
				j += size // the dot of ".net"
				continue
			}
			return j
		case (r == '+' || r == '#') && j > i:
			k := j
			for k < end && (s[k] == '+' || s[k] == '#') {
				k++
			}
			if k < end {
				n, _ := decodeRune(s, k)
				if isWordRune(n) {
					return j
				}
			}
			return k
		default:
			return j
		}
	}
	return j
}

// contractionBases expands the irregular "n't" forms.
var contractionBases = map[string]string{"ca": "can", "wo": "will", "sha": "shall", "ai": "is"}

// pronounIs are the words whose "'s" means "is", not a possessive.
var pronounIs = wordSet("tokens", "pronoun-is")

// contractionSuffix maps the part after an apostrophe to the word it stands for.
var contractionSuffix = map[string]string{"m": "am", "re": "are", "ve": "have", "ll": "will", "d": "would"}

// appendWord appends content[i:j] as one or two tokens, expanding
// contractions.
func appendWord(toks []token, s string, i, j int) []token {
	w := s[i:j]
	capital := startsUpper(w)
	low := lower(w)
	// Find the last apostrophe; only suffix contractions are split.
	ap := strings.LastIndexAny(w, "'’")
	if ap > 0 {
		lap := strings.LastIndexByte(low, '\'')
		suffix := low[lap+1:]
		base := low[:lap]
		switch {
		case suffix == "t" && strings.HasSuffix(base, "n"):
			b := base[:len(base)-1]
			if x, ok := contractionBases[b]; ok {
				b = x
			}
			cut := i + ap - 1 // the 'n' before the apostrophe
			return append(toks,
				token{low: b, start: i, end: cut, kind: tWord, capital: capital},
				token{low: "not", start: cut, end: j, kind: tWord})
		case suffix == "s":
			second := "'s"
			if base == "let" {
				second = "us"
			} else if pronounIs[base] {
				second = "is"
			}
			return append(toks,
				token{low: base, start: i, end: i + ap, kind: tWord, capital: capital},
				token{low: second, start: i + ap, end: j, kind: tWord})
		default:
			if x, ok := contractionSuffix[suffix]; ok {
				return append(toks,
					token{low: base, start: i, end: i + ap, kind: tWord, capital: capital},
					token{low: x, start: i + ap, end: j, kind: tWord})
			}
		}
	}
	switch low {
	case "cannot":
		return append(toks,
			token{low: "can", start: i, end: i + 3, kind: tWord, capital: capital},
			token{low: "not", start: i + 3, end: j, kind: tWord})
	case "gonna":
		return append(toks,
			token{low: "going", start: i, end: i + 3, kind: tWord, capital: capital},
			token{low: "to", start: i + 3, end: j, kind: tWord})
	case "wanna":
		return append(toks,
			token{low: "want", start: i, end: i + 3, kind: tWord, capital: capital},
			token{low: "to", start: i + 3, end: j, kind: tWord})
	case "im":
		// "im" is how many people type "I'm" in chat.
		return append(toks,
			token{low: "i", start: i, end: i + 1, kind: tWord, capital: capital},
			token{low: "am", start: i + 1, end: j, kind: tWord})
	case "dont":
		return append(toks,
			token{low: "do", start: i, end: i + 2, kind: tWord, capital: capital},
			token{low: "not", start: i + 2, end: j, kind: tWord})
	case "ive":
		return append(toks,
			token{low: "i", start: i, end: i + 1, kind: tWord, capital: capital},
			token{low: "have", start: i + 1, end: j, kind: tWord})
	}
	return append(toks, token{low: low, start: i, end: j, kind: tWord, capital: capital})
}

// lower lowercases w and normalises the typographic apostrophe, without
// allocating when w is already plain lowercase ASCII.
func lower(w string) string {
	plain := true
	for k := 0; k < len(w); k++ {
		c := w[k]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			plain = false
			break
		}
	}
	if plain {
		return w
	}
	l := strings.ToLower(w)
	if strings.Contains(l, "’") {
		l = strings.ReplaceAll(l, "’", "'")
	}
	return l
}
