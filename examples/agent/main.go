// Command agent shows how an existing agent gains memory with two calls:
// PreTask before its task (what memory knows, packed for the prompt) and
// PostTask after it (what happened, captured so mnemon can learn).
//
// Start a server, then run the example twice and watch the second run
// know what the first one learned:
//
//	mnemon serve &
//	go run ./examples/agent "Add a test runner to Atlas"
//	go run ./examples/agent "Which package manager should I use for Atlas?"
//
// Flags: -url (default $MNEMON_URL or http://127.0.0.1:7077), -namespace
// (default $MNEMON_NAMESPACE or example-agent);
// $MNEMON_API_KEY is sent when set.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/client"
)

func main() {
	url := flag.String("url", envOr("MNEMON_URL", "http://127.0.0.1:7077"), "mnemon server")
	ns := flag.String("namespace", envOr("MNEMON_NAMESPACE", "example-agent"), "namespace (open server; an API key carries its own)")
	flag.Parse()
	prompt := strings.Join(flag.Args(), " ")
	if prompt == "" {
		prompt = "Add a test runner to Atlas"
	}
	if err := run(*url, *ns, prompt); err != nil {
		log.Fatal(err)
	}
}

func run(url, ns, prompt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.New(url, client.Options{APIKey: os.Getenv("MNEMON_API_KEY"), Namespace: ns})
	if err != nil {
		return err
	}
	agent := &client.Agent{Client: c, Scope: client.Scope{AgentID: "example", ProjectID: "atlas"}, TokenBudget: 400}

	// 1. Before the task: what memory knows about it.
	pack, err := agent.PreTask(ctx, prompt)
	if err != nil {
		return err
	}
	fmt.Printf("memory (%d items, retrieval %q):\n%s\n", len(pack.Items), pack.RetrievalID, orNone(pack.Context))

	// The agent's own work, with the packed memory before its prompt.
	output, ok := runAgent(pack.Context, prompt)
	// Tool calls and messages along the way can join the session log.
	if err := agent.Record(client.Event{Kind: client.KindToolCall, Content: "pnpm add -D vitest", Speaker: "agent"}); err != nil {
		return err
	}

	// 2. After the task: what happened, so memory can learn from it.
	done, err := agent.PostTask(ctx, client.TaskResult{Output: output, Succeeded: ok})
	if err != nil {
		return err
	}
	fmt.Printf("captured %d events in session %s (extraction job %s)\n", len(done.Capture.EpisodeIDs), done.SessionID, done.Capture.JobID)
	return nil
}

// runAgent stands in for a real agent (a model call, a tool loop).
func runAgent(memory, prompt string) (string, bool) {
	if strings.Contains(memory, "pnpm") {
		return "Atlas uses pnpm, so I ran pnpm add -D vitest for: " + prompt, true
	}
	return "Atlas uses pnpm. I ran pnpm add -D vitest for: " + prompt, true
}

func orNone(s string) string {
	if s == "" {
		return "(nothing yet)"
	}
	return s
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
