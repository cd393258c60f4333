package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxSlugLen bounds a slug so one long value cannot produce an unreadable
// key; cutting happens at a word boundary where possible.
const maxSlugLen = 48

// Slug lowercases s and joins its words with '_', the form every key segment
// and subject takes: "Visual Studio Code" → "visual_studio_code",
// "force-push to main" → "force_push_to_main". A few programming names keep
// their identity instead of collapsing ("C++" → "cpp", "C#" → "csharp",
// ".NET" → "dotnet"). Leading articles and possessives are dropped so
// "the Beatles" and "Beatles" share a slot. It returns "" when nothing
// sluggable remains.
func Slug(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pendingSep := false
	words := 0
	wordStart := true
	for i := 0; i < len(s); {
		r, size := decodeRune(s, i)
		switch {
		case r == '+' && i+size < len(s) && s[i+size] == '+':
			// "c++" → "cpp"; "++" anywhere else reads as "pp" too.
			b.WriteString("pp")
			i += size + 1
			wordStart = false
			continue
		case r == '+':
			b.WriteString("plus")
			wordStart = false
		case r == '#':
			b.WriteString("sharp")
			wordStart = false
		case r == '.' && wordStart && i+size < len(s) && isLetter(s[i+size:]):
			// ".net" → "dotnet"; a dot inside a word ("node.js") separates.
			if pendingSep && b.Len() > 0 {
				b.WriteByte('_')
			}
			pendingSep = false
			b.WriteString("dot")
			wordStart = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			lr := unicode.ToLower(r)
			if unicode.IsUpper(lr) || unicode.IsTitle(lr) {
				// A letter with no lowercase form cannot appear in a key.
				pendingSep = b.Len() > 0
				wordStart = true
				break
			}
			if wordStart {
				words++
			}
			if pendingSep && b.Len() > 0 {
				b.WriteByte('_')
			}
			pendingSep = false
			b.WriteRune(lr)
			wordStart = false
		case unicode.Is(unicode.Mn, r):
			// Combining marks belong to the previous letter; dropping them
			// keeps "café" typed either way in one slot.
		case r == '\'' || r == '’':
			// "O'Brien" and "don't" stay one word.
		default:
			pendingSep = b.Len() > 0
			wordStart = true
		}
		i += size
	}
	out := b.String()
	out = dropLeadingWords(out, "the_", "a_", "an_", "my_", "our_", "your_", "their_", "its_")
	if len(out) > maxSlugLen {
		cut := strings.LastIndexByte(out[:maxSlugLen], '_')
		if cut < maxSlugLen/2 {
			cut = maxSlugLen
			for cut > 0 && !isRuneStart(out[cut]) {
				cut--
			}
		}
		out = strings.TrimRight(out[:cut], "_")
	}
	return out
}

func dropLeadingWords(s string, prefixes ...string) string {
	for again := true; again; {
		again = false
		for _, p := range prefixes {
			if len(s) > len(p) && strings.HasPrefix(s, p) {
				s = s[len(p):]
				again = true
			}
		}
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func isLetter(s string) bool {
	r, _ := decodeRune(s, 0)
	return unicode.IsLetter(r)
}

// shortSlug slugs at most n words of s, for keys derived from whole phrases
// (constraints, decisions, goals) where the first words carry the meaning.
func shortSlug(s string, n int) string {
	sl := Slug(s)
	parts := 0
	for i := 0; i < len(sl); i++ {
		if sl[i] == '_' {
			parts++
			if parts == n {
				return sl[:i]
			}
		}
	}
	return sl
}

// CanonicalCategory maps a category noun phrase to its canonical slot name:
// "text editor", "IDE" and "editor" → "editor"; "coding language" →
// "programming_language"; "package management" → "package_manager".
// Qualifiers such as "favorite", "preferred", "go-to" and "main" are ignored.
// Unknown nouns are slugged ("ice cream flavor" → "ice_cream_flavor").
func CanonicalCategory(noun string) string {
	n := strings.ToLower(strings.TrimSpace(noun))
	n = strings.Trim(n, ".,;:!?\"'")
	for changed := true; changed; {
		changed = false
		for _, q := range categoryQualifiers {
			if strings.HasPrefix(n, q+" ") {
				n = strings.TrimSpace(n[len(q)+1:])
				changed = true
			}
		}
	}
	if c, ok := categorySynonyms[n]; ok {
		return c
	}
	if strings.HasSuffix(n, "s") && len(n) > 3 {
		if c, ok := categorySynonyms[n[:len(n)-1]]; ok {
			return c
		}
	}
	if c, ok := categorySynonyms[strings.ReplaceAll(n, "-", " ")]; ok {
		return c
	}
	return Slug(n)
}

// CategoryOf returns the built-in category of a named thing ("Neovim" →
// "editor", "pnpm" → "package_manager", "Postgres 16" → "database") and
// whether it is known.
func CategoryOf(value string) (string, bool) {
	v := strings.ToLower(strings.TrimSpace(value))
	v = strings.Trim(v, ".,;:!?\"'()")
	v = strings.TrimPrefix(v, "the ")
	if a, ok := ambiguousNames[v]; ok {
		name := strings.Trim(strings.TrimSpace(value), ".,;:!?\"'()")
		if len(name) > 4 && strings.EqualFold(name[:4], "the ") {
			name = name[4:]
		}
		if r, _ := utf8.DecodeRuneInString(name); unicode.IsUpper(r) {
			return a.tool, true
		}
		return a.other, true
	}
	if c, ok := lexicon[v]; ok {
		return c, true
	}
	// "Postgres 16", "Python 3.12", "Go 1.22": versions do not change the
	// category.
	if i := strings.LastIndexByte(v, ' '); i > 0 && isVersion(v[i+1:]) {
		if c, ok := lexicon[v[:i]]; ok {
			return c, true
		}
	}
	if i := strings.IndexByte(v, ' '); i > 0 {
		// "Neovim nightly", "vim keybindings": the first word names it.
		if c, ok := lexicon[v[:i]]; ok && !ambiguousHead[v[:i]] {
			return c, true
		}
	}
	if c, ok := lexicon[strings.ReplaceAll(v, " ", "")]; ok {
		return c, true
	}
	return "", false
}

func isVersion(s string) bool {
	s = strings.TrimPrefix(s, "v")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' && s[i] != 'x' {
			return false
		}
	}
	return s[0] >= '0' && s[0] <= '9'
}

// categoryDisplay turns a canonical category into words for content
// sentences.
func categoryDisplay(cat string) string {
	if d, ok := categoryWords[cat]; ok {
		return d
	}
	return strings.ReplaceAll(cat, "_", " ")
}
