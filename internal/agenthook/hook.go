// Package agenthook is what `mnemon hook EVENT` does when a coding agent
// (Claude Code, Codex CLI, Gemini CLI) runs it as a lifecycle hook: on
// session-start and user-prompt it prints the packed memory for the prompt
// in the agent's output form; on stop it captures the turn's user and
// assistant messages as episodes of the agent's session.
//
// A hook must never get in the agent's way: Run bounds the work in time
// and the caller prints nothing and exits 0 on any error (logging it).
package agenthook

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Events are the hook events mnemon handles.
var Events = []string{"session-start", "user-prompt", "stop"}

// Agents are the agents whose hook input and output forms Run knows.
var Agents = []string{"claude-code", "codex", "gemini-cli"}

// Input is the JSON an agent writes to a hook's stdin: the fields of
// Claude Code's, Codex's and Gemini CLI's hook input that mnemon reads.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	// Prompt is the user's prompt (UserPromptSubmit, BeforeAgent, AfterAgent).
	Prompt string `json:"prompt"`
	// PromptResponse is the agent's final answer (Gemini CLI AfterAgent).
	PromptResponse string `json:"prompt_response"`
	// LastAssistantMessage is the agent's final answer (Codex and Claude
	// Code Stop, where the agent sends it).
	LastAssistantMessage string `json:"last_assistant_message"`
	// Source is why a session starts: startup, resume, clear, compact.
	Source string `json:"source"`
}

// maxInput bounds the hook input read from stdin.
const maxInput = 4 << 20

// ParseInput reads one hook input object.
func ParseInput(r io.Reader) (Input, error) {
	var in Input
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return in, err
	}
	if len(data) > maxInput {
		return in, fmt.Errorf("hook input is over %d bytes", maxInput)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return in, errors.New("no hook input on stdin")
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, fmt.Errorf("hook input is not a JSON object: %w", err)
	}
	return in, nil
}

// Message is one turn's message to capture.
type Message struct {
	Role    string // user or assistant
	Content string
}

// Backend is where memory lives: the local database, or a mnemon server.
type Backend interface {
	// Retrieve returns the packed context for query ("" when nothing is
	// known yet).
	Retrieve(ctx context.Context, query, sessionID string, budget int) (string, error)
	// Capture stores the messages as episodes of the session.
	Capture(ctx context.Context, sessionID string, msgs []Message, at time.Time) error
}

// Config is one hook run.
type Config struct {
	Agent string // claude-code, codex or gemini-cli
	Event string // session-start, user-prompt or stop
	// Budget is the packed context's size in tokens.
	Budget int
	// Timeout bounds the whole run, opening the store included.
	Timeout time.Duration
	// StateDir keeps each session's last prompt and last captured turn
	// (for agents whose stop input lacks the prompt, and so a turn is
	// captured once).
	StateDir string
	// Open makes the backend; it runs under the timeout too. The returned
	// function releases it.
	Open func(ctx context.Context) (Backend, func(), error)
	Now  func() time.Time
}

// ErrTimeout is returned when the run did not finish within Config.Timeout.
var ErrTimeout = errors.New("hook timed out")

// Run does one hook event: reads the input from stdin, and writes to
// stdout what the agent should see (nothing when there is nothing to add).
// Output is written only when the whole run succeeded in time, so a
// failing or slow hook prints nothing.
func Run(ctx context.Context, cfg Config, stdin io.Reader, stdout io.Writer) error {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	in, err := ParseInput(stdin)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := run(ctx, cfg, in)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return r.err
		}
		if len(r.out) > 0 {
			_, err := stdout.Write(r.out)
			return err
		}
		return nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%w after %s", ErrTimeout, cfg.Timeout)
		}
		return ctx.Err()
	}
}

