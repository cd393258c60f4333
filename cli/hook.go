package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/client"
	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/agenthook"
	"github.com/mnemon-dev/mnemon/memory"
)

// hookBudget is the packed context's default size for a hook, in tokens:
// small, since it is added to every prompt.
const hookBudget = 800

func hookCmd() *command {
	var agent, url string
	var budget int
	var timeout time.Duration
	return &command{
		name: "hook", args: "EVENT", summary: "a coding agent's lifecycle hook: inject memory for the prompt, capture the turn",
		help: `Run by a coding agent (Claude Code, Codex CLI, Gemini CLI) as a lifecycle hook; 'mnemon
setup TARGET' installs it. EVENT is one of:
  session-start   print the packed memory for the project the session starts in
  user-prompt     print the packed memory for the prompt the user just sent
  stop            capture the turn's user prompt and assistant answer as episodes
                  of the agent's session (read from the hook input, else the transcript)
The agent's hook JSON comes on stdin (session_id, prompt, transcript_path...). Context
is printed as {"hookSpecificOutput":{"hookEventName":...,"additionalContext":...}}, the
form all three agents read. A hook never blocks the agent: past --timeout (default 5s for
session-start and user-prompt, 10s for stop), or on any failure, it prints nothing and exits
0; every run is logged to $XDG_STATE_HOME/mnemon/hook.log (default ~/.local/state/mnemon).
With --url (or MNEMON_URL) it talks to a mnemon server instead of opening the database
(API key from MNEMON_API_KEY).
  echo '{"session_id":"s1","prompt":"how do we deploy?"}' | mnemon hook user-prompt --agent claude-code`,
		noStore: true,
		flags: func(fs *flag.FlagSet, _ *options) {
			fs.StringVar(&agent, "agent", "claude-code", "the agent running the hook: "+strings.Join(agenthook.Agents, ", "))
			fs.StringVar(&url, "url", "", "a mnemon server's `URL` to use instead of the database (env MNEMON_URL)")
			fs.IntVar(&budget, "budget", hookBudget, fmt.Sprintf("size of the injected context in `TOKENS`, 1 to %d", engine.MaxTokenBudget))
			fs.DurationVar(&timeout, "timeout", 0, "bound on the whole run (default 5s; 10s for stop)")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			start := time.Now()
			logDir := hookStateDir(a.env)
			// A wrong call exits 1, never 2: to Claude Code, status 2
			// from a prompt hook blocks the prompt.
			called := strings.Join(args, " ")
			wrong := func(format string, v ...any) error {
				msg := fmt.Sprintf(format, v...)
				agenthook.Log(logDir, time.Now(), agent, called, time.Since(start), "error: "+msg)
				return &failure{msg: msg + "; run 'mnemon help hook'", code: 1}
			}
			if len(args) != 1 || !slices.Contains(agenthook.Events, args[0]) {
				return wrong("hook takes one EVENT: %s", strings.Join(agenthook.Events, ", "))
			}
			event := args[0]
			if !slices.Contains(agenthook.Agents, agent) {
				return wrong("--agent %q: use one of %s", agent, strings.Join(agenthook.Agents, ", "))
			}
			if budget < 1 || budget > engine.MaxTokenBudget {
				return wrong("--budget %d: use 1 to %d tokens", budget, engine.MaxTokenBudget)
			}
			if timeout <= 0 {
				timeout = 5 * time.Second
				if event == "stop" {
					timeout = 10 * time.Second
				}
			}
			if url == "" {
				url = a.env.Getenv("MNEMON_URL")
			}
			cfg := agenthook.Config{Agent: agent, Event: event, Budget: budget, Timeout: timeout, StateDir: logDir}
			if url != "" {
				cfg.Open = remoteHookBackend(url, a.env.Getenv("MNEMON_API_KEY"), a.ns, timeout)
			} else {
				cfg.Open = localHookBackend(a.env, o.db, a.ns, event == "stop")
			}
			var out strings.Builder
			err := agenthook.Run(ctx, cfg, a.env.Stdin, &out)
			msg := "ok"
			switch {
			case err != nil:
				msg = "error: " + err.Error()
			case out.Len() > 0:
				msg = fmt.Sprintf("ok: %d bytes of context", out.Len())
			}
			agenthook.Log(logDir, time.Now(), agent, event, time.Since(start), msg)
			if err == nil {
				fmt.Fprint(a.env.Stdout, out.String())
			}
			return nil // never in the agent's way
		},
	}
}

