package extract

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
)

// The extractor's word tables live in lexicons/*.txt, embedded in the
// binary and parsed once when the package initialises. The format is
// plain text:
//
//	# a comment (a line whose first non-space character is #)
//	[table-name]
//	one entry per line, lowercase, spaces allowed (in cue-patterns.txt
//	a capital says the word is written with one: "Will")
//
// A file is a list of named tables; an entry belongs to the table opened
// last. Parsing never fails at run time: a malformed line is left out and
// recorded in lexiconProblems, and TestLexiconFilesAreWellFormed fails on
// any problem, so a broken file cannot reach a release.

//go:embed lexicons/*.txt
var lexiconFS embed.FS

// lexiconTables maps "file/table" to its entries, in file order.
// lexiconProblems lists every malformed line, missing table or duplicate.
// Both are written only while the package initialises.
var lexiconTables, lexiconProblems = loadLexicons(lexiconFS)

// lexiconUsed records the tables the package asked for, so the test can
// report a table no code reads. Written at initialisation, and by tests
// that parse patterns of their own, in parallel: under lexiconUsedMu.
var (
	lexiconUsedMu sync.Mutex
	lexiconUsed   = map[string]bool{}
)

// markLexiconUsed records that table was asked for.
func markLexiconUsed(table string) {
	lexiconUsedMu.Lock()
	lexiconUsed[table] = true
	lexiconUsedMu.Unlock()
}

// loadLexicons parses every lexicons/*.txt file of fsys.
func loadLexicons(fsys fs.FS) (map[string][]string, []string) {
	tables := map[string][]string{}
	var problems []string
	files, err := fs.Glob(fsys, "lexicons/*.txt")
	if err != nil {
		return tables, []string{err.Error()}
	}
	for _, name := range files {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		base := strings.TrimSuffix(path.Base(name), ".txt")
		t, p := parseLexicon(base, string(b))
		for k, v := range t {
			tables[k] = v
		}
		problems = append(problems, p...)
	}
	return tables, problems
}

// parseLexicon reads one file named base into "base/table" entries.
func parseLexicon(base, text string) (map[string][]string, []string) {
	tables := map[string][]string{}
	var problems []string
	seen := map[string]bool{}
	table := ""
	for n, line := range strings.Split(text, "\n") {
		where := fmt.Sprintf("lexicons/%s.txt:%d", base, n+1)
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "["):
			name, ok := strings.CutSuffix(line[1:], "]")
			if !ok || name == "" || name != strings.ToLower(name) || strings.ContainsAny(name, " []/") {
				problems = append(problems, where+": malformed table header "+line)
				table = ""
				continue
			}
			table = base + "/" + name
			if _, dup := tables[table]; dup {
				problems = append(problems, where+": table "+name+" opened twice")
			}
			tables[table] = []string{}
			seen = map[string]bool{}
		case table == "":
			problems = append(problems, where+": entry "+line+" before any [table]")
		case strings.ContainsAny(line, "[]\t") || line != strings.ToLower(line) && base != "cue-patterns":
			// Words are matched in lower case; a pattern's capital says
			// the word must be written with one ("Will", a name).
			problems = append(problems, where+": malformed entry "+line)
		case seen[line]:
			problems = append(problems, where+": duplicate entry "+line)
		default:
			seen[line] = true
			tables[table] = append(tables[table], line)
		}
	}
	return tables, problems
}

// wordList returns table of lexicons/file.txt, recording its use; a
// missing table is a problem and an empty list.
func wordList(file, table string) []string {
	key := file + "/" + table
	markLexiconUsed(key)
	words, ok := lexiconTables[key]
	if !ok {
		lexiconProblems = append(lexiconProblems, "lexicons/"+file+".txt: no table ["+table+"]")
	}
	return words
}

// wordSet returns table of lexicons/file.txt as a set.
func wordSet(file, table string) map[string]bool {
	return set(wordList(file, table)...)
}

// wordPairs returns table of lexicons/file.txt, "key: value" a line, as
// a map.
func wordPairs(file, table string) map[string]string {
	m := map[string]string{}
	for _, line := range wordList(file, table) {
		k, v, _ := strings.Cut(line, ": ")
		m[k] = v
	}
	return m
}

// phraseList returns table of lexicons/file.txt in file order, each
// entry split into its words.
func phraseList(file, table string) [][]string {
	var out [][]string
	for _, p := range wordList(file, table) {
		out = append(out, strings.Fields(p))
	}
	return out
}

// wordGroups returns every table of lexicons/file.txt by table name: the
// groups of a categorised lexicon.
func wordGroups(file string) map[string][]string {
	groups := map[string][]string{}
	prefix := file + "/"
	for key, words := range lexiconTables {
		if name, ok := strings.CutPrefix(key, prefix); ok {
			markLexiconUsed(key)
			groups[name] = words
		}
	}
	if len(groups) == 0 {
		lexiconProblems = append(lexiconProblems, "lexicons/"+file+".txt: no tables")
	}
	return groups
}

// categoryMembers lists each category's names, sorted: the inverse of
// lexicon, built once.
var categoryMembers = invertLexicon(lexicon)

func invertLexicon(lex map[string]string) map[string][]string {
	out := map[string][]string{}
	for name, cat := range lex {
		out[cat] = append(out[cat], name)
	}
	for _, names := range out {
		sort.Strings(names)
	}
	return out
}

// Category returns the lexicon category of a name listed in
// lexicons/categories.txt ("kate" → "editor", "Fly.io" → "hosting") and
// whether the lexicon lists it. The whole phrase must be a listed name
// (case and surrounding space do not matter); unlike CategoryOf it does
// not read versions or a known first word, so it suits a caller that
// asks what a word of a query names. A name listed under two categories
// (ambiguousNames) reports its tool category.
func Category(phrase string) (string, bool) {
	c, ok := lexicon[strings.ToLower(strings.TrimSpace(phrase))]
	return c, ok
}

// CategoryMembers returns the names the lexicon lists under a category,
// sorted, as a new slice the caller may keep. The category may be any
// phrase CanonicalCategory knows ("text editor", "editors"); an unknown
// category has no members.
func CategoryMembers(category string) []string {
	return slices.Clone(categoryMembers[CanonicalCategory(category)])
}
