package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"strconv"
	"strings"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/mcpserver"
)

func mcpCmd() *command {
	var logLevel, sync, compact string
	return &command{
		name: "mcp", summary: "serve memory to an agent over MCP on stdin/stdout, bound to one namespace",
		help: `Runs a Model Context Protocol server on stdin/stdout for an MCP client (Claude
Desktop, Claude Code, VS Code, Cursor) to start as a subprocess. Its tools:
remember, recall, respond (needs a chat model), forget, list_facts, history,
feedback, explain. The server is bound to the
namespace given at start (--namespace or MNEMON_NAMESPACE, default "default"):
no tool takes a namespace, and an id from another namespace is not found.

Messages are JSON-RPC, one a line. A line that is not one JSON-RPC message
gets a JSON-RPC error (-32700 when it is not JSON, -32600 for a batch or
anything else) and the server reads on. Logs go to stderr (stdout carries
the protocol). The database is created on
first write, like 'mnemon remember'. Writes made by other mnemon processes on
the same file (a 'mnemon serve', say) are picked up within half a second.
When the client closes stdin, a SQLite file of at most 64 MiB that this
server wrote to is compacted if that gives back 2 % of it, as 'mnemon serve'
does on stopping (--compact-on-exit MB or MNEMON_COMPACT_ON_EXIT_MB; -1
never).

Examples:
  mnemon mcp --namespace alice
  MNEMON_DB=~/.mnemon/work.db mnemon mcp

Client configuration: see the README's "MCP" section.`,
		creates: true,
		flags: func(fs *flag.FlagSet, _ *options) {
			fs.StringVar(&logLevel, "log-level", "", "debug, info, warn (default) or error")
			fs.StringVar(&sync, "sync", "", "durability of a commit: normal (default) or full (env MNEMON_SYNC; see 'mnemon help serve')")
			fs.StringVar(&compact, "compact-on-exit", "", "on exit, compact a SQLite file of at most `MB` MiB (see 'mnemon help serve'); -1 never (env MNEMON_COMPACT_ON_EXIT_MB; default 64)")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) > 0 {
				return usagef("mcp takes no arguments (got %q); run 'mnemon help mcp'", args[0])
			}
			if sync != "" {
				level, err := syncLevel(sync)
				if err != nil {
					return usagef("--sync %q: %v", sync, err)
				}
				a.synchronous = level
			}
			if compact == "" {
				compact = a.env.Getenv("MNEMON_COMPACT_ON_EXIT_MB")
			}
			mb := 0
			if compact != "" {
				n, err := strconv.Atoi(compact)
				if err != nil {
					return usagef("--compact-on-exit %q: want a whole number of MiB", compact)
				}
				mb = n
			}
			var err error
			if a.compactBytes, err = compactOnExit(mb); err != nil {
				return err
			}
			if logLevel == "" {
				logLevel = "warn"
			}
			log, err := newLogger(a.env.Stderr, "text", logLevel)
			if err != nil {
				return err
			}
			if err := a.openStore(ctx); err != nil {
				return err
			}
			eng, err := engine.New(engine.Config{Store: a.store, Logger: log})
			if err != nil {
				return err
			}
			a.engine = eng
			defer follow(eng)()
			srv := mcpserver.New(eng, mcpserver.Binding{Namespace: a.ns, CanWrite: true}, mcpserver.Options{Version: Version, Logger: log})
			log.Info("mcp server on stdio", "namespace", a.ns, "db", redactDB(a.dbPath), "sync", strings.ToLower(a.synchronous))
			err = srv.Run(ctx, mcpserver.StdioTransport(a.env.Stdin, a.env.Stdout))
			if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
				return nil // the client closed stdin, or SIGTERM
			}
			return err
		},
	}
}
