package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemon-dev/mnemon/memory"
)

// mcpStructured calls a tool and decodes its structured output into out;
// it returns the text and whether the call failed.
func mcpStructured(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any, out any) (string, bool) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if out != nil && !res.IsError {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: structured output %s: %v", tool, raw, err)
		}
	}
	return b.String(), res.IsError
}

// TestE2EFirstRetrievalOnEmptyNamespace plays an agent's very first calls,
// before anything was stored: the retrieval succeeds with no items and a
// hint, over the API and over MCP, and leaves nothing behind (no trace, no
// namespace), so feedback has nothing to name.
func TestE2EFirstRetrievalOnEmptyNamespace(t *testing.T) {
	f := e2eOpen(t, e2eOptions{requireKeys: true, mcp: true})
	writer, _ := f.e2eKey(t, "fresh", memory.RoleWriter)
	auth := []string{"Authorization", "Bearer " + writer}
	ctx := context.Background()

	before := f.e2eState(t, "fresh")
	var res struct {
		RetrievalID *string           `json:"retrieval_id"`
		Context     string            `json:"context"`
		TokensUsed  int               `json:"tokens_used"`
		Items       []json.RawMessage `json:"items"`
		Hint        string            `json:"hint"`
	}
	r := f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": "which editor does the user prefer?"}, auth...)
	e2eJSON(t, r, http.StatusOK, &res)
	if res.RetrievalID == nil || *res.RetrievalID != "" || res.Items == nil || len(res.Items) != 0 || res.Context != "" || res.TokensUsed != 0 {
		t.Errorf("first retrieval: %s", r.body)
	}
	if want := `namespace "fresh" holds nothing yet; capture or remember first`; res.Hint != want {
		t.Errorf("hint %q, want %q", res.Hint, want)
	}

	// Bad input is still refused on an empty namespace.
	e2eProblem(t, f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": " "}, auth...), http.StatusBadRequest, "invalid_request")

	// MCP's recall answers the same way.
	s, err := mcpConnect(t, f, writer)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		RetrievalID string            `json:"retrieval_id"`
		Items       []json.RawMessage `json:"items"`
		Hint        string            `json:"hint"`
	}
	text, isErr := mcpStructured(t, s, "recall", map[string]any{"query": "which editor does the user prefer?"}, &rec)
	if isErr || rec.RetrievalID != "" || len(rec.Items) != 0 || !strings.Contains(rec.Hint, "holds nothing yet") || !strings.Contains(text, "holds nothing yet") {
		t.Errorf("MCP recall on an empty namespace: %v %q %+v", isErr, text, rec)
	}
	// The empty retrieval id names nothing to rate, and says so.
	if text, isErr := mcpCall(t, s, "feedback", map[string]any{"retrieval_id": "", "outcome": "helpful"}); !isErr || !strings.Contains(text, "retrieval id is empty") || !strings.Contains(text, "held nothing") {
		t.Errorf("feedback on an empty retrieval id: %v %q", isErr, text)
	}

	// Reads on nothing leave nothing: no trace, and the namespace still
	// does not exist.
	for _, path := range []string{"/v1/memories", "/v1/graph/neighborhood?entity=user", "/v1/procedures"} {
		e2eProblem(t, f.e2eDo(t, "GET", path, nil, auth...), http.StatusNotFound, "namespace_not_found")
	}
	if after := f.e2eState(t, "fresh"); after != before {
		t.Errorf("reads of an empty namespace wrote:\n%s\n%s", before, after)
	}
	nss, err := f.store.Namespaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(nss, "fresh") {
		t.Errorf("the empty namespace exists after reads: %v", nss)
	}
	if sizes := f.eng.IndexSizes(); len(sizes) != 0 {
		t.Errorf("reads built indexes: %v", sizes)
	}

	// Once something is stored, retrievals are traced as before, without
	// a hint.
	f.e2eRemember(t, map[string]any{"text": "My favorite editor is Vim."}, auth...)
	res.Hint, res.RetrievalID = "", nil
	r = f.e2eDo(t, "POST", "/v1/memories/retrieve", map[string]any{"query": "which editor does the user prefer?"}, auth...)
	e2eJSON(t, r, http.StatusOK, &res)
	if res.RetrievalID == nil || !strings.HasPrefix(*res.RetrievalID, "ret_") || res.Hint != "" || len(res.Items) == 0 {
		t.Fatalf("retrieval once something is stored: %s", r.body)
	}
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/retrievals/"+*res.RetrievalID, nil, auth...), http.StatusOK, nil)
}

