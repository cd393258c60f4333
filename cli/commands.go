package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

func scopeFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.agent, "agent", "", "scope: agent `ID`")
	fs.StringVar(&o.user, "user", "", "scope: user `ID`")
	fs.StringVar(&o.project, "project", "", "scope: project `ID`")
	fs.StringVar(&o.session, "session", "", "scope: session `ID`")
}

func (o *options) scope() memory.Scope {
	return memory.Scope{AgentID: o.agent, UserID: o.user, ProjectID: o.project, SessionID: o.session}
}

// futureSlack is how far ahead of this machine's clock an observation time
// may be (clock skew). A time further ahead would win every later
// correction, so it is refused.
const futureSlack = time.Hour

// timeLayouts are the time forms the CLI reads; times without a zone are UTC.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"}

func parseTimeValue(s string) (time.Time, bool) {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// parseTime reads a time flag: RFC 3339 or a plain date, within the
// storable range (0001-01-01 is refused, not taken as unset).
func parseTime(flagName, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, ok := parseTimeValue(strings.TrimSpace(s))
	if !ok {
		return nil, usagef("--%s %q is not a time; use RFC 3339 (2026-05-01T12:00:00Z) or a date (2026-05-01)", flagName, s)
	}
	if err := memory.CheckTime("--"+flagName, t); err != nil {
		return nil, usagef("%v", err)
	}
	return &t, nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// plural spells a count: "1 episode", "2 episodes", "3 memories".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// clip shortens s to n runes for a table cell, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func rememberCmd() *command {
	return &command{
		name: "remember", args: "TEXT", summary: "store a fact now (extracted, reconciled, versioned)",
		creates: true,
		help: `TEXT is read by the built-in extractor: "My favorite editor is Vim", "I live in Lisbon",
"Atlas uses pnpm", "Never commit secrets", "Actually, I switched to Neovim". A later value of the
same fact supersedes the earlier one, which stays as history. A statement no rule recognises is kept
as a note (a fact keyed note:…). Text that states nothing to keep about the speaker (a question, a
hypothetical, what someone else said, small talk) is kept only as said: an episode recall finds.
With --key, TEXT is stored as exactly one fact with the given fields.
  mnemon remember "I live in Lisbon."
  mnemon remember "Deploys happen on Fridays" --key deploy:day --value Friday --subject atlas`,
		flags: func(fs *flag.FlagSet, o *options) {
			scopeFlags(fs, o)
			fs.StringVar(&o.speaker, "speaker", "", "the `NAME` of who states it; first-person statements are about them (default user)")
			fs.StringVar(&o.typ, "type", "", "with --key: fact, preference, decision, constraint, goal, lesson, procedure or summary")
			fs.StringVar(&o.subject, "subject", "", "with --key: whom or what the fact is about (default the speaker)")
			fs.StringVar(&o.key, "key", "", "store TEXT as one fact in this slot (e.g. prefers:editor)")
			fs.StringVar(&o.value, "value", "", "with --key: the fact's value")
			fs.StringVar(&o.criticality, "criticality", "", "how much it matters: normal, high or must_include")
			fs.Float64Var(&o.confidence, "confidence", 0, "with --key: how sure, from 0 to 1 (default 0.9)")
			fs.StringVar(&o.observedAt, "observed-at", "", "`TIME` it was said (RFC 3339 or date; default now)")
			fs.StringVar(&o.validFrom, "valid-from", "", "with --key: `TIME` it became true")
			fs.StringVar(&o.validTo, "valid-to", "", "with --key: `TIME` it stops being true")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 1 {
				return usagef("remember takes one TEXT argument (quote it); got %d", len(args))
			}
			if strings.TrimSpace(args[0]) == "" {
				return usagef(`remember: TEXT is empty; say what to remember, as in: mnemon remember "I live in Lisbon."`)
			}
			if len(args[0]) > engine.MaxContentBytes {
				return usagef("remember: TEXT is %d bytes; the limit is %d", len(args[0]), engine.MaxContentBytes)
			}
			observed, err := parseTime("observed-at", o.observedAt)
			if err != nil {
				return err
			}
			if observed != nil && observed.After(time.Now().Add(futureSlack)) {
				return usagef("--observed-at %s is in the future; a future observation would outrank every later correction", o.observedAt)
			}
			from, err := parseTime("valid-from", o.validFrom)
			if err != nil {
				return err
			}
			to, err := parseTime("valid-to", o.validTo)
			if err != nil {
				return err
			}
			if o.key == "" && (o.typ != "" || o.subject != "" || o.value != "" || o.confidence != 0 || from != nil || to != nil) {
				return usagef("--type, --subject, --value, --confidence, --valid-from and --valid-to need --key")
			}
			p := engine.RememberParams{
				Namespace: a.ns, Scope: o.scope(), Text: args[0], Speaker: o.speaker,
				Type: memory.Type(o.typ), Subject: o.subject, Key: o.key, Value: o.value,
				Criticality: memory.Criticality(o.criticality), Confidence: o.confidence,
				ValidFrom: from, ValidTo: to,
			}
			if observed != nil {
				p.ObservedAt = *observed
			}
			if err := a.open(ctx); err != nil {
				return err
			}
			res, err := a.engine.Remember(ctx, p)
			if err != nil {
				return err
			}
			if len(res.Outcomes) == 0 {
				// The engine reports no outcome for an episode it
				// quarantined or refused; its admission log says why.
				res.Outcomes = a.episodeOutcomes(ctx, res.EpisodeID)
			}
			if o.json {
				return writeJSON(a.env.Stdout, res)
			}
			printOutcomes(a.env.Stdout, res.Outcomes)
			return nil
		},
	}
}

// episodeOutcomes rebuilds outcomes from an episode's admission log.
func (a *app) episodeOutcomes(ctx context.Context, episodeID string) []engine.Outcome {
	outs := []engine.Outcome{}
	adms, err := a.store.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: a.ns, EpisodeID: episodeID})
	if err != nil {
		return outs
	}
	for _, ad := range adms {
		if ad.Decision == memory.AdmitAccept {
			continue
		}
		outs = append(outs, engine.Outcome{
			EpisodeID: episodeID, Decision: ad.Decision, Operation: ad.Operation, Reasons: ad.Reasons,
			MemoryID: ad.MemoryID, VersionID: ad.VersionID, Content: ad.Content,
		})
	}
	return outs
}

