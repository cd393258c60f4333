package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemon-dev/mnemon/mcpserver"
)

func mcpCmd() *command {
	var logLevel string
	return &command{
		name: "mcp", summary: "serve memory to an agent over MCP on stdin/stdout, bound to one namespace",
		creates: true,
		help: `Speaks the Model Context Protocol on stdin and stdout, for agents that start mnemon
as a tool server (Claude Desktop, Claude Code, VS Code, Cursor). The server is bound to one
namespace, chosen at start with --namespace or MNEMON_NAMESPACE: no tool can reach another one,
and an id from another namespace is not found. Logs go to stderr; stdout carries only the protocol.

Tools: remember (text, or key/subject/value for one exact fact), recall (query, budget, limit,
as_of, include_history), forget (id), list_facts (subject, include_history, limit) and history
(id). Each answers with structured output and readable text; bad arguments are a tool error.

Examples:
  mnemon mcp --namespace alice
  MNEMON_DB=~/.mnemon/work.db mnemon mcp
  claude mcp add --transport stdio --scope user mnemon -- mnemon mcp --namespace alice`,
		flags: func(fs *flag.FlagSet, _ *options) {
			fs.StringVar(&logLevel, "log-level", "warn", "stderr log `LEVEL`: debug, info, warn or error")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) > 0 {
				return usagef("mcp takes no arguments (got %q); run 'mnemon help mcp'", args[0])
			}
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				return usagef("--log-level %q: use debug, info, warn or error", logLevel)
			}
			if err := a.open(ctx); err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(a.env.Stderr, &slog.HandlerOptions{Level: level}))
			s, err := mcpserver.New(mcpserver.Config{Engine: a.engine, Namespace: a.ns, Version: Version, Logger: log})
			if err != nil {
				return err
			}
			err = s.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(a.env.Stdin), Writer: nopWriteCloser{a.env.Stdout}})
			if err == nil || errors.Is(err, io.EOF) || (ctx.Err() != nil && errors.Is(err, ctx.Err())) {
				return nil // the client hung up, or we were told to stop
			}
			return err
		},
	}
}

// nopWriteCloser keeps the transport from closing the process's stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
