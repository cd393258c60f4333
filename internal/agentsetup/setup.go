// Package agentsetup registers mnemon with coding agents (Claude Code, Codex
// CLI, Cursor, VS Code, Gemini CLI): the MCP server, and lifecycle hooks
// that run `mnemon hook EVENT` where the agent has them.
//
// Every edit is a merge into the agent's own config file: only mnemon's
// entries (the "mnemon" MCP server, hook commands that run `mnemon hook`)
// are added, replaced or removed; every other key keeps its value and its
// place. Planning is pure (Plan computes each file's new bytes); Apply
// writes them, keeping a FILE.mnemon.bak copy of a file before its first
// change. Running setup twice plans no change the second time.
package agentsetup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Targets are the agents setup knows, in the order help lists them.
var Targets = []string{"claude-code", "codex", "cursor", "vscode", "gemini-cli"}

// ServerName is the MCP server's name in every agent's config.
const ServerName = "mnemon"

// BackupSuffix names the copy of a config file taken before its first change.
const BackupSuffix = ".mnemon.bak"

// Options say what to set up and where.
type Options struct {
	Target string
	// Home is the user's home directory (user-level config files live under it).
	Home string
	// ConfigDir is the user's config directory (os.UserConfigDir): VS Code's
	// user mcp.json lives under it.
	ConfigDir string
	// CodexHome is $CODEX_HOME when set; else Home/.codex.
	CodexHome string
	// ProjectDir, when set, selects the project-level config files of that
	// directory instead of the user's.
	ProjectDir string
	// Binary is the absolute path of the mnemon executable the agent runs.
	Binary string
	// DB is the database (absolute path or postgres:// URL) the MCP server
	// and hooks open.
	DB string
	// Namespace, when set, is passed to `mnemon mcp` and `mnemon hook`.
	Namespace string
	// Remove takes mnemon's entries out instead of adding them.
	Remove bool
}

