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
	db := filepath.Join(t.TempDir(), "m.db")
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
	db := filepath.Join(t.TempDir(), "m.db")
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
