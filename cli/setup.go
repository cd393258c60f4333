package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mnemon-dev/mnemon/internal/agentsetup"
)

func setupCmd() *command {
	var print, remove, project bool
	var dir, binary string
	return &command{
		name: "setup", args: "TARGET", summary: "register mnemon with a coding agent: MCP server and memory hooks",
		help: `Registers the MCP server ('mnemon mcp' with this binary and database) in a coding agent's
config and, where the agent has lifecycle hooks, installs 'mnemon hook' so that each
session starts with what mattered before, each prompt gets the memories that matter for it,
and each turn is captured. TARGET is one of ` + strings.Join(agentsetup.Targets, ", ") + `.

Files touched (user level; with --project, the project's own):
  claude-code  ~/.claude.json (mcpServers), ~/.claude/settings.json (hooks SessionStart,
               UserPromptSubmit, Stop); --project: .mcp.json, .claude/settings.json
  codex        ~/.codex/config.toml ([mcp_servers.mnemon]; $CODEX_HOME if set),
               ~/.codex/hooks.json (SessionStart, UserPromptSubmit, Stop);
               --project: .codex/config.toml, .codex/hooks.json
  cursor       ~/.cursor/mcp.json (no hooks: memory is used when the agent calls a tool);
               --project: .cursor/mcp.json
  vscode       <user config>/Code/User/mcp.json (no hooks); --project: .vscode/mcp.json
  gemini-cli   ~/.gemini/settings.json (mcpServers; hooks SessionStart, BeforeAgent,
               AfterAgent); --project: .gemini/settings.json

Only mnemon's entries are added or replaced; every other setting keeps its value and
place. Before a file's first change a copy is kept as FILE.mnemon.bak. Running setup
again changes nothing; --remove takes out exactly what setup added. The database is the
--db given here (else MNEMON_DB, else the default), written into the config as an
absolute path, as is --namespace when given.
  mnemon setup claude-code
  mnemon setup codex --print
  mnemon setup cursor --project --db ./team.db
  mnemon setup gemini-cli --remove`,
		noStore: true,
		flags: func(fs *flag.FlagSet, _ *options) {
			fs.BoolVar(&print, "print", false, "show what would change, and write nothing")
			fs.BoolVar(&remove, "remove", false, "take out what setup added")
			fs.BoolVar(&project, "project", false, "use the project's config files (in --dir) instead of the user's")
			fs.StringVar(&dir, "dir", "", "the project `DIR` for --project (default: the current directory)")
			fs.StringVar(&binary, "binary", "", "the mnemon executable the agent runs (default: this one)")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 1 {
				return usagef("setup takes one TARGET: %s", strings.Join(agentsetup.Targets, ", "))
			}
			if dir != "" && !project {
				return usagef("--dir names the project for --project; add --project")
			}
			so := agentsetup.Options{
				Target: args[0], Home: a.env.Getenv("HOME"), CodexHome: a.env.Getenv("CODEX_HOME"),
				ConfigDir: userConfigDir(a.env), Namespace: o.namespace, Remove: remove,
			}
			if so.Namespace == "" {
				so.Namespace = a.env.Getenv("MNEMON_NAMESPACE")
			}
			if project {
				if dir == "" {
					dir = "."
				}
				abs, err := filepath.Abs(dir)
				if err != nil {
					return err
				}
				if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
					return usagef("--dir %s is not a directory", dir)
				}
				so.ProjectDir = abs
			}
			var err error
			if so.Binary, err = mnemonBinary(binary); err != nil {
				return err
			}
			so.DB = o.db
			if so.DB == "" {
				so.DB = a.env.Getenv("MNEMON_DB")
			}
			if so.DB == "" {
				so.DB = defaultDBPath(a.env)
			}
			if so.DB != "" && !isPostgresURL(so.DB) {
				if so.DB, err = filepath.Abs(so.DB); err != nil {
					return err
				}
			}
			changes, err := agentsetup.Plan(so)
			var se *agentsetup.Error
			if errors.As(err, &se) {
				if se.Code == "unknown_target" || se.Code == "invalid_options" {
					return usagef("setup: %s", se.Msg)
				}
				return &failure{msg: fmt.Sprintf("setup %s: %s [%s]", so.Target, se.Msg, se.Code), code: 1, err: err}
			}
			if err != nil {
				return err
			}
			w := a.env.Stdout
			if len(changes) == 0 {
				if remove {
					fmt.Fprintf(w, "mnemon is not set up for %s: nothing to remove\n", so.Target)
				} else {
					fmt.Fprintf(w, "mnemon is already set up for %s: nothing to change\n", so.Target)
				}
				return nil
			}
			if print {
				for _, c := range changes {
					verb := "would change"
					if c.Delete {
						verb = "would delete (setup created it; it is empty again)"
					} else if !c.Existed {
						verb = "would create"
					}
					fmt.Fprintf(w, "%s %s: %s\n", verb, c.Path, strings.Join(c.What, "; "))
					if c.Fragment != "" {
						fmt.Fprintf(w, "%s\n", indent(strings.TrimRight(c.Fragment, "\n")))
					}
				}
				fmt.Fprintln(w, "nothing was written (--print)")
				return nil
			}
			if err := agentsetup.Apply(changes); err != nil {
				return err
			}
			for _, c := range changes {
				verb := "changed"
				if c.Delete {
					verb = "deleted"
				} else if !c.Existed {
					verb = "created"
				}
				fmt.Fprintf(w, "%s %s: %s\n", verb, c.Path, strings.Join(c.What, "; "))
				if c.Existed && !c.Delete {
					fmt.Fprintf(w, "  the file before mnemon first changed it: %s%s\n", c.Path, agentsetup.BackupSuffix)
				}
			}
			if !remove {
				fmt.Fprintf(w, "database: %s\n%s", redactDB(so.DB), setupNote(so.Target))
			}
			return nil
		},
	}
}

// setupNote says what the user should know after setup for target.
func setupNote(target string) string {
	switch target {
	case "claude-code":
		return "restart Claude Code; /hooks and /mcp list what was added\n"
	case "codex":
		return "restart Codex; hooks run where Codex's hooks feature is on (the default in recent versions; older ones need [features] codex_hooks = true) and once you trust them\n"
	case "gemini-cli":
		return "restart Gemini CLI; hooks run where Gemini CLI has them enabled (/hooks lists them)\n"
	default:
		return "restart the editor; this agent has no lifecycle hooks mnemon can use, so memory is used when the agent calls the mnemon tools\n"
	}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// mnemonBinary is the absolute path of the executable the agent should run.
func mnemonBinary(given string) (string, error) {
	p := given
	if p == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("finding this executable: %w; name it with --binary", err)
		}
		p = exe
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil && given == "" {
		abs = resolved
	}
	if given != "" {
		if fi, err := os.Stat(abs); err != nil || fi.IsDir() {
			return "", usagef("--binary %s is not an executable file", given)
		}
	}
	return abs, nil
}

// userConfigDir is where VS Code keeps its user settings' parent:
// $XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support on
// macOS, %APPDATA% on Windows.
func userConfigDir(env Env) string {
	switch runtime.GOOS {
	case "darwin":
		if h := env.Getenv("HOME"); h != "" {
			return filepath.Join(h, "Library", "Application Support")
		}
	case "windows":
		return env.Getenv("APPDATA")
	}
	if d := env.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d
	}
	if h := env.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".config")
	}
	return ""
}