// TestE2EGetMemoryTakesEveryIDForm: GET /v1/memories/{id} takes the id
// forms `mnemon show` takes: mem_…, mem_…@vN, ver_… and ep_….
func TestE2EGetMemoryTakesEveryIDForm(t *testing.T) {
	f := e2eOpen(t, e2eOptions{})
	first := f.e2eRemember(t, map[string]any{"text": "My favorite editor is Vim."})
	second := f.e2eRemember(t, map[string]any{"text": "Actually, I switched to Neovim for my editor."})
	if second.MemoryID != first.MemoryID || second.Operation != "SUPERSEDE" {
		t.Fatalf("remember: %+v then %+v", first, second)
	}
	mem := first.MemoryID

	type view struct {
		Memory *struct {
			ID string `json:"id"`
		} `json:"memory"`
		Versions []struct {
			ID  string `json:"id"`
			Seq int    `json:"seq"`
		} `json:"versions"`
		Admissions []struct {
			EpisodeID string `json:"episode_id"`
			Decision  string `json:"decision"`
		} `json:"admissions"`
		Episodes []struct {
			ID string `json:"id"`
		} `json:"episodes"`
		Episode *struct {
			ID      string `json:"id"`
			Content string `json:"content"`
		} `json:"episode"`
	}
	for _, id := range []string{mem, mem + "@v1", mem + "@v2", first.Version.ID, second.Version.ID, url.PathEscape(mem + "@v2")} {
		var v view
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories/"+id, nil), http.StatusOK, &v)
		if v.Memory == nil || v.Memory.ID != mem || len(v.Versions) != 2 || v.Episode != nil {
			t.Errorf("GET %s: %+v", id, v)
		}
	}

	var ep view
	r := f.e2eDo(t, "GET", "/v1/memories/"+first.EpisodeID, nil)
	e2eJSON(t, r, http.StatusOK, &ep)
	if ep.Memory != nil || ep.Episode == nil || ep.Episode.ID != first.EpisodeID || ep.Episode.Content != "My favorite editor is Vim." ||
		len(ep.Admissions) == 0 || len(ep.Episodes) != 1 || ep.Versions == nil || len(ep.Versions) != 0 {
		t.Errorf("GET %s: %s", first.EpisodeID, r.body)
	}
	for _, a := range ep.Admissions {
		if a.EpisodeID != first.EpisodeID {
			t.Errorf("GET %s lists another episode's decision: %+v", first.EpisodeID, a)
		}
	}

	for _, id := range []string{mem + "@v3", first.Version.ID + "@v1", "ep_01m8pm6z2vq745xbdbg0z0xc6n"} {
		e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories/"+url.PathEscape(id), nil), http.StatusNotFound, "not_found")
	}
	// Another namespace sees none of them.
	for _, id := range []string{mem + "@v2", first.EpisodeID} {
		e2eProblem(t, f.e2eDo(t, "GET", "/v1/memories/"+id, nil, "X-Mnemon-Namespace", "other"), http.StatusNotFound, "not_found")
	}
}