// printOutcomes prints what a remember did, one aligned row per candidate.
func printOutcomes(w io.Writer, outs []engine.Outcome) {
	if len(outs) == 0 {
		fmt.Fprintln(w, "stored the episode; no fact in it")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	quarantined, kept := false, ""
	for _, o := range outs {
		op := firstNonEmpty(string(o.Operation), strings.ToUpper(string(o.Decision)))
		if o.Decision == memory.AdmitQuarantine {
			op, quarantined = "QUARANTINE", true
		}
		key, ref := "-", "-"
		if o.Version != nil {
			key, ref = o.Version.Key, fmt.Sprintf("%s@v%d", o.MemoryID, o.Version.Seq)
		} else if o.MemoryID != "" {
			ref = o.MemoryID
		}
		if o.Version != nil && o.Version.Kind == memory.KindEpisodic {
			// No fact or note came of the text: it is kept as said.
			op, key, kept = "KEPT", "episode", whyNoFact(o.Reasons)
		}
		// The operation is padded to a fixed width so the keys of separate
		// calls line up too.
		fmt.Fprintf(tw, "%-9s %s\t%s\t%s\t[%s]\n", op, key, ref, clip(o.Content, 100), strings.Join(o.Reasons, ", "))
	}
	tw.Flush()
	if quarantined {
		fmt.Fprintln(w, "quarantined text is kept as evidence but never recalled")
	}
	if kept != "" {
		fmt.Fprintf(w, "no fact or note in it (%s); kept as said, recall finds it as an episode\n", kept)
	}
}

// whyNoFact says, from an episode's admission reasons, why a remembered
// text gave no fact or note.
func whyNoFact(reasons []string) string {
	for _, r := range reasons {
		switch {
		case r == "not_a_statement:question":
			return "it is a question"
		case r == "not_a_statement:hypothetical":
			return "it is hypothetical"
		case r == "not_a_statement:reported":
			return "it reports what someone else said"
		case r == "not_a_statement:unresolved_pronoun":
			return "it names whom it is about only by a pronoun"
		case r == "not_a_statement:someone_elses_wish":
			return "it is someone else's wish"
		case r == "gate:acknowledgement":
			return "it is an acknowledgement"
		case strings.HasPrefix(r, "gate:"):
			return "nothing in it to extract"
		}
	}
	return "no rule reads a fact in it"
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// captureLine is one JSON line of `mnemon capture`.
type captureLine struct {
	engine.Event
	// OccurredAt shadows the event's field so a bad time gets a clear
	// message and a plain date is accepted.
	OccurredAt string `json:"occurred_at,omitempty"`
	SessionID  string `json:"session_id,omitempty"`
	AgentID    string `json:"agent_id,omitempty"`
	UserID     string `json:"user_id,omitempty"`
	ProjectID  string `json:"project_id,omitempty"`
}

// captureFields lists the fields a capture line may have, for messages.
const captureFields = "kind, content, occurred_at, speaker, metadata, session_id, agent_id, user_id, project_id"

// captureBatch is how many events one transaction commits.
const captureBatch = 1000

// maxCaptureLine bounds one input line: the content limit, JSON-escaped.
const maxCaptureLine = 8 * engine.MaxContentBytes

func captureCmd() *command {
	return &command{
		name: "capture", args: "[FILE|-]", summary: "store events (JSON lines) as episodes and extract memories",
		creates: true,
		help: `Each line is one event:
  {"kind":"user_message","content":"I moved to Porto","occurred_at":"2026-05-01T10:00:00Z","speaker":"ana","session_id":"s1"}
kind is one of user_message, agent_message, tool_call, tool_result, user_feedback, task_result,
observation; occurred_at (RFC 3339 or a date, UTC) defaults to now; session/agent/user/project ids may
also come from flags; session_id is optional (at most 256 bytes, like every scope id). Agent, user
and project ids are ownership: an episode of user u1 is recalled only with --user u1. A session is a
conversation, not a wall: its episodes are recalled from any later session (or none), and a recall
naming the session ranks them a little higher. Facts extracted from the events hold beyond the session.
The whole input is checked before anything is written; then it is committed in batches of 1000
events, each batch all-or-nothing. Reads standard input when FILE is absent or "-".
  mnemon capture events.jsonl
  agent-log | mnemon capture --session s1`,
		flags: scopeFlags,
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) > 1 {
				return usagef("capture takes at most one FILE; got %d arguments", len(args))
			}
			in, name, closeIn, err := openInput(a.env.Stdin, args, "capture", "mnemon capture events.jsonl, or: agent-log | mnemon capture")
			if err != nil {
				return err
			}
			defer closeIn()
			groups, order, n, err := readCapture(in, name, o.scope(), time.Now())
			if err != nil {
				return err
			}
			if err := a.open(ctx); err != nil {
				return err
			}
			all := make([]string, 0, n)
			ops := map[string]int{}
			for _, sc := range order {
				evs := groups[sc]
				for start := 0; start < len(evs); start += captureBatch {
					end := min(start+captureBatch, len(evs))
					res, err := a.engine.Capture(ctx, engine.CaptureParams{Namespace: a.ns, Scope: sc, Events: evs[start:end]})
					if err != nil {
						if ctx.Err() != nil {
							return &interrupted{detail: fmt.Sprintf("%d of %d events were committed, in whole batches; the rest were not written", len(all), n)}
						}
						if len(all) > 0 {
							return fmt.Errorf("%w (%d of %d events were committed before this batch)", err, len(all), n)
						}
						return err
					}
					all = append(all, res.EpisodeIDs...)
					for _, out := range res.Outcomes {
						ops[firstNonEmpty(string(out.Operation), strings.ToUpper(string(out.Decision)))]++
					}
					if n > captureBatch && !o.json {
						fmt.Fprintf(a.env.Stderr, "captured %d of %d events\n", len(all), n)
					}
				}
			}
			if o.json {
				return writeJSON(a.env.Stdout, map[string]any{"episode_ids": all, "operations": ops})
			}
			fmt.Fprintf(a.env.Stdout, "captured %s into namespace %s%s\n", plural(len(all), "episode", "episodes"), a.ns, describeOps(ops))
			return nil
		},
	}
}

