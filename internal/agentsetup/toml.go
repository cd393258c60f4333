package agentsetup

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Codex's config.toml is edited as text: mnemon's table goes in a marked
// block at the end of the file (a table may follow anything), so the rest
// of the file, comments included, is never rewritten.
const (
	tomlBegin = "# mnemon: begin (written by 'mnemon setup codex'; 'mnemon setup codex --remove' takes it out)"
	tomlEnd   = "# mnemon: end"
)

// A [mcp_servers.mnemon] table (or a dotted key defining it) outside the block.
var tomlOurs = regexp.MustCompile(`(?m)^\s*(\[\s*mcp_servers\s*\.\s*"?mnemon"?\s*[\].]|mcp_servers\s*\.\s*"?mnemon"?\s*[.=])`)

func mcpTOML(path string) edit {
	return edit{path: path, apply: func(c *Change, o Options) error {
		var b strings.Builder
		b.WriteString(tomlBegin + "\n")
		b.WriteString("[mcp_servers." + ServerName + "]\n")
		b.WriteString("command = " + tomlString(o.Binary) + "\n")
		args := mcpArgs(o)
		q := make([]string, len(args))
		for i, a := range args {
			q[i] = tomlString(a)
		}
		b.WriteString("args = [" + strings.Join(q, ", ") + "]\n")
		b.WriteString(tomlEnd + "\n")
		block := b.String()
		if !o.Remove {
			c.Fragment += block
		}

		text := string(c.After)
		rest, had, err := cutBlock(text)
		if err != nil {
			return &Error{"config_unparseable", fmt.Sprintf("%s: %v; nothing was written", c.Path, err)}
		}
		if tomlOurs.MatchString(rest) {
			return &Error{"config_conflict", fmt.Sprintf("%s already defines mcp_servers.%s outside mnemon's block; remove that table (or edit it by hand); nothing was written", c.Path, ServerName)}
		}
		if o.Remove {
			if had {
				c.After = []byte(rest)
				c.What = append(c.What, "remove MCP server "+ServerName)
			}
			return nil
		}
		next := rest
		if next != "" && !strings.HasSuffix(next, "\n") {
			next += "\n"
		}
		if next != "" {
			next += "\n"
		}
		next += block
		if next != text {
			c.After = []byte(next)
			c.What = append(c.What, "register MCP server "+ServerName+" ([mcp_servers."+ServerName+"])")
		}
		return nil
	}}
}

// cutBlock is text without mnemon's block (and the blank line setup put
// before it), and whether there was one.
func cutBlock(text string) (string, bool, error) {
	i := strings.Index(text, tomlBegin)
	if i < 0 {
		return text, false, nil
	}
	if i > 0 && text[i-1] != '\n' {
		return "", false, errors.New("mnemon's begin marker is not at the start of a line")
	}
	j := strings.Index(text[i:], tomlEnd)
	if j < 0 {
		return "", false, errors.New("mnemon's block has a begin marker and no end marker")
	}
	end := i + j + len(tomlEnd)
	if end < len(text) && text[end] == '\n' {
		end++
	}
	before := text[:i]
	if strings.HasSuffix(before, "\n\n") {
		before = before[:len(before)-1]
	}
	return before + text[end:], true, nil
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
