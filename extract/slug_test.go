package extract

import (
	"slices"
	"strings"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

func TestSlug(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"Neovim":                  "neovim",
		"Visual Studio Code":      "visual_studio_code",
		"force-push to main":      "force_push_to_main",
		"  Hello,   World!  ":     "hello_world",
		"C++":                     "cpp",
		"C#":                      "csharp",
		"F#":                      "fsharp",
		".NET":                    "dotnet",
		"node.js":                 "node_js",
		"the Beatles":             "beatles",
		"my favorite":             "favorite",
		"O'Brien":                 "obrien",
		"Zürich":                  "zürich",
		"café":                    "café",
		"Postgres 16":             "postgres_16",
		"":                        "",
		"!!!":                     "",
		"the":                     "the",
		strings.Repeat("ab ", 40): "ab_ab_ab_ab_ab_ab_ab_ab_ab_ab_ab_ab_ab_ab_ab_ab",
	}
	for in, want := range cases {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
		if got := Slug(in); got != "" && !ValidKey(got) {
			t.Errorf("Slug(%q) = %q is not a valid key", in, got)
		}
	}
}

func TestCategories(t *testing.T) {
	t.Parallel()
	known := map[string]string{
		"vim": "editor", "Neovim": "editor", "VS Code": "editor", "helix": "editor",
		"Go": "programming_language", "TypeScript": "programming_language", "C++": "programming_language",
		"pnpm": "package_manager", "npm": "package_manager", "yarn": "package_manager", "bun": "package_manager",
		"Postgres": "database", "PostgreSQL 16": "database", "sqlite": "database", "MongoDB": "database",
		"zsh": "shell", "fish": "shell", "macOS": "os", "Windows": "os", "Linux": "os",
		"Firefox": "browser", "Chrome": "browser", "React": "framework", "svelte": "framework",
		"AWS": "cloud", "gcp": "cloud", "Azure": "cloud", "coffee": "drink", "tea": "drink",
		"the Neovim": "editor", "Neovim nightly": "editor",
	}
	for in, want := range known {
		if got, ok := CategoryOf(in); !ok || got != want {
			t.Errorf("CategoryOf(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "a standing desk", "go with", "make sure", "Acme"} {
		if got, ok := CategoryOf(in); ok {
			t.Errorf("CategoryOf(%q) = %q, want unknown", in, got)
		}
	}
	synonyms := map[string]string{
		"editor": "editor", "text editor": "editor", "IDE": "editor", "code editor": "editor",
		"language": "programming_language", "programming language": "programming_language",
		"coding language": "programming_language", "favorite coding language": "programming_language",
		"package manager": "package_manager", "package management": "package_manager",
		"caching": "cache", "the cache": "cache", "testing": "test_framework", "operating system": "os",
		"colour": "color", "film": "movie", "ice cream flavor": "ice_cream_flavor", "editors": "editor",
	}
	for in, want := range synonyms {
		if got := CanonicalCategory(in); got != want {
			t.Errorf("CanonicalCategory(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValidKey(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"lives_in", "prefers:editor", "uses:programming_language:backend", "likes:zürich", "goal:learn_rust", "a", "x1:y2"} {
		if !ValidKey(k) {
			t.Errorf("ValidKey(%q) = false", k)
		}
	}
	for _, k := range []string{"", ":", "prefers:", ":editor", "Prefers:editor", "prefers::editor", "likes:_x", "likes:x_", "likes:a__b", "has space", "dash-key", "key.dot", strings.Repeat("a", 201)} {
		if ValidKey(k) {
			t.Errorf("ValidKey(%q) = true", k)
		}
	}
}

func TestCandidateValidate(t *testing.T) {
	t.Parallel()
	content := "I prefer Vim."
	good := Candidate{Type: memory.TypePreference, Subject: "user", Key: "prefers:editor", Value: "Vim",
		Content: "The user's preferred editor is Vim.", Confidence: 0.9, Criticality: memory.CriticalityNormal, Start: 0, End: len(content)}
	if err := good.Validate(content); err != nil {
		t.Fatalf("valid candidate rejected: %v", err)
	}
	bad := map[string]func(*Candidate){
		"unknown type":          func(c *Candidate) { c.Type = "opinion" },
		"episodic type":         func(c *Candidate) { c.Type = memory.TypeEvent },
		"uppercase subject":     func(c *Candidate) { c.Subject = "User" },
		"empty subject":         func(c *Candidate) { c.Subject = "" },
		"bad key":               func(c *Candidate) { c.Key = "prefers editor" },
		"empty value":           func(c *Candidate) { c.Value = " " },
		"untrimmed value":       func(c *Candidate) { c.Value = " Vim" },
		"empty content":         func(c *Candidate) { c.Content = "" },
		"confidence above one":  func(c *Candidate) { c.Confidence = 1.2 },
		"negative confidence":   func(c *Candidate) { c.Confidence = -0.1 },
		"hedged but confident":  func(c *Candidate) { c.Hedged = true },
		"unknown cue":           func(c *Candidate) { c.Cue = "maybe" },
		"unknown criticality":   func(c *Candidate) { c.Criticality = "urgent" },
		"span past the end":     func(c *Candidate) { c.End = len(content) + 1 },
		"span reversed":         func(c *Candidate) { c.Start, c.End = 5, 2 },
		"span before the start": func(c *Candidate) { c.Start = -1 },
	}
	for name, mutate := range bad {
		c := good
		mutate(&c)
		if err := c.Validate(content); err == nil {
			t.Errorf("%s: Validate accepted %s", name, c)
		}
	}
}

func TestSlotAliases(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		"prefers:drink":                "beverage",
		"prefers:programming_language": "coding",
		"prefers:music":                "genre",
		"works_at":                     "employer",
		"lives_in":                     "city",
		"uses:ci":                      "pipeline",
		"uses:database:cache":          "db",
	} {
		if got := SlotAliases(key); !slices.Contains(got, want) {
			t.Errorf("SlotAliases(%q) = %v, lacks %q", key, got, want)
		}
	}
	if got := SlotAliases("likes:jazz"); got != nil {
		t.Errorf("SlotAliases(likes:jazz) = %v, want none", got)
	}
}