// describeOps summarises what happened to the events' facts: "; facts: 3
// added, 1 superseded".
func describeOps(ops map[string]int) string {
	words := []struct{ op, word string }{
		{"ADD", "added"}, {"SUPERSEDE", "superseded"}, {"REINFORCE", "reinforced"},
		{"CONTEST", "contested"}, {"NOOP", "unchanged"}, {"DEFER", "deferred"},
		{"REJECT", "rejected"},
	}
	var parts []string
	for _, w := range words {
		if n := ops[w.op]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, w.word))
		}
	}
	msg := "; no facts found"
	if len(parts) > 0 {
		msg = "; facts: " + strings.Join(parts, ", ")
	}
	if q := ops["QUARANTINE"]; q > 0 {
		msg += fmt.Sprintf("; %s quarantined (instruction-like text, never recalled)", plural(q, "event", "events"))
	}
	return msg
}

// openInput opens FILE, or standard input when args is empty or "-". It
// refuses a directory, and a terminal: nothing would ever arrive there.
func openInput(stdin io.Reader, args []string, cmd, example string) (io.Reader, string, func(), error) {
	noop := func() {}
	if len(args) == 0 || args[0] == "-" {
		if isTerminal(stdin) {
			return nil, "", noop, usagef("%s: give a FILE or pipe lines into standard input, as in: %s", cmd, example)
		}
		return stdin, "standard input", noop, nil
	}
	path := args[0]
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, "", noop, usagef("%s: %s does not exist", cmd, path)
		}
		return nil, "", noop, fmt.Errorf("%s: %w", cmd, err)
	}
	if fi.IsDir() {
		return nil, "", noop, usagef("%s: %s is a directory; give a file", cmd, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", noop, fmt.Errorf("%s: %w", cmd, err)
	}
	return f, path, func() { f.Close() }, nil
}

// isTerminal reports whether r is an interactive terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
		return false
	}
	return true
}

// readCapture reads and checks every line, grouping events by scope in
// first-seen order. Any bad line refuses the whole input.
func readCapture(r io.Reader, name string, base memory.Scope, now time.Time) (map[memory.Scope][]engine.Event, []memory.Scope, int, error) {
	groups := make(map[memory.Scope][]engine.Event)
	var order []memory.Scope
	sc := newLineScanner(r, maxCaptureLine)
	n, events := 0, 0
	for sc.Scan() {
		n++
		b := sc.Bytes()
		if n == 1 {
			b = trimBOM(b)
		}
		text := strings.TrimSpace(string(b))
		if text == "" {
			continue
		}
		ev, scope, err := parseCaptureLine([]byte(text), base)
		if err == nil && ev.OccurredAt.After(now.Add(futureSlack)) {
			err = fmt.Errorf("occurred_at %s is in the future; a future event would outrank every later correction", ev.OccurredAt.Format(time.RFC3339))
		}
		if err != nil {
			return nil, nil, 0, usagef("capture: %s line %d: %v; nothing was written", name, n, err)
		}
		if _, ok := groups[scope]; !ok {
			order = append(order, scope)
		}
		groups[scope] = append(groups[scope], ev)
		events++
	}
	if err := sc.Err(); err != nil {
		return nil, nil, 0, usagef("capture: %s line %d: %v; nothing was written", name, n+1, scanProblem(err, maxCaptureLine))
	}
	if events == 0 {
		return nil, nil, 0, usagef(`capture: no events in %s; send JSON lines like {"kind":"user_message","content":"..."}`, name)
	}
	return groups, order, events, nil
}

// newLineScanner reads lines of up to max bytes.
func newLineScanner(r io.Reader, max int) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), max)
	return sc
}

// trimBOM drops a UTF-8 byte order mark, which some editors write.
func trimBOM(b []byte) []byte {
	return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
}

// scanProblem phrases a read error.
func scanProblem(err error, max int) string {
	if errors.Is(err, bufio.ErrTooLong) {
		return fmt.Sprintf("the line is longer than %d bytes (an event's content may hold %d)", max, engine.MaxContentBytes)
	}
	return err.Error()
}

// parseCaptureLine decodes and validates one event line.
func parseCaptureLine(b []byte, base memory.Scope) (engine.Event, memory.Scope, error) {
	if len(b) == 0 || b[0] != '{' {
		return engine.Event{}, base, fmt.Errorf(`not a JSON object; each line must be one event like {"kind":"user_message","content":"..."}`)
	}
	var l captureLine
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return engine.Event{}, base, jsonProblem(err)
	}
	if dec.More() {
		return engine.Event{}, base, fmt.Errorf("more than one JSON value on the line; put one event per line")
	}
	if l.Kind == "" {
		return engine.Event{}, base, fmt.Errorf("kind is missing; use one of %s", kindNames())
	}
	if !l.Kind.Valid() {
		return engine.Event{}, base, fmt.Errorf("kind %q is not an event kind; use one of %s", l.Kind, kindNames())
	}
	if strings.TrimSpace(l.Content) == "" {
		return engine.Event{}, base, fmt.Errorf("content is missing or empty")
	}
	if len(l.Content) > engine.MaxContentBytes {
		return engine.Event{}, base, fmt.Errorf("content is %d bytes; the limit is %d", len(l.Content), engine.MaxContentBytes)
	}
	if !utf8.ValidString(l.Content) {
		return engine.Event{}, base, fmt.Errorf("content is not valid UTF-8")
	}
	ev := l.Event
	if l.OccurredAt != "" {
		t, ok := parseTimeValue(l.OccurredAt)
		if !ok {
			return engine.Event{}, base, fmt.Errorf("occurred_at %q is not a time; use RFC 3339 (2026-05-01T10:00:00Z) or a date (2026-05-01)", l.OccurredAt)
		}
		if err := memory.CheckTime("occurred_at", t); err != nil {
			return engine.Event{}, base, err
		}
		ev.OccurredAt = t
	}
	scope := base
	if l.SessionID != "" {
		scope.SessionID = l.SessionID
	}
	if l.AgentID != "" {
		scope.AgentID = l.AgentID
	}
	if l.UserID != "" {
		scope.UserID = l.UserID
	}
	if l.ProjectID != "" {
		scope.ProjectID = l.ProjectID
	}
	return ev, scope, nil
}