// TestE2EZeroLimitsTakeTheDefault: limit and token_budget 0 mean the
// default, exactly as leaving them out does, over the API and MCP alike;
// a negative one is refused with the rule in the message.
func TestE2EZeroLimitsTakeTheDefault(t *testing.T) {
	f := e2eOpen(t, e2eOptions{mcp: true})
	for i := range 14 {
		f.e2eRemember(t, map[string]any{"text": "Service s" + strconv.Itoa(i) + " listens on port " + strconv.Itoa(8000+i) + "."})
	}
	const query = "which port does the service listen on?"
	retrieve := func(body map[string]any) []string {
		t.Helper()
		body["query"] = query
		var res e2eRetrieveResp
		e2eJSON(t, f.e2eDo(t, "POST", "/v1/memories/retrieve", body), http.StatusOK, &res)
		ids := make([]string, len(res.Items))
		for i, it := range res.Items {
			ids[i] = it.VersionID
		}
		return ids
	}
	absent := retrieve(map[string]any{})
	if len(absent) != 10 {
		t.Fatalf("default retrieval packed %d items, want the default limit 10", len(absent))
	}
	for _, body := range []map[string]any{{"limit": 0}, {"token_budget": 0}, {"limit": 0, "token_budget": 0}, {"limit": 10, "token_budget": 1000}} {
		if got := retrieve(body); !slices.Equal(got, absent) {
			t.Errorf("%v packed %v, want what the defaults pack %v", body, got, absent)
		}
	}
	if got := retrieve(map[string]any{"limit": 3}); len(got) != 3 {
		t.Errorf("limit 3 packed %d items", len(got))
	}
	for _, body := range []map[string]any{{"query": query, "limit": -1}, {"query": query, "token_budget": -1}} {
		p := e2eProblem(t, f.e2eDo(t, "POST", "/v1/memories/retrieve", body), http.StatusBadRequest, "invalid_request")
		if !strings.Contains(p.Detail, "or 0 for the default") {
			t.Errorf("%v: %q does not state the rule", body, p.Detail)
		}
	}

	// Listing and the graph take limit=0 the same way.
	list := func(q string) int {
		t.Helper()
		var l struct {
			Memories []json.RawMessage `json:"memories"`
		}
		e2eJSON(t, f.e2eDo(t, "GET", "/v1/memories"+q, nil), http.StatusOK, &l)
		return len(l.Memories)
	}
	if n, zero := list(""), list("?limit=0"); n != 14 || zero != n {
		t.Errorf("list: %d memories by default, %d with limit=0; want 14 both", n, zero)
	}
	e2eJSON(t, f.e2eDo(t, "GET", "/v1/graph/neighborhood?entity=user&limit=0", nil), http.StatusOK, nil)
	for _, path := range []string{"/v1/memories?limit=-1", "/v1/graph/neighborhood?entity=user&limit=-1"} {
		p := e2eProblem(t, f.e2eDo(t, "GET", path, nil), http.StatusBadRequest, "invalid_request")
		if !strings.Contains(p.Detail, "or 0 for the default") {
			t.Errorf("%s: %q does not state the rule", path, p.Detail)
		}
	}

	// MCP's recall and list_facts follow the same rule.
	s, err := mcpConnect(t, f, "")
	if err != nil {
		t.Fatal(err)
	}
	recall := func(args map[string]any) []string {
		t.Helper()
		args["query"] = query
		var out struct {
			Items []struct {
				VersionID string `json:"version_id"`
			} `json:"items"`
		}
		if text, isErr := mcpStructured(t, s, "recall", args, &out); isErr {
			t.Fatalf("recall %v: %s", args, text)
		}
		ids := make([]string, len(out.Items))
		for i, it := range out.Items {
			ids[i] = it.VersionID
		}
		return ids
	}
	for _, args := range []map[string]any{{}, {"limit": 0, "token_budget": 0}} {
		if got := recall(args); !slices.Equal(got, absent) {
			t.Errorf("MCP recall %v returned %v, want the API's default %v", args, got, absent)
		}
	}
	for _, args := range []map[string]any{{"query": query, "limit": -1}, {"query": query, "token_budget": -1}, {"limit": -1}} {
		tool := "recall"
		if _, ok := args["query"]; !ok {
			tool = "list_facts"
		}
		if text, isErr := mcpCall(t, s, tool, args); !isErr || !strings.Contains(text, "or 0 for the default") {
			t.Errorf("MCP %s %v: %v %q", tool, args, isErr, text)
		}
	}
	var facts struct {
		Facts []json.RawMessage `json:"facts"`
	}
	if text, isErr := mcpStructured(t, s, "list_facts", map[string]any{"limit": 0}, &facts); isErr || len(facts.Facts) != 14 {
		t.Errorf("MCP list_facts limit 0: %v %d facts %q", isErr, len(facts.Facts), text)
	}
}