// hookStateDir is where hooks log and keep per-session state:
// $XDG_STATE_HOME/mnemon, else ~/.local/state/mnemon.
func hookStateDir(env Env) string {
	if d := env.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "mnemon")
	}
	if h := env.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "mnemon")
	}
	return ""
}

// localHookBackend opens the database named by --db, MNEMON_DB or the
// default path. Only stop creates a missing database: a prompt hook on a
// fresh machine finds nothing and writes nothing.
func localHookBackend(env Env, db, ns string, creates bool) func(context.Context) (agenthook.Backend, func(), error) {
	return func(ctx context.Context) (agenthook.Backend, func(), error) {
		a := &app{env: env, ns: ns, dbPath: db, creates: creates}
		if a.dbPath == "" {
			a.dbPath = env.Getenv("MNEMON_DB")
		}
		if a.dbPath == "" {
			a.dbPath = defaultDBPath(env)
		}
		sync, err := syncLevel(env.Getenv("MNEMON_SYNC"))
		if err != nil {
			return nil, nil, err
		}
		a.synchronous = sync
		if !creates && !isPostgresURL(a.dbPath) {
			if _, err := os.Stat(a.dbPath); errors.Is(err, os.ErrNotExist) {
				return emptyBackend{}, func() {}, nil
			}
		}
		if err := a.open(ctx); err != nil {
			a.close()
			return nil, nil, err
		}
		return &engineBackend{eng: a.engine, ns: ns}, a.close, nil
	}
}

type emptyBackend struct{}

func (emptyBackend) Retrieve(context.Context, string, string, int) (string, error) { return "", nil }
func (emptyBackend) Capture(context.Context, string, []agenthook.Message, time.Time) error {
	return errors.New("no database")
}

type engineBackend struct {
	eng *engine.Engine
	ns  string
}

func (b *engineBackend) Retrieve(ctx context.Context, query, session string, budget int) (string, error) {
	res, err := b.eng.Retrieve(ctx, engine.RetrieveParams{Namespace: b.ns, Query: query, TokenBudget: budget, Scope: memory.Scope{SessionID: session}})
	if err != nil {
		return "", err
	}
	return res.Context, nil
}

func (b *engineBackend) Capture(ctx context.Context, session string, msgs []agenthook.Message, at time.Time) error {
	evs := make([]engine.Event, len(msgs))
	for i, m := range msgs {
		evs[i] = engine.Event{Kind: memory.EpisodeUserMessage, Content: cutUTF8(m.Content, engine.MaxContentBytes), OccurredAt: at, Speaker: "user"}
		if m.Role == "assistant" {
			evs[i].Kind, evs[i].Speaker = memory.EpisodeAgentMessage, "agent"
		}
	}
	_, err := b.eng.Capture(ctx, engine.CaptureParams{Namespace: b.ns, Scope: memory.Scope{SessionID: session}, Events: evs})
	return err
}

// remoteHookBackend talks to a mnemon server.
func remoteHookBackend(url, key, ns string, timeout time.Duration) func(context.Context) (agenthook.Backend, func(), error) {
	return func(ctx context.Context) (agenthook.Backend, func(), error) {
		c, err := client.New(url, client.Options{APIKey: key, Namespace: ns, UserAgent: "mnemon-hook", Retry: client.RetryPolicy{MaxAttempts: 1}})
		if err != nil {
			return nil, nil, err
		}
		return &clientBackend{c: c}, func() {}, nil
	}
}

type clientBackend struct{ c *client.Client }

func (b *clientBackend) Retrieve(ctx context.Context, query, session string, budget int) (string, error) {
	res, err := b.c.Retrieve(ctx, client.RetrieveRequest{Query: query, TokenBudget: budget, SessionID: session})
	if client.IsCode(err, client.ErrNamespaceNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return res.Context, nil
}

func (b *clientBackend) Capture(ctx context.Context, session string, msgs []agenthook.Message, at time.Time) error {
	evs := make([]client.Event, len(msgs))
	for i, m := range msgs {
		evs[i] = client.Event{Kind: client.KindUserMessage, Content: cutUTF8(m.Content, engine.MaxContentBytes), OccurredAt: at, Speaker: "user"}
		if m.Role == "assistant" {
			evs[i].Kind, evs[i].Speaker = client.KindAgentMessage, "agent"
		}
	}
	_, err := b.c.Capture(ctx, client.CaptureRequest{SessionID: session, Events: evs})
	return err
}

// cutUTF8 shortens s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}
