package extract

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

// The word tables are data, parsed leniently at init so a bad line can
// never stop a program; this test is where a bad line fails.
func TestLexiconFilesAreWellFormed(t *testing.T) {
	for _, p := range lexiconProblems {
		t.Error(p)
	}
	var unused []string
	lexiconUsedMu.Lock()
	for key := range lexiconTables {
		if !lexiconUsed[key] {
			unused = append(unused, key)
		}
	}
	lexiconUsedMu.Unlock()
	sort.Strings(unused)
	for _, key := range unused {
		t.Errorf("lexicon table %s is read by no code", key)
	}
	if len(lexiconTables) == 0 {
		t.Fatal("no lexicon tables loaded")
	}
}

func TestParseLexiconReportsMalformedLines(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		tables     map[string][]string
		problem    string // a substring of the first problem, "" for none
	}{
		{"tables and comments", "# about\n[stops]\nbut\n  # indented comment\nno longer\n\n[other]\nc#\n",
			map[string][]string{"f/stops": {"but", "no longer"}, "f/other": {"c#"}}, ""},
		{"entry before a table", "but\n[stops]\nand\n", map[string][]string{"f/stops": {"and"}}, "before any [table]"},
		{"unclosed header", "[stops\nbut\n", map[string][]string{}, "malformed table header"},
		{"upper-case header", "[Stops]\n", map[string][]string{}, "malformed table header"},
		{"upper-case entry", "[stops]\nBut\nand\n", map[string][]string{"f/stops": {"and"}}, "malformed entry"},
		{"duplicate entry", "[stops]\nbut\nbut\n", map[string][]string{"f/stops": {"but"}}, "duplicate entry"},
		{"table opened twice", "[stops]\nbut\n[stops]\nand\n", map[string][]string{"f/stops": {"and"}}, "opened twice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tables, problems := parseLexicon("f", tc.text)
			if len(tables) != len(tc.tables) {
				t.Errorf("tables = %v, want %v", tables, tc.tables)
			}
			for k, want := range tc.tables {
				if !slices.Equal(tables[k], want) {
					t.Errorf("table %s = %q, want %q", k, tables[k], want)
				}
			}
			switch {
			case tc.problem == "" && len(problems) > 0:
				t.Errorf("unexpected problems %q", problems)
			case tc.problem != "" && (len(problems) == 0 || !strings.Contains(problems[0], tc.problem)):
				t.Errorf("problems = %q, want a first one with %q", problems, tc.problem)
			}
		})
	}
}

func TestCategoryReadsTheLexicon(t *testing.T) {
	t.Parallel()
	cases := []struct {
		phrase, want string
		ok           bool
	}{
		{"kate", "editor", true},
		{"  Kakoune ", "editor", true},
		{"fly.io", "hosting", true},
		{"black", "formatter", true}, // listed twice: the tool wins
		{"neovim nightly", "", false},
		{"postgres 16", "", false},
		{"somethingelse", "", false},
	}
	for _, tc := range cases {
		got, ok := Category(tc.phrase)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Category(%q) = %q, %v; want %q, %v", tc.phrase, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCategoryMembersAreTheInverseOfCategory(t *testing.T) {
	t.Parallel()
	editors := CategoryMembers("text editors")
	if !slices.Contains(editors, "kate") || !slices.Contains(editors, "neovim") || !slices.IsSorted(editors) {
		t.Errorf("CategoryMembers(text editors) = %q, want a sorted list with kate and neovim", editors)
	}
	editors[0] = "changed"
	if CategoryMembers("editor")[0] == "changed" {
		t.Error("CategoryMembers returned the package's own slice")
	}
	if got := CategoryMembers("no such category"); len(got) != 0 {
		t.Errorf("CategoryMembers(unknown) = %q, want none", got)
	}
	for _, cat := range []string{"editor", "database", "food", "music"} {
		for _, name := range CategoryMembers(cat) {
			if c, ok := Category(name); !ok || c != cat {
				t.Errorf("Category(%q) = %q, %v; it is listed under %s", name, c, ok, cat)
			}
		}
	}
}

// Every reader of verbReaders reads some lemma of [verb-readers], and
// every lemma named there is a verb the rules know.
func TestVerbReadersAreNamed(t *testing.T) {
	t.Parallel()
	named := map[string]bool{}
	for _, line := range lexiconTables["verbs/verb-readers"] {
		f := strings.Fields(line)
		named[f[0]] = true
		for _, lemma := range f[1:] {
			if v, ok := verbs[lemma]; !ok || v.lemma != lemma {
				t.Errorf("[verb-readers] %s: %q is no lemma of [inflections]", f[0], lemma)
			}
		}
	}
	for name := range verbReaders {
		if !named[name] {
			t.Errorf("verb reader %s reads no lemma of [verb-readers]", name)
		}
	}
}