func run(ctx context.Context, cfg Config, in Input) ([]byte, error) {
	switch cfg.Event {
	case "session-start", "user-prompt":
		query := in.Prompt
		if cfg.Event == "session-start" || strings.TrimSpace(query) == "" {
			query = sessionStartQuery(in)
		} else {
			rememberPrompt(cfg, in)
		}
		b, release, err := cfg.Open(ctx)
		if err != nil {
			return nil, err
		}
		defer release()
		packed, err := b.Retrieve(ctx, cutBytes(query, maxQueryBytes), in.SessionID, cfg.Budget)
		if err != nil {
			return nil, err
		}
		return Output(cfg.Agent, cfg.Event, in.HookEventName, packed), nil
	case "stop":
		msgs, err := Turn(cfg, in)
		if err != nil {
			return nil, err
		}
		if len(msgs) == 0 {
			return nil, nil
		}
		key := turnKey(in.SessionID, msgs)
		st := loadState(cfg, in.SessionID)
		if st.LastTurn == key {
			return nil, nil // this turn is already captured (Stop fired twice)
		}
		b, release, err := cfg.Open(ctx)
		if err != nil {
			return nil, err
		}
		defer release()
		if err := b.Capture(ctx, in.SessionID, msgs, cfg.Now()); err != nil {
			return nil, err
		}
		st.LastTurn, st.Prompt = key, ""
		saveState(cfg, in.SessionID, st)
		return nil, nil
	}
	return nil, fmt.Errorf("unknown hook event %q", cfg.Event)
}

// maxQueryBytes is the engine's limit on a query.
const maxQueryBytes = 4096

// sessionStartQuery asks for what mattered lately in the directory the
// agent works in: there is no prompt yet.
func sessionStartQuery(in Input) string {
	q := "What matters from earlier sessions: decisions, preferences, conventions, open tasks and problems"
	if in.Cwd != "" {
		q += " for the project " + filepath.Base(in.Cwd)
	}
	return q
}

// Output is what the agent reads from the hook's stdout for a packed
// context: the hookSpecificOutput.additionalContext JSON that Claude Code,
// Codex and Gemini CLI all take for their session-start and prompt events.
// Nothing when there is no context.
func Output(agent, event, agentEvent, packed string) []byte {
	if strings.TrimSpace(packed) == "" {
		return nil
	}
	if agentEvent == "" {
		agentEvent = AgentEvent(agent, event)
	}
	text := "Memory from earlier sessions (mnemon; use it where it helps, ignore it where it does not):\n" + packed
	out, _ := json.Marshal(map[string]any{
		"hookSpecificOutput": map[string]string{"hookEventName": agentEvent, "additionalContext": text},
	})
	return append(out, '\n')
}

// AgentEvent is the agent's name for a mnemon hook event.
func AgentEvent(agent, event string) string {
	names := map[string]string{"session-start": "SessionStart", "user-prompt": "UserPromptSubmit", "stop": "Stop"}
	if agent == "gemini-cli" {
		names = map[string]string{"session-start": "SessionStart", "user-prompt": "BeforeAgent", "stop": "AfterAgent"}
	}
	return names[event]
}

// Turn is the last turn's user and assistant messages: from the hook input
// where the agent sends them (Gemini CLI: prompt and prompt_response;
// Codex: last_assistant_message), else from the transcript (Claude Code's
// and Codex's JSON lines), else the prompt the user-prompt hook noted.
func Turn(cfg Config, in Input) ([]Message, error) {
	user, assistant := in.Prompt, firstNonEmpty(in.PromptResponse, in.LastAssistantMessage)
	if (user == "" || assistant == "") && in.TranscriptPath != "" {
		tu, ta, err := fromTranscript(in.TranscriptPath)
		if err != nil && user == "" && assistant == "" {
			return nil, err
		}
		user, assistant = firstNonEmpty(user, tu), firstNonEmpty(assistant, ta)
	}
	if user == "" {
		user = loadState(cfg, in.SessionID).Prompt
	}
	var msgs []Message
	if strings.TrimSpace(user) != "" {
		msgs = append(msgs, Message{"user", user})
	}
	if strings.TrimSpace(assistant) != "" {
		msgs = append(msgs, Message{"assistant", assistant})
	}
	return msgs, nil
}

// maxTranscriptTail is how much of a transcript's end is read: the last
// turn is there.
const maxTranscriptTail = 8 << 20