// TestE2EMCPListFactsAboutAnUnknownSubject: list_facts about a subject
// with no facts says so and names the subjects there are facts about,
// instead of claiming nothing is stored.
func TestE2EMCPListFactsAboutAnUnknownSubject(t *testing.T) {
	f := e2eOpen(t, e2eOptions{mcp: true})
	s, err := mcpConnect(t, f, "")
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr := mcpCall(t, s, "list_facts", map[string]any{"subject": "bob"}); isErr || text != `no facts about "bob": no facts stored yet` {
		t.Errorf("list_facts on an empty namespace: %v %q", isErr, text)
	}
	if text, isErr := mcpCall(t, s, "list_facts", map[string]any{}); isErr || text != "no facts stored yet" {
		t.Errorf("list_facts on an empty namespace: %v %q", isErr, text)
	}
	f.e2eRemember(t, map[string]any{"text": "I live in Lisbon."})
	f.e2eRemember(t, map[string]any{"text": "Atlas uses pnpm."})

	var out struct {
		Facts []json.RawMessage `json:"facts"`
	}
	text, isErr := mcpStructured(t, s, "list_facts", map[string]any{"subject": "bob"}, &out)
	if want := `no facts about "bob"; there are facts about: atlas, user`; isErr || text != want || len(out.Facts) != 0 {
		t.Errorf("list_facts about bob: %v %q, want %q", isErr, text, want)
	}
	// Subjects are matched as stored, whatever the case asked.
	if text, isErr := mcpStructured(t, s, "list_facts", map[string]any{"subject": " User "}, &out); isErr || len(out.Facts) != 1 || !strings.Contains(text, "Lisbon") {
		t.Errorf("list_facts about User: %v %q", isErr, text)
	}
}

// TestE2ERememberTextWithoutAFact: a statement no rule reads is kept as a
// note, and text that states nothing to keep ("Round 1 worker 2 says
// zeta", reported speech) is kept as said, an episode recall finds; the API
// and MCP say so (accepted, not rejected), as the help promises.
func TestE2ERememberTextWithoutAFact(t *testing.T) {
	f := e2eOpen(t, e2eOptions{mcp: true})
	const said = "Round 1 worker 2 says zeta"

	r := f.e2eRemember(t, map[string]any{"text": said})
	if r.Decision != "accept" || r.Operation != "" || !strings.HasPrefix(r.MemoryID, "mem_") || r.Version == nil ||
		r.Version.Kind != memory.KindEpisodic || r.Version.Content != said || !slices.Contains(r.Reasons, "not_a_statement:reported") ||
		len(r.Outcomes) != 1 || r.Outcomes[0].MemoryID != r.MemoryID {
		t.Errorf("remember %q: %+v", said, r)
	}
	res := f.e2eRetrieve(t, "what does worker 2 say?")
	if len(res.Items) == 0 || res.Items[0].MemoryID != r.MemoryID {
		t.Errorf("recall after remember %q: %v", said, e2eContents(res.Items))
	}

	note := f.e2eRemember(t, map[string]any{"text": "Initech rocks."})
	if note.Decision != "accept" || note.Operation != "ADD" || note.Version == nil || !strings.HasPrefix(note.Version.Key, "note:") {
		t.Errorf("remember a statement no rule reads: %+v", note)
	}

	s, err := mcpConnect(t, f, "")
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Outcomes []struct {
			Decision  string `json:"decision"`
			Operation string `json:"operation"`
			MemoryID  string `json:"memory_id"`
		} `json:"outcomes"`
	}
	text, isErr := mcpStructured(t, s, "remember", map[string]any{"text": "Round 2 worker 3 says omega"}, &out)
	if isErr || !strings.Contains(text, "kept as said") || len(out.Outcomes) != 1 || out.Outcomes[0].Decision != "accept" ||
		out.Outcomes[0].Operation != "" || !strings.HasPrefix(out.Outcomes[0].MemoryID, "mem_") {
		t.Errorf("MCP remember: %v %q %+v", isErr, text, out)
	}
	if text, isErr := mcpCall(t, s, "recall", map[string]any{"query": "what does worker 3 say?"}); isErr || !strings.Contains(text, "omega") {
		t.Errorf("MCP recall: %v %q", isErr, text)
	}
}
