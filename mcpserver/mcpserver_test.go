package mcpserver_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/mcpserver"
	"github.com/mnemon-dev/mnemon/store/sqlite"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func newEngine(t *testing.T) *engine.Engine {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Config{Store: st})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := eng.Close(); err != nil {
			t.Error(err)
		}
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return eng
}

// connect serves s on an in-memory transport and returns a client session.
func connect(t *testing.T, ctx context.Context, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func TestNewRefuses(t *testing.T) {
	eng := newEngine(t)
	for name, cfg := range map[string]mcpserver.Config{
		"no engine":      {Namespace: "a"},
		"bad namespace":  {Engine: eng, Namespace: "no spaces"},
		"long namespace": {Engine: eng, Namespace: strings.Repeat("a", 65)},
	} {
		if _, err := mcpserver.New(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestDefaultNamespace checks that a server started without a namespace
// acts in "default", as the CLI and the API do, and that its answers are
// valid against the tools' output schemas (the SDK checks them) for every
// field a version can carry.
func TestDefaultNamespace(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	eng := newEngine(t)
	to := time.Now().Add(24 * time.Hour)
	if _, err := eng.Remember(ctx, engine.RememberParams{Namespace: "default", Text: "The sprint ends Friday",
		Subject: "sprint", Key: "ends", Value: "Friday", ValidTo: &to}); err != nil {
		t.Fatal(err)
	}
	s, err := mcpserver.New(mcpserver.Config{Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, ctx, s)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_facts", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("list_facts: %+v, %v", res, err)
	}
	var out mcpserver.FactsOutput
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Facts) != 1 || out.Facts[0].Value != "Friday" || out.Facts[0].ValidTo == "" {
		t.Fatalf("facts: %s", data)
	}
	hist, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "history", Arguments: map[string]any{"id": out.Facts[0].VersionID}})
	if err != nil || hist.IsError {
		t.Fatalf("history by version id: %+v, %v", hist, err)
	}
	// recall serves the fact, its context as the readable text.
	rec, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"query": "when does the sprint end?"}})
	if err != nil || rec.IsError || !strings.Contains(rec.Content[0].(*mcp.TextContent).Text, "Friday") {
		t.Fatalf("recall: %+v, %v", rec, err)
	}
}