// fromTranscript reads the last user prompt and the assistant's text after
// it from a JSON-lines transcript: Claude Code's ({"type":"user",
// "message":{"role","content"}}) and Codex's ({"type":"response_item",
// "payload":{"type":"message","role","content"}}). Tool calls and results
// are not messages and are skipped.
func fromTranscript(path string) (string, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxTranscriptTail {
		if _, err := f.Seek(fi.Size()-maxTranscriptTail, io.SeekStart); err != nil {
			return "", "", err
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxTranscriptTail)
	var user string
	var assistant []string
	for sc.Scan() {
		var line struct {
			Type    string          `json:"type"`
			IsMeta  bool            `json:"isMeta"`
			Message *transcriptMsg  `json:"message"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue // a partial first line after the seek, or another record
		}
		m := line.Message
		if m == nil && len(line.Payload) > 0 {
			var p transcriptMsg
			if json.Unmarshal(line.Payload, &p) == nil && p.Type == "message" {
				m = &p
			}
		}
		if m == nil || line.IsMeta {
			continue
		}
		text := m.text()
		switch m.Role {
		case "user":
			if text == "" || isInjected(text) {
				continue // tool results, the agent's own context
			}
			user, assistant = text, nil
		case "assistant":
			if text != "" && user != "" {
				assistant = append(assistant, text)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", "", err
	}
	return user, strings.Join(assistant, "\n\n"), nil
}

type transcriptMsg struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text is the message's text: a string content, or its text blocks.
func (m *transcriptMsg) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return strings.TrimSpace(s)
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text", "input_text", "output_text":
			if t := strings.TrimSpace(b.Text); t != "" {
				parts = append(parts, t)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// isInjected tells the context an agent puts in user messages itself
// (Codex's environment and instructions, Claude Code's command output).
func isInjected(text string) bool {
	for _, p := range []string{"<environment_context>", "<user_instructions>", "<local-command-stdout>", "<command-name>", "<system-reminder>"} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// state is what the hook keeps for a session between runs.
type state struct {
	Prompt   string `json:"prompt,omitempty"`
	LastTurn string `json:"last_turn,omitempty"`
}

func statePath(cfg Config, session string) string {
	if cfg.StateDir == "" || session == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(cfg.Agent + "\x00" + session))
	return filepath.Join(cfg.StateDir, "sessions", hex.EncodeToString(sum[:12])+".json")
}

func loadState(cfg Config, session string) state {
	var st state
	if p := statePath(cfg, session); p != "" {
		if data, err := os.ReadFile(p); err == nil {
			_ = json.Unmarshal(data, &st)
		}
	}
	return st
}

func saveState(cfg Config, session string, st state) {
	p := statePath(cfg, session)
	if p == "" {
		return
	}
	if os.MkdirAll(filepath.Dir(p), 0o700) != nil {
		return
	}
	data, _ := json.Marshal(st)
	tmp := p + ".tmp"
	if os.WriteFile(tmp, data, 0o600) == nil {
		_ = os.Rename(tmp, p)
	}
}

// rememberPrompt notes the prompt for the stop hook of agents whose stop
// input and transcript may lack it.
func rememberPrompt(cfg Config, in Input) {
	st := loadState(cfg, in.SessionID)
	st.Prompt = in.Prompt
	saveState(cfg, in.SessionID, st)
}

func turnKey(session string, msgs []Message) string {
	h := sha256.New()
	h.Write([]byte(session))
	for _, m := range msgs {
		h.Write([]byte{0})
		h.Write([]byte(m.Role))
		h.Write([]byte{0})
		h.Write([]byte(m.Content))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func firstNonEmpty(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// cutBytes shortens s to at most n bytes without splitting a character.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}

// Log appends one line to the hook log (dir/hook.log), keeping the file
// under about 1 MB (it starts over past that). Errors are ignored: the
// log must not fail the hook.
func Log(dir string, now time.Time, agent, event string, took time.Duration, msg string) {
	if dir == "" {
		return
	}
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	p := filepath.Join(dir, "hook.log")
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if fi, err := os.Stat(p); err == nil && fi.Size() > 1<<20 {
		flags = os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	}
	f, err := os.OpenFile(p, flags, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s agent=%s event=%s took=%s %s\n", now.UTC().Format(time.RFC3339), agent, event, took.Round(time.Millisecond), strings.ReplaceAll(msg, "\n", " "))
}