// Error is a setup failure with a stable code.
type Error struct {
	Code string // unknown_target, config_unparseable, config_conflict, project_unsupported
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Change is one config file's planned edit.
type Change struct {
	Path string
	// Existed says the file was there; Before is its content then.
	Existed bool
	Before  []byte
	// After is the new content; Delete says the file goes (a file setup
	// created and --remove emptied).
	After  []byte
	Delete bool
	// What says what the edit does, for the user ("add MCP server mnemon").
	What []string
	// Fragment is mnemon's part of the file, as it is written there.
	Fragment string
}

// Changed reports whether the file's bytes change.
func (c *Change) Changed() bool {
	if c.Delete {
		return c.Existed
	}
	if !c.Existed {
		return len(c.After) > 0
	}
	return string(c.Before) != string(c.After)
}

// hookSpec is one agent event mnemon hooks into.
type hookSpec struct {
	agentEvent string // the agent's event name
	event      string // mnemon hook EVENT
	timeout    int    // in the agent's unit
}

// Hook timeouts: the agent's own bound, above the hook's internal one (5 s
// for context, 10 s for capture), so the hook always ends first and quietly.
var (
	claudeHooks = []hookSpec{{"SessionStart", "session-start", 10}, {"UserPromptSubmit", "user-prompt", 10}, {"Stop", "stop", 15}}
	codexHooks  = claudeHooks
	geminiHooks = []hookSpec{{"SessionStart", "session-start", 10000}, {"BeforeAgent", "user-prompt", 10000}, {"AfterAgent", "stop", 15000}}
)

// Plan computes the edits for o without writing anything. Files that would
// not change are left out.
func Plan(o Options) ([]Change, error) {
	if o.Binary == "" || !filepath.IsAbs(o.Binary) {
		return nil, &Error{"invalid_options", fmt.Sprintf("the mnemon binary path %q is not absolute", o.Binary)}
	}
	if o.DB == "" {
		return nil, &Error{"invalid_options", "no database: name one with --db"}
	}
	var edits []edit
	p := o.ProjectDir
	switch o.Target {
	case "claude-code":
		if p != "" {
			edits = []edit{mcpJSON(filepath.Join(p, ".mcp.json"), "mcpServers", true), hooksJSON(filepath.Join(p, ".claude", "settings.json"), claudeHooks)}
		} else {
			edits = []edit{mcpJSON(filepath.Join(o.Home, ".claude.json"), "mcpServers", true), hooksJSON(filepath.Join(o.Home, ".claude", "settings.json"), claudeHooks)}
		}
	case "codex":
		dir := o.CodexHome
		if dir == "" {
			dir = filepath.Join(o.Home, ".codex")
		}
		if p != "" {
			dir = filepath.Join(p, ".codex")
		}
		edits = []edit{mcpTOML(filepath.Join(dir, "config.toml")), hooksJSON(filepath.Join(dir, "hooks.json"), codexHooks)}
	case "cursor":
		dir := filepath.Join(o.Home, ".cursor")
		if p != "" {
			dir = filepath.Join(p, ".cursor")
		}
		edits = []edit{mcpJSON(filepath.Join(dir, "mcp.json"), "mcpServers", false)}
	case "vscode":
		path := filepath.Join(o.ConfigDir, "Code", "User", "mcp.json")
		if p != "" {
			path = filepath.Join(p, ".vscode", "mcp.json")
		} else if o.ConfigDir == "" {
			return nil, &Error{"invalid_options", "no user config directory for VS Code; use --project DIR"}
		}
		edits = []edit{mcpJSON(path, "servers", true)}
	case "gemini-cli":
		dir := filepath.Join(o.Home, ".gemini")
		if p != "" {
			dir = filepath.Join(p, ".gemini")
		}
		path := filepath.Join(dir, "settings.json")
		edits = []edit{mcpJSON(path, "mcpServers", false), hooksJSON(path, geminiHooks)}
	default:
		return nil, &Error{"unknown_target", fmt.Sprintf("unknown agent %q: use one of %s", o.Target, strings.Join(Targets, ", "))}
	}
	if p == "" && o.Home == "" {
		return nil, &Error{"invalid_options", "HOME is not set: cannot find the agent's config files"}
	}

	// Several edits may touch one file (Gemini CLI): apply them in turn.
	var order []string
	byPath := map[string]*Change{}
	for _, e := range edits {
		c := byPath[e.path]
		if c == nil {
			data, err := os.ReadFile(e.path)
			switch {
			case err == nil:
				c = &Change{Path: e.path, Existed: true, Before: data, After: data}
			case errors.Is(err, os.ErrNotExist):
				c = &Change{Path: e.path}
			default:
				return nil, fmt.Errorf("reading %s: %w", e.path, err)
			}
			byPath[e.path] = c
			order = append(order, e.path)
		}
		if err := e.apply(c, o); err != nil {
			return nil, err
		}
	}
	var out []Change
	for _, path := range order {
		c := byPath[path]
		if o.Remove {
			restoreBackup(c)
		}
		if c.Remove() {
			c.Delete = true
		}
		if c.Changed() {
			out = append(out, *c)
		}
	}
	return out, nil
}

// Remove reports whether a file setup created is empty again: removing it
// restores what was there (nothing). A file that existed before setup first
// changed it has a backup and is kept.
func (c *Change) Remove() bool {
	if !c.Existed || string(c.Before) == string(c.After) || strings.TrimSpace(string(c.After)) != "{}" && strings.TrimSpace(string(c.After)) != "" {
		return false
	}
	_, err := os.Stat(c.Path + BackupSuffix)
	return errors.Is(err, os.ErrNotExist)
}

// restoreBackup puts back the backup's bytes when the file, mnemon's
// entries removed, holds what the backup holds: --remove then restores
// the user's own layout too.
func restoreBackup(c *Change) {
	if !c.Existed || string(c.Before) == string(c.After) {
		return
	}
	bak, err := os.ReadFile(c.Path + BackupSuffix)
	if err != nil {
		return
	}
	if string(bak) == string(c.After) {
		return
	}
	if strings.HasSuffix(c.Path, ".toml") {
		// Setup ended a last line that had no newline.
		if strings.TrimRight(string(c.After), "\n") == strings.TrimRight(string(bak), "\n") {
			c.After = bak
		}
		return
	}
	a, errA := parseJSON(c.After)
	b, errB := parseJSON(bak)
	if errA == nil && errB == nil && equalJSON(a, b) {
		c.After = bak
	}
}

// Apply writes the planned changes: a backup of each existing file before
// its first change (FILE.mnemon.bak, never overwritten), then the new
// content through a temporary file and a rename, so a file is whole or
// unchanged.
func Apply(changes []Change) error {
	for _, c := range changes {
		if !c.Changed() {
			continue
		}
		if c.Delete {
			if err := os.Remove(c.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if c.Existed {
			if fi, err := os.Stat(c.Path); err == nil {
				mode = fi.Mode().Perm()
			}
			bak := c.Path + BackupSuffix
			if _, err := os.Stat(bak); errors.Is(err, os.ErrNotExist) {
				if err := writeAtomic(bak, c.Before, mode); err != nil {
					return fmt.Errorf("backing up %s: %w", c.Path, err)
				}
			}
		}
		if err := writeAtomic(c.Path, c.After, mode); err != nil {
			return fmt.Errorf("writing %s: %w", c.Path, err)
		}
	}
	return nil
}

func writeAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// edit is one change to one file.
type edit struct {
	path  string
	apply func(c *Change, o Options) error
}

// mcpArgs are the arguments of `mnemon mcp` for o.
func mcpArgs(o Options) []string {
	args := []string{"mcp", "--db", o.DB}
	if o.Namespace != "" {
		args = append(args, "--namespace", o.Namespace)
	}
	return args
}

// HookCommand is the shell command an agent runs for a mnemon hook event.
func HookCommand(o Options, event string) string {
	parts := []string{shellQuote(o.Binary), "hook", event, "--agent", o.Target, "--db", shellQuote(o.DB)}
	if o.Namespace != "" {
		parts = append(parts, "--namespace", shellQuote(o.Namespace))
	}
	return strings.Join(parts, " ")
}

// isMnemonHook reports whether a hook command runs `mnemon hook EVENT`:
// the entries setup wrote, with any binary path (whose name has "mnemon"
// in it: mnemon, mnemon.exe, mnemon-dev...) and any flags.
func isMnemonHook(command string) bool {
	bin, rest := firstWord(strings.TrimSpace(command))
	fields := strings.Fields(rest)
	if len(fields) < 2 || fields[0] != "hook" {
		return false
	}
	switch fields[1] {
	case "session-start", "user-prompt", "stop":
	default:
		return false
	}
	return strings.Contains(strings.ToLower(filepath.Base(bin)), "mnemon")
}

// firstWord splits off a command's first shell word, unquoting it (the
// forms shellQuote writes, and double quotes).
func firstWord(s string) (string, string) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t':
			return b.String(), s[i:]
		case '\'', '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return b.String() + s[i+1:], ""
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@=,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// editJSON parses c.After, runs f on it and stores the result when it
// differs in value from what was there (so a file in another layout is
// not rewritten for nothing).
func editJSON(c *Change, f func(doc *object) error) error {
	doc, err := parseJSON(c.After)
	if err != nil {
		return &Error{"config_unparseable", fmt.Sprintf("%s is not plain JSON (%v); nothing was written: fix it, or add mnemon by hand (mnemon setup --print shows the entries)", c.Path, err)}
	}
	before, _ := parseJSON(c.After)
	if err := f(doc); err != nil {
		return &Error{"config_conflict", fmt.Sprintf("%s: %v; nothing was written", c.Path, err)}
	}
	if !c.Existed && len(doc.keys) == 0 {
		return nil
	}
	if equalJSON(before, doc) {
		return nil
	}
	c.After = encodeJSON(doc)
	return nil
}

func mcpJSON(path, key string, typed bool) edit {
	return edit{path: path, apply: func(c *Change, o Options) error {
		entry := newObject()
		if typed {
			entry.set("type", "stdio")
		}
		entry.set("command", o.Binary)
		args := []any{}
		for _, a := range mcpArgs(o) {
			args = append(args, a)
		}
		entry.set("args", args)
		frag := newObject()
		frag.set(ServerName, entry)
		if !o.Remove {
			c.Fragment += fmt.Sprintf("%q: %s", key, encodeJSON(frag))
		}
		return editJSON(c, func(doc *object) error {
			if o.Remove {
				v, ok := doc.get(key)
				servers, isObj := v.(*object)
				if !ok || !isObj {
					return nil
				}
				if _, ok := servers.get(ServerName); ok {
					servers.del(ServerName)
					c.What = append(c.What, "remove MCP server "+ServerName)
					if len(servers.keys) == 0 {
						doc.del(key)
					}
				}
				return nil
			}
			servers, err := doc.child(key)
			if err != nil {
				return err
			}
			if old, ok := servers.get(ServerName); !ok || !equalJSON(old, entry) {
				servers.set(ServerName, entry)
				c.What = append(c.What, "register MCP server "+ServerName+" ("+key+"."+ServerName+")")
			}
			return nil
		})
	}}
}

func hooksJSON(path string, specs []hookSpec) edit {
	return edit{path: path, apply: func(c *Change, o Options) error {
		frag := newObject()
		for _, s := range specs {
			frag.set(s.agentEvent, []any{hookGroup(o, s)})
		}
		if !o.Remove {
			c.Fragment += `"hooks": ` + string(encodeJSON(frag))
		}
		return editJSON(c, func(doc *object) error {
			v, ok := doc.get("hooks")
			if o.Remove && !ok {
				return nil
			}
			hooks, isObj := v.(*object)
			if ok && !isObj {
				return errors.New(`"hooks" is not a JSON object`)
			}
			if !ok {
				hooks = newObject()
			}
			var events []string
			for _, s := range specs {
				groups, at, err := withoutMnemon(hooks, s.agentEvent)
				if err != nil {
					return err
				}
				if !o.Remove {
					// Where mnemon's hook was, so a second run keeps the order.
					groups = append(groups[:at:at], append([]any{hookGroup(o, s)}, groups[at:]...)...)
				}
				old, had := hooks.get(s.agentEvent)
				if len(groups) == 0 {
					if had {
						hooks.del(s.agentEvent)
						events = append(events, s.agentEvent)
					}
					continue
				}
				if !had || !equalJSON(old, groups) {
					hooks.set(s.agentEvent, groups)
					events = append(events, s.agentEvent)
				}
			}
			if len(events) > 0 {
				verb := "install hooks "
				if o.Remove {
					verb = "remove hooks "
				}
				sort.Strings(events)
				c.What = append(c.What, verb+strings.Join(events, ", "))
			}
			if len(hooks.keys) == 0 {
				doc.del("hooks")
			} else if !ok {
				doc.set("hooks", hooks)
			}
			return nil
		})
	}}
}

func hookGroup(o Options, s hookSpec) *object {
	h := newObject()
	h.set("type", "command")
	h.set("command", HookCommand(o, s.event))
	h.set("timeout", s.timeout)
	g := newObject()
	g.set("hooks", []any{h})
	return g
}

// withoutMnemon is the hook groups of event with mnemon's hook commands
// taken out (a group left with no command goes too), and the index in it
// where the first of them was (the end when there was none).
func withoutMnemon(hooks *object, event string) ([]any, int, error) {
	v, ok := hooks.get(event)
	if !ok {
		return nil, 0, nil
	}
	groups, ok := v.([]any)
	if !ok {
		return nil, 0, fmt.Errorf("hooks.%s is not a JSON array", event)
	}
	var out []any
	at := -1
	for _, g := range groups {
		gobj, ok := g.(*object)
		if !ok {
			out = append(out, g)
			continue
		}
		hv, _ := gobj.get("hooks")
		list, ok := hv.([]any)
		if !ok {
			out = append(out, g)
			continue
		}
		var kept []any
		for _, h := range list {
			if hobj, ok := h.(*object); ok {
				if cmd, ok := hobj.vals["command"].(string); ok && isMnemonHook(cmd) {
					continue
				}
			}
			kept = append(kept, h)
		}
		if len(kept) == len(list) {
			out = append(out, g)
			continue
		}
		if at < 0 {
			at = len(out)
		}
		if len(kept) == 0 {
			continue
		}
		ng := newObject()
		for _, k := range gobj.keys {
			ng.set(k, gobj.vals[k])
		}
		ng.set("hooks", kept)
		out = append(out, ng)
	}
	if at < 0 {
		at = len(out)
	}
	return out, at, nil
}