// article puts "a" or "an" before a JSON type name.
func article(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

func kindNames() string {
	names := make([]string, len(memory.EpisodeKinds))
	for i, k := range memory.EpisodeKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// jsonProblem says what is wrong with a JSON line, without Go type names.
func jsonProblem(err error) error {
	var (
		se *json.SyntaxError
		te *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("not valid JSON at column %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Errorf("not valid JSON: the line ends inside the object")
	case errors.As(err, &te):
		field := te.Field
		field = strings.TrimPrefix(field, "Event.")
		if field == "" {
			return fmt.Errorf("not a JSON object; each line must be one event")
		}
		want := "a string"
		if strings.HasPrefix(field, "metadata") {
			if field != "metadata" {
				return fmt.Errorf("metadata values must be strings; %s is %s", field, article(te.Value))
			}
			want = "an object of strings"
		}
		return fmt.Errorf("%s must be %s, not %s", field, want, article(te.Value))
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("unknown field %s; the fields are %s", f, captureFields)
	}
	return fmt.Errorf("not a valid event: %v", err)
}

func recallCmd() *command {
	return &command{
		name: "recall", args: "QUERY", summary: "retrieve the memories that matter for a query, packed into a token budget",
		help: `Runs every channel (critical, structured, lexical, semantic, recent episodes, graph), fuses them,
ranks by utility and packs the best into --budget tokens. Each item says why it is there.
Memories of an agent, user or project are recalled only when the matching flag names it;
memories of none are always visible. A session is not a wall: --session names the current
conversation, whose episodes rank a little higher; episodes of earlier sessions are recalled
too, unless --session-only keeps to that session's episodes.
  mnemon recall "which editor does the user prefer?" -k 1
  mnemon recall "where did she live in 2024?" --as-of 2024-06-01
  mnemon recall "which editor did the user use before?" --history
  mnemon recall "what did we decide?" --session s1 --explain
  mnemon recall "what did we say about the deploy?" --session s1 --session-only`,
		flags: func(fs *flag.FlagSet, o *options) {
			scopeFlags(fs, o)
			fs.IntVar(&o.limit, "k", engine.DefaultLimit, fmt.Sprintf("items to return at most, 1 to %d (0: the default)", engine.MaxLimit))
			fs.IntVar(&o.budget, "budget", engine.DefaultTokenBudget, fmt.Sprintf("size of the packed context in cl100k `TOKENS`, 1 to %d (0: the default)", engine.MaxTokenBudget))
			fs.BoolVar(&o.explain, "explain", false, "also list candidates that were not packed, and why")
			fs.StringVar(&o.asOf, "as-of", "", "answer with what was true at `TIME` (RFC 3339 or date)")
			fs.StringVar(&o.knownAt, "known-at", "", "answer with what mnemon held at `TIME` (record time; RFC 3339 or date)")
			fs.BoolVar(&o.history, "history", false, "also serve superseded and expired versions")
			fs.BoolVar(&o.sessionOnly, "session-only", false, "serve only episodes of the --session conversation")
			fs.StringVar(&o.task, "task", "", "task `TYPE` (a memory type or key word) to favour matching memories")
			fs.StringVar(&o.disable, "disable", "", "turn off these comma-separated `CHANNELS`: "+strings.Join(engine.Channels, ", "))
			fs.IntVar(&o.context, "context", engine.DefaultContext, fmt.Sprintf("show each episode ranked with confidence with up to `N` turns before and after it from the same conversation (0 none, up to %d)", engine.MaxContext))
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 1 {
				return usagef("recall takes one QUERY argument (quote it); got %d", len(args))
			}
			if strings.TrimSpace(args[0]) == "" {
				return usagef(`recall: QUERY is empty; ask something, as in: mnemon recall "which editor does the user prefer?"`)
			}
			if len(args[0]) > engine.MaxQueryBytes {
				return usagef("recall: QUERY is %d bytes; the limit is %d", len(args[0]), engine.MaxQueryBytes)
			}
			// 0 takes the default, as limit and token_budget do over
			// the API and MCP.
			if o.limit < 0 || o.limit > engine.MaxLimit {
				return usagef("-k %d: use 1 to %d, or 0 for the default (%d)", o.limit, engine.MaxLimit, engine.DefaultLimit)
			}
			if o.budget < 0 || o.budget > engine.MaxTokenBudget {
				return usagef("--budget %d: use 1 to %d tokens, or 0 for the default (%d)", o.budget, engine.MaxTokenBudget, engine.DefaultTokenBudget)
			}
			if o.context < 0 || o.context > engine.MaxContext {
				return usagef("--context %d: use 0 to %d turns", o.context, engine.MaxContext)
			}
			turns := o.context
			if turns == 0 {
				turns = engine.NoContext
			}
			asOf, err := parseTime("as-of", o.asOf)
			if err != nil {
				return err
			}
			knownAt, err := parseTime("known-at", o.knownAt)
			if err != nil {
				return err
			}
			p := engine.RetrieveParams{
				Namespace: a.ns, Query: args[0], Limit: o.limit, TokenBudget: o.budget, TaskType: o.task,
				Scope: o.scope(), SessionOnly: o.sessionOnly, AsOf: asOf, KnownAt: knownAt, IncludeHistory: o.history, Context: turns,
			}
			if o.sessionOnly && o.session == "" {
				return usagef("--session-only needs --session ID: name the conversation to keep to")
			}
			if o.disable != "" {
				if p.Disable, err = parseChannels(o.disable); err != nil {
					return err
				}
			}
			if a.defaultPath {
				if _, err := os.Stat(a.dbPath); errors.Is(err, os.ErrNotExist) {
					// A fresh machine: nothing is stored, and a read
					// creates no database.
					if o.json {
						return writeJSON(a.env.Stdout, &engine.Result{Items: []engine.Item{}, TokenBudget: o.budget})
					}
					fmt.Fprintf(a.env.Stdout, "nothing found: nothing is stored yet (the first mnemon remember, capture or import creates %s)\n", a.dbPath)
					return nil
				}
			}
			if err := a.open(ctx); err != nil {
				return err
			}
			res, err := a.engine.Retrieve(ctx, p)
			if err != nil {
				return err
			}
			if o.json {
				if o.explain && !res.NamespaceEmpty {
					tr, err := a.engine.Trace(ctx, a.ns, res.RetrievalID)
					if err != nil {
						return err
					}
					return writeJSON(a.env.Stdout, map[string]any{"result": res, "trace": tr})
				}
				return writeJSON(a.env.Stdout, res)
			}
			w := a.env.Stdout
			if res.NamespaceEmpty {
				// Nothing was retrieved, so no retrieval was recorded.
				fmt.Fprintf(w, "nothing found: namespace %s is empty (namespaces never share memories; 'mnemon stats --all' lists them)\n", a.ns)
				return nil
			}
			if len(res.Items) == 0 {
				fmt.Fprintf(w, "nothing found in namespace %s\n", a.ns)
			}
			for i, it := range res.Items {
				fmt.Fprintf(w, "%d. [%s %.2f] %s\n", i+1, it.Action, it.Trust, it.Content)
				for _, c := range it.Context {
					where := "after"
					if c.Before {
						where = "before"
					}
					fmt.Fprintf(w, "   %s: %s\n", where, c.Content)
				}
				fmt.Fprintf(w, "   %s %s · %s@v%d · %s · score %.3f · %s\n", it.Kind, it.Type, it.MemoryID, it.Seq, it.Status, it.Score, plural(it.Tokens, "token", "tokens"))
				fmt.Fprintf(w, "   why: %s\n", it.Explanation)
			}
			var mode string
			if asOf != nil {
				mode += " · as of " + asOf.Format(time.RFC3339)
			}
			if o.history {
				mode += " · with history"
			}
			if s := scopeString(p.Scope); s != "" {
				mode += " · " + s
			}
			fmt.Fprintf(w, "\nretrieval %s%s · %d/%d tokens · %s · %s\n", res.RetrievalID, mode, res.TokensUsed, res.TokenBudget, plural(res.Candidates, "candidate", "candidates"), res.Duration.Round(time.Microsecond))
			if o.explain {
				tr, err := a.engine.Trace(ctx, a.ns, res.RetrievalID)
				if err != nil {
					return err
				}
				content := make(map[string]string, len(res.Items))
				for _, it := range res.Items {
					content[it.VersionID] = it.Content
				}
				a.printTrace(ctx, w, tr, content, true)
				if res.Context != "" {
					fmt.Fprintf(w, "\ncontext:\n%s", res.Context)
				}
			}
			return nil
		},
	}
}

// parseChannels reads --disable.
func parseChannels(s string) ([]string, error) {
	var out []string
	for _, c := range strings.Split(s, ",") {
		c = strings.ToLower(strings.TrimSpace(c))
		if c == "" {
			continue
		}
		known := false
		for _, k := range engine.Channels {
			known = known || c == k
		}
		if !known {
			return nil, usagef("--disable %q: unknown channel %q; the channels are %s", s, c, strings.Join(engine.Channels, ", "))
		}
		out = append(out, c)
	}
	return out, nil
}

// printTrace prints a retrieval's candidates as a table. content holds
// versions' text already at hand; the rest is read from the store.
func (a *app) printTrace(ctx context.Context, w io.Writer, tr *memory.Trace, content map[string]string, onlyUnpacked bool) {
	var rows []memory.TraceItem
	for _, it := range tr.Items {
		if onlyUnpacked && it.Packed {
			continue
		}
		rows = append(rows, it)
	}
	if len(rows) == 0 {
		if onlyUnpacked {
			fmt.Fprintln(w, "\nevery candidate was packed")
		} else {
			fmt.Fprintln(w, "\nno candidates")
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nRANK\tVERSION\tPACKED\tACTION\tFINAL\tFUSED\tCHANNELS\tREASON\tCONTENT")
	for _, it := range rows {
		text, ok := content[it.VersionID]
		if !ok {
			if v, err := a.store.GetVersion(ctx, memory.GetParams{Namespace: tr.Namespace, ID: it.VersionID}); err == nil {
				text = v.Content
			}
		}
		var ch []string
		for _, name := range engine.Channels {
			if h, ok := it.Channels.Get(name); ok {
				ch = append(ch, fmt.Sprintf("%s#%d", name, h.Rank))
			}
		}
		packed := "no"
		if it.Packed {
			packed = "yes"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%.3f\t%.3f\t%s\t%s\t%s\n", it.Rank, it.VersionID, packed, it.Action, it.Final, it.Fused, strings.Join(ch, ","), it.Reason, clip(text, 60))
	}
	tw.Flush()
}

func factsCmd() *command {
	return &command{
		name: "facts", summary: "list distilled facts (current ones; --history adds superseded and expired)",
		readOnly: true,
		help: `Current facts are active or contested. Contested: another value of the slot is held too (a
hedged one), or a later statement said the value changed ("finally ditched Jenkins" after "we
deploy with Jenkins"); 'mnemon explain MEMORY' cites the statement. A confident restatement makes
it active again.
  mnemon facts --subject user
  mnemon facts --history`,
		flags: func(fs *flag.FlagSet, o *options) {
			fs.BoolVar(&o.history, "history", false, "include superseded and expired versions")
			fs.StringVar(&o.subject, "subject", "", "only facts about this `SUBJECT` (e.g. user, atlas)")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 0 {
				return usagef("facts takes no arguments; got %q (use --subject to filter)", strings.Join(args, " "))
			}
			if err := a.open(ctx); err != nil {
				return err
			}
			subject := strings.ToLower(strings.TrimSpace(o.subject))
			vs, err := a.engine.Facts(ctx, engine.FactsParams{Namespace: a.ns, IncludeHistory: o.history, Subject: subject})
			if err != nil {
				return err
			}
			if vs == nil {
				vs = []*memory.Version{}
			}
			if o.json {
				return writeJSON(a.env.Stdout, map[string]any{"facts": vs})
			}
			if len(vs) == 0 {
				about := ""
				if subject != "" {
					about = " about " + subject
				}
				fmt.Fprintf(a.env.Stdout, "no facts%s in namespace %s\n", about, a.ns)
				return nil
			}
			seq := make(map[string]int, len(vs))
			for _, v := range vs {
				seq[v.ID] = v.Seq
			}
			tw := tabwriter.NewWriter(a.env.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "STATUS\tSUBJECT\tKEY\tVALUE\tMEMORY\tV\tCONTENT")
			for _, v := range vs {
				status := string(v.Status)
				if v.SupersededBy != "" {
					if n, ok := seq[v.SupersededBy]; ok {
						status += fmt.Sprintf(" by v%d", n)
					} else {
						status += " by " + v.SupersededBy
					}
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\tv%d\t%s\n", status, v.Subject, v.Key, clip(v.Value, 40), v.MemoryID, v.Seq, clip(v.Content, 100))
			}
			return tw.Flush()
		},
	}
}

func showCmd() *command {
	return &command{
		name: "show", args: "ID", summary: "show a memory (or version, or episode) with every version, its evidence and admission log",
		readOnly: true,
		help: `ID is a memory (mem_…), one of its versions (ver_…, or mem_…@v2 as remember prints it), or an
episode (ep_…), which shows what was decided about the event.`,
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 1 {
				return usagef("show takes one memory, version or episode ID; got %d arguments", len(args))
			}
			if _, err := parseID("show", args[0], ids.Memory, ids.Version, ids.Episode); err != nil {
				return err
			}
			if err := a.open(ctx); err != nil {
				return err
			}
			// The engine resolves every id form (mem_…@v2 too), as GET
			// /v1/memories/{id} does.
			return a.show(ctx, o, strings.TrimSpace(args[0]))
		},
	}
}

// show prints a memory, version or episode.
func (a *app) show(ctx context.Context, o *options, id string) error {
	view, err := a.engine.Show(ctx, a.ns, id)
	if err != nil {
		return notFound(err, id, a.ns)
	}
	if view.Episode != nil {
		return a.showEpisode(o, view)
	}
	sort.SliceStable(view.Admissions, func(i, j int) bool {
		x, y := view.Admissions[i], view.Admissions[j]
		if !x.CreatedAt.Equal(y.CreatedAt) {
			return x.CreatedAt.Before(y.CreatedAt)
		}
		return x.ID < y.ID
	})
	if o.json {
		return writeJSON(a.env.Stdout, view)
	}
	printMemory(a.env.Stdout, view)
	return nil
}

// showEpisode prints an episode and what was decided about it.
func (a *app) showEpisode(o *options, view *engine.MemoryView) error {
	if o.json {
		return writeJSON(a.env.Stdout, view)
	}
	ep, adms := view.Episode, view.Admissions
	w := a.env.Stdout
	fmt.Fprintf(w, "%s  %s  %s said at %s:\n  %q\n", ep.ID, ep.Kind, ep.Speaker, ep.OccurredAt.Format(time.RFC3339), ep.Content)
	if s := scopeString(ep.Scope); s != "" {
		fmt.Fprintf(w, "  scope %s\n", s)
	}
	if len(adms) == 0 {
		return nil
	}
	fmt.Fprintln(w, "  decisions:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, ad := range adms {
		ref := ad.MemoryID
		if ref == "" {
			ref = "-"
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\t[%s]\n", ad.Decision, firstNonEmpty(string(ad.Operation), "-"), ref, clip(ad.Content, 80), strings.Join(ad.Reasons, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, ad := range adms {
		if len(ad.Models) > 0 {
			fmt.Fprintln(w, "  extraction's model calls:")
			printModelUsage(w, "    ", ad.Models)
		}
	}
	return nil
}

// printModelUsage prints what model calls cost a retrieval or an
// extraction, one line per model and endpoint.
func printModelUsage(w io.Writer, indent string, ms []memory.ModelUsage) {
	for _, m := range ms {
		fmt.Fprintf(w, "%s%s %s: %s", indent, m.Model, m.Endpoint, plural(m.Calls, "call", "calls"))
		if m.Errors > 0 {
			fmt.Fprintf(w, " (%s)", plural(m.Errors, "failed", "failed"))
		}
		took := time.Duration(m.DurationMicros) * time.Microsecond
		if took >= time.Millisecond {
			took = took.Round(time.Millisecond)
		}
		fmt.Fprintf(w, ", %d tokens in, %d out, %s\n", m.TokensIn, m.TokensOut, took)
	}
}

func scopeString(s memory.Scope) string {
	var parts []string
	for _, f := range []struct{ name, v string }{{"agent", s.AgentID}, {"user", s.UserID}, {"project", s.ProjectID}, {"session", s.SessionID}} {
		if f.v != "" {
			parts = append(parts, f.name+"="+f.v)
		}
	}
	return strings.Join(parts, " ")
}

func printMemory(w io.Writer, view *engine.MemoryView) {
	m := view.Memory
	fmt.Fprintf(w, "%s  %s  subject=%s key=%s", m.ID, m.Kind, m.Subject, m.Key)
	if s := scopeString(m.Scope); s != "" {
		fmt.Fprintf(w, " %s", s)
	}
	fmt.Fprintln(w)
	for _, v := range view.Versions {
		to := "now"
		if v.ValidTo != nil {
			to = v.ValidTo.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "  v%d %s  %-11s  %-9s  %q\n", v.Seq, v.ID, v.Status, v.Operation, v.Content)
		fmt.Fprintf(w, "     value=%q type=%s criticality=%s confidence=%.2f usefulness=%.2f trust=%.2f reinforced=%d\n", v.Value, v.Type, v.Criticality, v.Confidence, v.Usefulness, v.Trust, v.ReinforcementCount)
		fmt.Fprintf(w, "     observed %s, recorded %s, valid %s → %s\n", v.ObservedAt.Format(time.RFC3339), v.RecordedAt.Format(time.RFC3339), v.ValidFrom.Format(time.RFC3339), to)
		if v.SupersededBy != "" {
			by := v.SupersededBy
			for _, o := range view.Versions {
				if o.ID == v.SupersededBy {
					by = fmt.Sprintf("v%d (%s)", o.Seq, o.ID)
				}
			}
			fmt.Fprintf(w, "     superseded by %s\n", by)
		}
		fmt.Fprintf(w, "     evidence %s; extractor %s, embedder %s (%d dims)\n", strings.Join(v.EvidenceEpisodeIDs, ", "), v.Provenance.Extractor, v.Provenance.Embedder, v.Provenance.EmbedderDim)
	}
	if len(view.Episodes) > 0 {
		fmt.Fprintln(w, "  evidence:")
		for _, ep := range view.Episodes {
			fmt.Fprintf(w, "    %s %s %s: %q\n", ep.ID, ep.OccurredAt.Format(time.RFC3339), ep.Speaker, ep.Content)
		}
	}
	if len(view.Admissions) > 0 {
		fmt.Fprintln(w, "  admission log:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, ad := range view.Admissions {
			detail := ""
			if ad.Extractor == engine.ChangeExtractor {
				detail = " " + ad.Content // the statement that says the value changed
			}
			fmt.Fprintf(tw, "    %s\t%s\t%s\t[%s]%s\n", ad.CreatedAt.Format(time.RFC3339), ad.Decision, firstNonEmpty(string(ad.Operation), "-"), strings.Join(ad.Reasons, ", "), detail)
		}
		tw.Flush()
	}
}

func explainCmd() *command {
	return &command{
		name: "explain", args: "ID", summary: "explain why a memory is stored, or why a retrieval ranked what it did",
		readOnly: true,
		help: `With a memory or version id: its versions, evidence, admission reasons, reconciliation
operations and superseded-by chain, and how feedback moved its usefulness and trust (with
the trust retrieval acts on now, its uncertainty and FOLLOW, HINT or IGNORE).
With an episode id (ep_…): what was decided about the event.
With a retrieval id (ret_…, printed by every recall): every candidate, each channel's rank and
score, why it was or was not packed, and the feedback the retrieval received.
--json prints the structured explanation GET /v1/memories/{id}/explain serves.`,
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 1 {
				return usagef("explain takes one memory, version, episode or retrieval ID; got %d arguments", len(args))
			}
			id, err := parseID("explain", args[0], ids.Memory, ids.Version, ids.Episode, ids.Retrieval)
			if err != nil {
				return err
			}
			if err := a.open(ctx); err != nil {
				return err
			}
			if ids.HasPrefix(id, ids.Episode) {
				return a.show(ctx, o, id)
			}
			ex, err := a.engine.Explain(ctx, a.ns, id)
			if err != nil {
				return notFound(err, id, a.ns)
			}
			if o.json {
				return writeJSON(a.env.Stdout, ex)
			}
			if ex.Memory != nil {
				if err := a.show(ctx, o, id); err != nil {
					return err
				}
				printWhy(a.env.Stdout, ex.Memory)
				return nil
			}
			tr := ex.Retrieval.Trace
			w := a.env.Stdout
			fmt.Fprintf(w, "retrieval %s  %q\n", tr.ID, tr.Query)
			fmt.Fprintf(w, "  at %s · k %d · %d/%d tokens · %s · %dµs", tr.CreatedAt.Format(time.RFC3339), tr.Limit, tr.TokensUsed, tr.TokenBudget, plural(len(tr.Items), "candidate", "candidates"), tr.DurationMicros)
			if tr.AsOf != nil {
				fmt.Fprintf(w, " · as of %s", tr.AsOf.Format(time.RFC3339))
			}
			if tr.IncludeHistory {
				fmt.Fprint(w, " · with history")
			}
			if s := scopeString(tr.Scope); s != "" {
				fmt.Fprintf(w, " · %s", s)
			}
			fmt.Fprintln(w)
			if len(tr.Notes) > 0 {
				fmt.Fprintln(w, "  notes:")
				for _, n := range tr.Notes {
					fmt.Fprintf(w, "    %s\n", n)
				}
			}
			if len(tr.Models) > 0 {
				fmt.Fprintln(w, "  model calls:")
				printModelUsage(w, "    ", tr.Models)
			}
			a.printTrace(ctx, w, tr, nil, false)
			var why []string
			for _, it := range tr.Items {
				if it.Explanation != "" {
					why = append(why, fmt.Sprintf("%d. %s: %s", it.Rank, it.VersionID, it.Explanation))
				}
			}
			if len(why) > 0 {
				fmt.Fprintf(w, "\nwhy:\n%s\n", strings.Join(why, "\n"))
			}
			printRetrievalFeedback(w, ex.Retrieval.Feedback)
			return nil
		},
	}
}

func forgetCmd() *command {
	return &command{
		name: "forget", args: "ID", summary: "forget a memory: it and the statements it came from leave retrieval (kept as tombstones)",
		help: `ID is a memory (mem_…) or any of its versions (ver_…, or mem_…@v2): the whole memory is forgotten.`,
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 1 {
				return usagef("forget takes one memory or version ID; got %d arguments", len(args))
			}
			id, err := parseID("forget", args[0], ids.Memory, ids.Version)
			if err != nil {
				return err
			}
			if err := a.open(ctx); err != nil {
				return err
			}
			res, err := a.engine.Forget(ctx, a.ns, id)
			if err != nil {
				return notFound(err, id, a.ns)
			}
			if o.json {
				return writeJSON(a.env.Stdout, res)
			}
			w := a.env.Stdout
			if len(res.Versions) == 0 && len(res.Episodes) == 0 {
				fmt.Fprintf(w, "%s was already forgotten; nothing changed\n", res.MemoryID)
				return nil
			}
			fmt.Fprintf(w, "forgot %s (%s)\n", res.MemoryID, plural(len(res.Versions), "version", "versions"))
			if len(res.Episodes) > 0 {
				fmt.Fprintf(w, "and the %s it was learned from, which recall no longer serves\n", plural(len(res.Episodes), "statement", "statements"))
			}
			return nil
		},
	}
}

// statuses lists version statuses in the order stats prints them.
var statuses = []memory.Status{memory.StatusActive, memory.StatusContested, memory.StatusSuperseded, memory.StatusExpired, memory.StatusDeleted, memory.StatusQuarantined, memory.StatusCandidate}

func statsCmd() *command {
	return &command{
		name: "stats", summary: "count episodes, memories, versions by status, traces",
		readOnly: true,
		flags: func(fs *flag.FlagSet, o *options) {
			fs.BoolVar(&o.all, "all", false, "one row per namespace in the database")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 0 {
				return usagef("stats takes no arguments; got %q", strings.Join(args, " "))
			}
			if err := a.open(ctx); err != nil {
				return err
			}
			if o.all {
				return a.statsAll(ctx, o)
			}
			s, err := a.engine.Stats(ctx, a.ns)
			if err != nil {
				return err
			}
			if o.json {
				return writeJSON(a.env.Stdout, s)
			}
			tw := tabwriter.NewWriter(a.env.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "namespace\t%s\nepisodes\t%d\nmemories\t%d\n", s.Namespace, s.Episodes, s.Memories)
			for _, st := range statuses {
				if n := s.Versions[st]; n > 0 {
					fmt.Fprintf(tw, "  %s\t%d\n", st, n)
				}
			}
			fmt.Fprintf(tw, "indexed\t%d\nadmissions\t%d\ntraces\t%d\n", s.Indexed, s.Admissions, s.Traces)
			return tw.Flush()
		},
	}
}

func (a *app) statsAll(ctx context.Context, o *options) error {
	names, err := a.store.Namespaces(ctx)
	if err != nil {
		return err
	}
	all := make([]*memory.Stats, 0, len(names))
	for _, ns := range names {
		s, err := a.store.Stats(ctx, memory.StatsParams{Namespace: ns})
		if err != nil {
			return err
		}
		all = append(all, s)
	}
	if o.json {
		return writeJSON(a.env.Stdout, map[string]any{"namespaces": all})
	}
	if len(all) == 0 {
		fmt.Fprintln(a.env.Stdout, "the database is empty")
		return nil
	}
	// Only the statuses some namespace has get a column.
	var cols []memory.Status
	for _, st := range statuses {
		for _, s := range all {
			if s.Versions[st] > 0 {
				cols = append(cols, st)
				break
			}
		}
	}
	tw := tabwriter.NewWriter(a.env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "NAMESPACE\tEPISODES\tMEMORIES")
	for _, st := range cols {
		fmt.Fprintf(tw, "\t%s", strings.ToUpper(string(st)))
	}
	fmt.Fprintln(tw, "\tADMISSIONS\tTRACES")
	for _, s := range all {
		fmt.Fprintf(tw, "%s\t%d\t%d", s.Namespace, s.Episodes, s.Memories)
		for _, st := range cols {
			fmt.Fprintf(tw, "\t%d", s.Versions[st])
		}
		fmt.Fprintf(tw, "\t%d\t%d\n", s.Admissions, s.Traces)
	}
	return tw.Flush()
}

func exportCmd() *command {
	return &command{
		name: "export", summary: "write a namespace as JSON lines (lossless; re-importable into any namespace)",
		readOnly: true,
		help: `Writes to standard output, or to --out FILE (readable by you only; replaced whole, never
left half-written).
  mnemon export --out backup.jsonl
  mnemon export | mnemon --namespace copy import`,
		flags: func(fs *flag.FlagSet, o *options) {
			fs.StringVar(&o.out, "out", "", "`FILE` to write (default standard output)")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 0 {
				return usagef("export takes no arguments; use --out FILE")
			}
			if o.out == "" && o.outSet {
				return usagef("export: --out needs a file name; leave it out to write to standard output")
			}
			if err := a.open(ctx); err != nil {
				return err
			}
			var (
				s   *engine.ExportStats
				err error
			)
			if o.out == "" {
				s, err = a.engine.Export(ctx, a.ns, a.env.Stdout)
			} else {
				s, err = a.exportFile(ctx, o.out)
			}
			if errors.Is(err, memory.ErrCorrupt) {
				written := "what it wrote is incomplete: do not import it"
				if o.out != "" {
					written = "nothing was written to " + o.out
				}
				return &failure{msg: fmt.Sprintf("export: the database is damaged (%s) and cannot be exported whole; %s. "+
					"'mnemon doctor' says what to do", damage(err), written), code: 1, err: err}
			}
			if err != nil {
				return err
			}
			if o.json && o.out != "" {
				return writeJSON(a.env.Stdout, s)
			}
			msg := fmt.Sprintf("exported %s from namespace %s", exportCounts(s), a.ns)
			if o.out != "" {
				msg += " to " + o.out
			}
			fmt.Fprintln(a.env.Stderr, msg)
			return nil
		},
	}
}

// exportCounts says what an export or import carried: always the rows,
// and the learning state (feedback, consolidation records, procedure uses)
// when there is some.
func exportCounts(s *engine.ExportStats) string {
	parts := []string{
		plural(s.Memories, "memory", "memories"), plural(s.Versions, "version", "versions"),
		plural(s.Episodes, "episode", "episodes"), plural(s.Admissions, "admission", "admissions"),
		plural(s.Traces, "trace", "traces"),
	}
	for _, c := range []struct {
		n         int
		one, many string
	}{
		{s.Feedback, "feedback event", "feedback events"},
		{s.SessionSummaries, "session summary", "session summaries"},
		{s.EpisodeStubs, "episode stub", "episode stubs"},
		{s.ProcedureUses, "procedure use", "procedure uses"},
		{s.Extracted, "pending episode extracted", "pending episodes extracted"},
	} {
		if c.n > 0 {
			parts = append(parts, plural(c.n, c.one, c.many))
		}
	}
	return strings.Join(parts, ", ")
}

// exportFile writes the export next to path and renames it into place, so
// a failed export never leaves a truncated file under the name asked for.
func (a *app) exportFile(ctx context.Context, path string) (*engine.ExportStats, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, usagef("export: --out %s is a directory; name a file, e.g. --out %s", path, filepath.Join(path, a.ns+".jsonl"))
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, usagef("export: cannot write %s: the directory %s does not exist", path, dir)
		case errors.Is(err, os.ErrPermission):
			return nil, &failure{msg: fmt.Sprintf("export: cannot write %s: permission denied in %s", path, dir), code: 1, err: err}
		}
		return nil, fmt.Errorf("export: cannot write %s: %w", path, err)
	}
	tmp := f.Name()
	s, err := a.engine.Export(ctx, a.ns, f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("export: %w", cerr)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	return s, nil
}

// countingReader notes whether anything but white space went through it.
type countingReader struct {
	r        io.Reader
	nonBlank bool
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if !c.nonBlank && strings.TrimSpace(string(p[:n])) != "" {
		c.nonBlank = true
	}
	return n, err
}

func importCmd() *command {
	return &command{
		name: "import", args: "[FILE|-]", summary: "read an export into this namespace, all or nothing",
		creates: true,
		help: `Reads a file written by 'mnemon export' (standard input when FILE is absent or "-") into the
namespace given by --namespace, whatever namespace it was exported from. Import adds records: it
does not merge, so import into a new or empty namespace.
  mnemon --namespace restored import backup.jsonl`,
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) > 1 {
				return usagef("import takes at most one FILE; got %d arguments", len(args))
			}
			in, name, closeIn, err := openInput(a.env.Stdin, args, "import", "mnemon import backup.jsonl")
			if err != nil {
				return err
			}
			defer closeIn()
			if err := a.open(ctx); err != nil {
				return err
			}
			cr := &countingReader{r: in}
			s, err := a.engine.Import(ctx, a.ns, cr)
			if err != nil {
				switch {
				case errors.Is(err, memory.ErrInvalid):
					msg, _ := describe(ctx, err)
					return usagef("import: %s: %s; import reads files written by 'mnemon export'; nothing was imported", name, msg)
				case errors.Is(err, memory.ErrConflict):
					return &failure{msg: fmt.Sprintf("import: namespace %s already holds memories with the same ids or slots as %s; nothing was imported; import into a new namespace with --namespace NAME", a.ns, name), code: 1, err: err}
				}
				return err
			}
			if !cr.nonBlank {
				return usagef("import: %s is empty; give a file written by 'mnemon export'", name)
			}
			if o.json {
				return writeJSON(a.env.Stdout, s)
			}
			fmt.Fprintf(a.env.Stdout, "imported %s into namespace %s\n", exportCounts(s), a.ns)
			return nil
		},
	}
}

func versionCmd() *command {
	return &command{
		name: "version", summary: "print the version", noStore: true,
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 0 {
				return usagef("version takes no arguments")
			}
			if o.json {
				return writeJSON(a.env.Stdout, map[string]string{"version": Version})
			}
			fmt.Fprintln(a.env.Stdout, "mnemon", Version)
			return nil
		},
	}
}
