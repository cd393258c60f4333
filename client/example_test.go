package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/mnemon-dev/mnemon/client"
)

// A memory remembered, then retrieved for a task with the reason it was
// packed.
func Example() {
	ctx := context.Background()
	c, err := client.New(serverURL, client.Options{Namespace: fresh("example-basics")})
	if err != nil {
		log.Fatal(err)
	}
	rem, err := c.Remember(ctx, client.RememberRequest{Text: "Atlas uses pnpm", ProjectID: "atlas"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rem.Decision, rem.Operation, rem.Version.Content)

	res, err := c.Retrieve(ctx, client.RetrieveRequest{Query: "which package manager does Atlas use?", ProjectID: "atlas"})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range res.Items {
		fmt.Println(it.Action, it.Kind, it.Content)
	}
	fmt.Println(strings.Contains(res.Context, "Atlas uses pnpm"))
	// Output:
	// accept ADD Atlas uses pnpm as its package manager.
	// HINT semantic Atlas uses pnpm as its package manager.
	// HINT episodic Atlas uses pnpm
	// true
}

// Problems come back as *client.Error; errors.Is matches their stable code.
func ExampleError() {
	ctx := context.Background()
	c, err := client.New(serverURL, client.Options{Namespace: fresh("example-errors")})
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.ListMemories(ctx, client.ListOptions{})
	fmt.Println(errors.Is(err, client.ErrNamespaceNotFound))

	_, err = c.Remember(ctx, client.RememberRequest{Text: "I prefer vim", ObservedAt: mustTime("2999-01-01T00:00:00Z")})
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, e.Code)
	}
	// Output:
	// true
	// 400 invalid_timestamp
}

// A capture stores raw events; with Wait the answer comes once extraction
// has run, and the memories it distilled can be listed.
func ExampleClient_Capture() {
	ctx := context.Background()
	c, err := client.New(serverURL, client.Options{Namespace: fresh("example-capture")})
	if err != nil {
		log.Fatal(err)
	}
	res, err := c.Capture(ctx, client.CaptureRequest{
		SessionID: "s1", Wait: true,
		Events: []client.Event{
			{Kind: client.KindUserMessage, Content: "I prefer dark mode in every editor."},
			{Kind: client.KindAgentMessage, Content: "Noted.", Speaker: "agent"},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(res.EpisodeIDs), res.JobState)

	list, err := c.ListMemories(ctx, client.ListOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range list.Memories {
		fmt.Println(v.Type, v.Subject, v.Key, v.Value)
	}
	// Output:
	// 2 succeeded
	// preference user prefers:theme dark mode
}

// An agent gains memory with two calls around its task.
func ExampleAgent() {
	ctx := context.Background()
	c, err := client.New(serverURL, client.Options{Namespace: fresh("example-agent")})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.Remember(ctx, client.RememberRequest{Text: "Atlas uses pnpm"}); err != nil {
		log.Fatal(err)
	}
	agent := &client.Agent{Client: c, Scope: client.Scope{AgentID: "coder"}}

	pack, err := agent.PreTask(ctx, "Add a dependency to Atlas")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Contains(pack.Context, "pnpm"), strings.HasPrefix(pack.RetrievalID, "ret_"))

	// ... the agent runs with pack.Context before its prompt ...

	done, err := agent.PostTask(ctx, client.TaskResult{Output: "Ran pnpm add zod in Atlas.", Succeeded: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(done.Capture.EpisodeIDs), done.RetrievalID == pack.RetrievalID)
	// Output:
	// true true
	// 2 true
}
