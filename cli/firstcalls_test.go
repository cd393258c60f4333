package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// namespaces lists the namespaces `stats --all` reports.
func namespaces(t *testing.T, db string) []string {
	t.Helper()
	var all struct {
		Namespaces []struct {
			Namespace string `json:"namespace"`
		} `json:"namespaces"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, db, "stats", "--all", "--json")), &all); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range all.Namespaces {
		out = append(out, s.Namespace)
	}
	return out
}

// TestReadsOfAnEmptyNamespaceLeaveNothing: recall (plain, --json and
// --explain) and every other read of a namespace that holds nothing say
// so, record no retrieval and do not make the namespace appear.
func TestReadsOfAnEmptyNamespaceLeaveNothing(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	mustRun(t, db, "remember", "I live in Lisbon.")

	out := mustRun(t, db, "--namespace", "bob", "recall", "where does the user live?")
	if !strings.HasPrefix(out, "nothing found: namespace bob is empty") || strings.Contains(out, "retrieval ") {
		t.Errorf("recall on an empty namespace:\n%s", out)
	}
	if out := mustRun(t, db, "--namespace", "bob", "recall", "where?", "--explain"); strings.Contains(out, "ret_") {
		t.Errorf("recall --explain on an empty namespace:\n%s", out)
	}
	var res struct {
		RetrievalID    *string           `json:"retrieval_id"`
		Items          []json.RawMessage `json:"items"`
		NamespaceEmpty bool              `json:"namespace_empty"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, db, "--namespace", "bob", "recall", "where?", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.RetrievalID == nil || *res.RetrievalID != "" || res.Items == nil || len(res.Items) != 0 || !res.NamespaceEmpty {
		t.Errorf("recall --json on an empty namespace: %+v", res)
	}
	mustRun(t, db, "--namespace", "bob", "recall", "where?", "--json", "--explain")
	for _, read := range [][]string{{"facts"}, {"facts", "--subject", "user"}, {"graph", "user"}, {"stats"}, {"stats", "--json"}, {"procedures"}} {
		mustRun(t, db, append([]string{"--namespace", "bob"}, read...)...)
	}
	code, _, errs := runCLI(t, db, "", "--namespace", "bob", "explain", "ret_01m8pm6z2vq745xbdbg0z0xc6n")
	oneLine(t, code, errs, 1, "no retrieval ret_01m8pm6z2vq745xbdbg0z0xc6n in namespace bob")

	if got := namespaces(t, db); len(got) != 1 || got[0] != "default" {
		t.Errorf("stats --all lists %v after reads of bob, want only default", got)
	}

	// The namespace that holds something still traces its retrievals.
	out = mustRun(t, db, "recall", "where does the user live?")
	if !strings.Contains(out, "Lisbon") || !strings.Contains(out, "retrieval ret_") {
		t.Errorf("recall in default:\n%s", out)
	}
}

// TestZeroLimitsTakeTheDefault: -k 0 and --budget 0 mean the default, as
// limit and token_budget 0 do over the API and MCP.
func TestZeroLimitsTakeTheDefault(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	for i := range 12 {
		mustRun(t, db, "remember", fmt.Sprintf("Service s%d listens on port %d.", i, 8000+i))
	}
	recall := func(args ...string) ([]string, int) {
		t.Helper()
		var res struct {
			TokenBudget int `json:"token_budget"`
			Items       []struct {
				VersionID string `json:"version_id"`
			} `json:"items"`
		}
		out := mustRun(t, db, append([]string{"recall", "which port does the service listen on?", "--json"}, args...)...)
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, it := range res.Items {
			ids = append(ids, it.VersionID)
		}
		return ids, res.TokenBudget
	}
	def, budget := recall()
	if len(def) != 10 || budget != 1000 {
		t.Fatalf("default recall: %d items, budget %d", len(def), budget)
	}
	for _, args := range [][]string{{"-k", "0"}, {"--budget", "0"}, {"-k", "0", "--budget", "0"}} {
		if got, b := recall(args...); !slices.Equal(got, def) || b != budget {
			t.Errorf("recall %v: %v (budget %d), want the default %v (budget %d)", args, got, b, def, budget)
		}
	}
	if got, _ := recall("-k", "3"); len(got) != 3 {
		t.Errorf("-k 3 returned %d items", len(got))
	}
	mustRun(t, db, "graph", "user", "-k", "0")
	for _, tc := range []struct{ args []string }{
		{[]string{"recall", "x", "-k", "-1"}},
		{[]string{"recall", "x", "--budget", "-1"}},
		{[]string{"graph", "user", "-k", "-1"}},
	} {
		code, _, errs := runCLI(t, db, "", tc.args...)
		oneLine(t, code, errs, 2, "or 0 for the default")
	}
	code, out, _ := runCLI(t, db, "", "recall", "--help")
	if code != 0 || !strings.Contains(out, "1 to 100 (0: the default)") || !strings.Contains(out, "1 to 200000 (0: the default)") {
		t.Errorf("recall --help does not state the rule (exit %d):\n%s", code, out)
	}
}

// TestRememberTextWithoutAFact: what `remember` prints and stores agrees
// with its help: a statement no rule reads is kept as a note; text that
// states nothing to keep is kept as said, and recall finds it.
func TestRememberTextWithoutAFact(t *testing.T) {
	t.Parallel()
	db := migratedDB(t, filepath.Join(t.TempDir(), "m.db"))
	code, help, _ := runCLI(t, db, "", "remember", "--help")
	if code != 0 || !strings.Contains(help, "is kept\nas a note") || !strings.Contains(help, "kept only as said") {
		t.Errorf("remember --help:\n%s", help)
	}

	out := mustRun(t, db, "remember", "Round 1 worker 2 says zeta")
	if !strings.HasPrefix(out, "KEPT ") || !strings.Contains(out, "not_a_statement:reported") ||
		!strings.Contains(out, "no fact or note in it (it reports what someone else said); kept as said, recall finds it as an episode") {
		t.Errorf("remember reported speech:\n%s", out)
	}
	if out := mustRun(t, db, "recall", "what does worker 2 say?", "-k", "1"); !strings.Contains(out, "1. [") || !strings.Contains(out, "Round 1 worker 2 says zeta") {
		t.Errorf("recall after remember:\n%s", out)
	}
	var res struct {
		Outcomes []struct {
			Decision  string   `json:"decision"`
			Operation string   `json:"operation"`
			MemoryID  string   `json:"memory_id"`
			Reasons   []string `json:"reasons"`
		} `json:"outcomes"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, db, "remember", "What is my favorite editor?", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Outcomes) != 1 || res.Outcomes[0].Decision != "accept" || res.Outcomes[0].Operation != "" ||
		!slices.Contains(res.Outcomes[0].Reasons, "not_a_statement:question") || !strings.HasPrefix(res.Outcomes[0].MemoryID, "mem_") {
		t.Errorf("remember a question --json: %+v", res)
	}

	if out := mustRun(t, db, "remember", "Initech rocks."); !strings.HasPrefix(out, "ADD ") || !strings.Contains(out, "note:") {
		t.Errorf("remember a statement no rule reads:\n%s", out)
	}
	// None of it became a fact about the speaker but the note.
	if out := mustRun(t, db, "facts"); strings.Count(out, "\n") != 2 || !strings.Contains(out, "Initech rocks.") {
		t.Errorf("facts:\n%s", out)
	}
}
