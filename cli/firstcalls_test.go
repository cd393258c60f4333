package cli

import (
	"encoding/json"
	"path/filepath"
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
