package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

func scopeFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.agent, "agent", "", "scope: agent id")
	fs.StringVar(&o.user, "user", "", "scope: user id")
	fs.StringVar(&o.project, "project", "", "scope: project id")
	fs.StringVar(&o.session, "session", "", "scope: session id")
}

func (o *options) scope() memory.Scope {
	return memory.Scope{AgentID: o.agent, UserID: o.user, ProjectID: o.project, SessionID: o.session}
}

// parseTime accepts RFC 3339 or a plain date.
func parseTime(flagName, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, usagef("--%s %q is not a time; use RFC 3339 (2026-05-01T12:00:00Z) or a date (2026-05-01)", flagName, s)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func rememberCmd() *command {
	return &command{
		name: "remember", args: "TEXT", summary: "store a fact now (extracted, reconciled, versioned)",
		help: `TEXT is read by the built-in extractor: "My favorite editor is Vim", "I live in Lisbon",
"Atlas uses pnpm", "Never commit secrets", "Actually, I switched to Neovim". A later value of the
same fact supersedes the earlier one, which stays as history. Text no rule recognises is kept as a note.
With --key, TEXT is stored as exactly one fact with the given fields.`,
		flags: func(fs *flag.FlagSet, o *options) {
			scopeFlags(fs, o)
			fs.StringVar(&o.speaker, "speaker", "", "who states it; first-person statements are about them (default user)")
			fs.StringVar(&o.typ, "type", "", "with --key: fact, preference, decision, constraint, goal, lesson, procedure, summary")
			fs.StringVar(&o.subject, "subject", "", "with --key: whom or what the fact is about (default the speaker)")
			fs.StringVar(&o.key, "key", "", "store TEXT as one fact in this slot (e.g. prefers:editor)")
			fs.StringVar(&o.value, "value", "", "with --key: the fact's value")
			fs.StringVar(&o.criticality, "criticality", "", "normal, high or must_include")
			fs.Float64Var(&o.confidence, "confidence", 0, "with --key: 0 to 1 (default 0.9)")
			fs.StringVar(&o.observedAt, "observed-at", "", "when it was said (RFC 3339; default now)")
			fs.StringVar(&o.validFrom, "valid-from", "", "with --key: when it became true")
			fs.StringVar(&o.validTo, "valid-to", "", "with --key: when it stops being true")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 1 {
				return usagef("remember takes one TEXT argument (quote it); got %d", len(args))
			}
			observed, err := parseTime("observed-at", o.observedAt)
			if err != nil {
				return err
			}
			from, err := parseTime("valid-from", o.validFrom)
			if err != nil {
				return err
			}
			to, err := parseTime("valid-to", o.validTo)
			if err != nil {
				return err
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
			if p.Key == "" && (o.typ != "" || o.subject != "" || o.value != "" || from != nil || to != nil) {
				return usagef("--type, --subject, --value, --valid-from and --valid-to need --key")
			}
			res, err := a.engine.Remember(ctx, p)
			if err != nil {
				return err
			}
			if o.json {
				return writeJSON(a.env.Stdout, res)
			}
			printOutcomes(a.env.Stdout, res.Outcomes)
			return nil
		},
	}
}

func printOutcomes(w io.Writer, outs []engine.Outcome) {
	if len(outs) == 0 {
		fmt.Fprintln(w, "stored the episode; no fact in it")
		return
	}
	for _, o := range outs {
		switch {
		case o.Version != nil:
			fmt.Fprintf(w, "%-9s %s  %s@v%d  %s  [%s]\n", o.Operation, o.Version.Key, o.MemoryID, o.Version.Seq, o.Content, strings.Join(o.Reasons, ", "))
		default:
			fmt.Fprintf(w, "%-9s %s  %s  [%s]\n", firstNonEmpty(string(o.Operation), strings.ToUpper(string(o.Decision))), "-", o.Content, strings.Join(o.Reasons, ", "))
		}
	}
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
	SessionID string `json:"session_id,omitempty"`
	AgentID   string `json:"agent_id,omitempty"`
	UserID    string `json:"user_id,omitempty"`
	ProjectID string `json:"project_id,omitempty"`
}

// captureBatch is how many events one transaction commits.
const captureBatch = 1000

func captureCmd() *command {
	return &command{
		name: "capture", args: "[FILE|-]", summary: "store events (JSON lines) as episodes and extract memories",
		help: `Each line is one event:
  {"kind":"user_message","content":"I moved to Porto","occurred_at":"2026-05-01T10:00:00Z","speaker":"ana","session_id":"s1"}
kind is one of user_message, agent_message, tool_call, tool_result, user_feedback, task_result,
observation; occurred_at defaults to now; session/agent/user/project ids may also come from flags.
The whole input is checked before anything is written; then it is committed in batches of 1000
events, each batch all-or-nothing. Reads standard input when FILE is absent or "-".`,
		flags: scopeFlags,
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) > 1 {
				return usagef("capture takes at most one FILE; got %d arguments", len(args))
			}
			in := a.env.Stdin
			if len(args) == 1 && args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return fmt.Errorf("capture: %w", err)
				}
				defer f.Close()
				in = f
			}
			groups, order, err := readCapture(in, o.scope())
			if err != nil {
				return err
			}
			var all []string
			total := 0
			for _, sc := range order {
				evs := groups[sc]
				for start := 0; start < len(evs); start += captureBatch {
					end := min(start+captureBatch, len(evs))
					res, err := a.engine.Capture(ctx, engine.CaptureParams{Namespace: a.ns, Scope: sc, Events: evs[start:end]})
					if err != nil {
						return fmt.Errorf("%w (%d events committed before this batch)", err, total)
					}
					total += end - start
					all = append(all, res.EpisodeIDs...)
					if !o.json {
						fmt.Fprintf(a.env.Stderr, "captured %d events\n", total)
					}
				}
			}
			if o.json {
				return writeJSON(a.env.Stdout, map[string]any{"episode_ids": all})
			}
			fmt.Fprintf(a.env.Stdout, "captured %d episodes into namespace %s\n", len(all), a.ns)
			return nil
		},
	}
}

// readCapture reads and checks every line, grouping events by scope in
// first-seen order. Any bad line refuses the whole input.
func readCapture(r io.Reader, base memory.Scope) (map[memory.Scope][]engine.Event, []memory.Scope, error) {
	groups := make(map[memory.Scope][]engine.Event)
	var order []memory.Scope
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), engine.MaxContentBytes*2)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		ev, scope, err := parseCaptureLine([]byte(text), base)
		if err != nil {
			return nil, nil, usagef("capture: line %d: %v; nothing was written", n, err)
		}
		if _, ok := groups[scope]; !ok {
			order = append(order, scope)
		}
		groups[scope] = append(groups[scope], ev)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, usagef("capture: line %d: %v; nothing was written", n+1, err)
	}
	if len(order) == 0 {
		return nil, nil, usagef("capture: no events in the input; send JSON lines like {\"kind\":\"user_message\",\"content\":\"...\"}")
	}
	return groups, order, nil
}

// parseCaptureLine decodes and validates one event line.
func parseCaptureLine(b []byte, base memory.Scope) (engine.Event, memory.Scope, error) {
	var l captureLine
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return engine.Event{}, base, fmt.Errorf("not a valid event: %v", err)
	}
	if dec.More() {
		return engine.Event{}, base, fmt.Errorf("more than one JSON value on the line")
	}
	if !l.Kind.Valid() {
		return engine.Event{}, base, fmt.Errorf("kind %q is not an event kind (user_message, agent_message, tool_call, tool_result, user_feedback, task_result, observation)", l.Kind)
	}
	if strings.TrimSpace(l.Content) == "" {
		return engine.Event{}, base, fmt.Errorf("content is empty")
	}
	if len(l.Content) > engine.MaxContentBytes {
		return engine.Event{}, base, fmt.Errorf("content is %d bytes; the limit is %d", len(l.Content), engine.MaxContentBytes)
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
	return l.Event, scope, nil
}

func recallCmd() *command {
	return &command{
		name: "recall", args: "QUERY", summary: "retrieve the memories that matter for a query, packed into a token budget",
		help: `Runs every channel (critical, structured, lexical, semantic, recent episodes), fuses them,
ranks by utility and packs the best into --budget tokens. Each item says why it is there.
  mnemon recall "which editor does the user prefer?" -k 1
  mnemon recall "where did she live in 2024?" --as-of 2024-06-01
  mnemon recall "which editor did the user use before?" --history`,
		flags: func(fs *flag.FlagSet, o *options) {
			scopeFlags(fs, o)
			fs.IntVar(&o.limit, "k", engine.DefaultLimit, "items to return at most")
			fs.IntVar(&o.budget, "budget", engine.DefaultTokenBudget, "token budget of the packed context (cl100k tokens)")
			fs.BoolVar(&o.explain, "explain", false, "also list candidates that were not packed, and why")
			fs.StringVar(&o.asOf, "as-of", "", "what was true at this time (RFC 3339 or date)")
			fs.BoolVar(&o.history, "history", false, "also serve superseded and expired versions")
			fs.StringVar(&o.task, "task", "", "task type, to favour matching memories")
			fs.StringVar(&o.disable, "disable", "", "comma-separated channels to turn off (ablation)")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 1 {
				return usagef("recall takes one QUERY argument (quote it); got %d", len(args))
			}
			asOf, err := parseTime("as-of", o.asOf)
			if err != nil {
				return err
			}
			p := engine.RetrieveParams{
				Namespace: a.ns, Query: args[0], Limit: o.limit, TokenBudget: o.budget, TaskType: o.task,
				Scope: o.scope(), AsOf: asOf, IncludeHistory: o.history,
			}
			if o.limit <= 0 {
				return usagef("-k %d: use a positive number", o.limit)
			}
			if o.budget <= 0 {
				return usagef("--budget %d: use a positive number of tokens", o.budget)
			}
			if o.disable != "" {
				p.Disable = strings.Split(o.disable, ",")
			}
			res, err := a.engine.Retrieve(ctx, p)
			if err != nil {
				return err
			}
			if o.json {
				if o.explain {
					tr, err := a.engine.Trace(ctx, a.ns, res.RetrievalID)
					if err != nil {
						return err
					}
					return writeJSON(a.env.Stdout, map[string]any{"result": res, "trace": tr})
				}
				return writeJSON(a.env.Stdout, res)
			}
			w := a.env.Stdout
			if len(res.Items) == 0 {
				fmt.Fprintf(w, "nothing found in namespace %s (%d candidates)\n", a.ns, res.Candidates)
			}
			for i, it := range res.Items {
				fmt.Fprintf(w, "%d. [%s %.2f] %s\n", i+1, it.Action, it.Trust, it.Content)
				fmt.Fprintf(w, "   %s %s · %s@v%d · %s · score %.3f · %d tokens\n", it.Kind, it.Type, it.MemoryID, it.Seq, it.Status, it.Score, it.Tokens)
				fmt.Fprintf(w, "   why: %s\n", it.Explanation)
			}
			fmt.Fprintf(w, "\nretrieval %s · %d/%d tokens · %d candidates · %s\n", res.RetrievalID, res.TokensUsed, res.TokenBudget, res.Candidates, res.Duration.Round(time.Microsecond))
			if o.explain {
				tr, err := a.engine.Trace(ctx, a.ns, res.RetrievalID)
				if err != nil {
					return err
				}
				printTrace(w, tr, true)
				fmt.Fprintf(w, "\ncontext:\n%s", res.Context)
			}
			return nil
		},
	}
}

func printTrace(w io.Writer, tr *memory.Trace, onlyUnpacked bool) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nrank\tversion\tpacked\taction\tfinal\tfused\tchannels\treason")
	for _, it := range tr.Items {
		if onlyUnpacked && it.Packed {
			continue
		}
		var ch []string
		for _, name := range engine.Channels {
			if h, ok := it.Channels[name]; ok {
				ch = append(ch, fmt.Sprintf("%s#%d", name, h.Rank))
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%v\t%s\t%.3f\t%.3f\t%s\t%s\n", it.Rank, it.VersionID, it.Packed, it.Action, it.Final, it.Fused, strings.Join(ch, ","), it.Reason)
	}
	tw.Flush()
}

func factsCmd() *command {
	return &command{
		name: "facts", summary: "list distilled facts (current ones; --history adds superseded and expired)",
		flags: func(fs *flag.FlagSet, o *options) {
			fs.BoolVar(&o.history, "history", false, "include superseded and expired versions")
			fs.StringVar(&o.subject, "subject", "", "only facts about this subject")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 0 {
				return usagef("facts takes no arguments; got %q", args)
			}
			vs, err := a.engine.Facts(ctx, engine.FactsParams{Namespace: a.ns, IncludeHistory: o.history, Subject: strings.ToLower(o.subject)})
			if err != nil {
				return err
			}
			if o.json {
				return writeJSON(a.env.Stdout, map[string]any{"facts": vs})
			}
			if len(vs) == 0 {
				fmt.Fprintf(a.env.Stdout, "no facts in namespace %s\n", a.ns)
				return nil
			}
			tw := tabwriter.NewWriter(a.env.Stdout, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "STATUS\tSUBJECT\tKEY\tVALUE\tMEMORY\tV\tCONTENT")
			for _, v := range vs {
				status := string(v.Status)
				if v.SupersededBy != "" {
					status += " by " + v.SupersededBy
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\tv%d\t%s\n", status, v.Subject, v.Key, v.Value, v.MemoryID, v.Seq, v.Content)
			}
			return tw.Flush()
		},
	}
}

func showCmd() *command {
	return &command{
		name: "show", args: "ID", summary: "show a memory (or version) with every version, its evidence and admission log",
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 1 {
				return usagef("show takes one memory or version ID; got %d arguments", len(args))
			}
			view, err := a.engine.Show(ctx, a.ns, args[0])
			if err != nil {
				return err
			}
			if o.json {
				return writeJSON(a.env.Stdout, view)
			}
			printMemory(a.env.Stdout, view)
			return nil
		},
	}
}

func printMemory(w io.Writer, view *engine.MemoryView) {
	m := view.Memory
	fmt.Fprintf(w, "%s  %s  subject=%s key=%s\n", m.ID, m.Kind, m.Subject, m.Key)
	for _, v := range view.Versions {
		to := "now"
		if v.ValidTo != nil {
			to = v.ValidTo.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "  v%d %s %-10s %s  %q\n", v.Seq, v.ID, v.Status, v.Operation, v.Content)
		fmt.Fprintf(w, "     value=%q confidence=%.2f usefulness=%.2f trust=%.2f reinforced=%d\n", v.Value, v.Confidence, v.Usefulness, v.Trust, v.ReinforcementCount)
		fmt.Fprintf(w, "     observed %s, recorded %s, valid %s → %s\n", v.ObservedAt.Format(time.RFC3339), v.RecordedAt.Format(time.RFC3339), v.ValidFrom.Format(time.RFC3339), to)
		if v.SupersededBy != "" {
			fmt.Fprintf(w, "     superseded by %s\n", v.SupersededBy)
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
		for _, ad := range view.Admissions {
			fmt.Fprintf(w, "    %s %s %s [%s]\n", ad.CreatedAt.Format(time.RFC3339), ad.Decision, ad.Operation, strings.Join(ad.Reasons, ", "))
		}
	}
}

func explainCmd() *command {
	return &command{
		name: "explain", args: "ID", summary: "explain why a memory is stored, or why a retrieval ranked what it did",
		help: `With a memory or version id: its versions, evidence, admission reasons and supersede chain.
With a retrieval id (ret_...): every candidate, each channel's rank and score, and why it was or was not packed.`,
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 1 {
				return usagef("explain takes one memory, version or retrieval ID; got %d arguments", len(args))
			}
			id := args[0]
			if ids.HasPrefix(id, ids.Retrieval) {
				tr, err := a.engine.Trace(ctx, a.ns, id)
				if err != nil {
					return err
				}
				if o.json {
					return writeJSON(a.env.Stdout, tr)
				}
				fmt.Fprintf(a.env.Stdout, "retrieval %s  %q  %d/%d tokens, %d candidates, %dµs\n", tr.ID, tr.Query, tr.TokensUsed, tr.TokenBudget, len(tr.Items), tr.DurationMicros)
				printTrace(a.env.Stdout, tr, false)
				for _, it := range tr.Items {
					if it.Explanation != "" {
						fmt.Fprintf(a.env.Stdout, "\n%s: %s", it.VersionID, it.Explanation)
					}
				}
				fmt.Fprintln(a.env.Stdout)
				return nil
			}
			view, err := a.engine.Show(ctx, a.ns, id)
			if err != nil {
				return err
			}
			if o.json {
				return writeJSON(a.env.Stdout, view)
			}
			printMemory(a.env.Stdout, view)
			return nil
		},
	}
}

func forgetCmd() *command {
	return &command{
		name: "forget", args: "ID", summary: "forget a memory: every version leaves retrieval (kept as a tombstone)",
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 1 {
				return usagef("forget takes one memory or version ID; got %d arguments", len(args))
			}
			res, err := a.engine.Forget(ctx, a.ns, args[0])
			if err != nil {
				return err
			}
			if o.json {
				return writeJSON(a.env.Stdout, res)
			}
			fmt.Fprintf(a.env.Stdout, "forgot %s (%d versions)\n", res.MemoryID, len(res.Versions))
			return nil
		},
	}
}

func statsCmd() *command {
	return &command{
		name: "stats", summary: "count episodes, memories, versions by status, traces",
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 0 {
				return usagef("stats takes no arguments")
			}
			s, err := a.engine.Stats(ctx, a.ns)
			if err != nil {
				return err
			}
			if o.json {
				return writeJSON(a.env.Stdout, s)
			}
			w := a.env.Stdout
			fmt.Fprintf(w, "namespace   %s\nepisodes    %d\nmemories    %d\n", s.Namespace, s.Episodes, s.Memories)
			for _, st := range []memory.Status{memory.StatusActive, memory.StatusContested, memory.StatusSuperseded, memory.StatusExpired, memory.StatusDeleted, memory.StatusQuarantined, memory.StatusCandidate} {
				if n := s.Versions[st]; n > 0 {
					fmt.Fprintf(w, "  %-11s %d\n", st, n)
				}
			}
			fmt.Fprintf(w, "indexed     %d\nadmissions  %d\ntraces      %d\n", s.Indexed, s.Admissions, s.Traces)
			return nil
		},
	}
}

func exportCmd() *command {
	return &command{
		name: "export", summary: "write a namespace as JSON lines (lossless; re-importable into any namespace)",
		flags: func(fs *flag.FlagSet, o *options) {
			fs.StringVar(&o.out, "out", "", "file to write (default standard output)")
		},
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) != 0 {
				return usagef("export takes no arguments; use --out FILE")
			}
			w := a.env.Stdout
			var f *os.File
			if o.out != "" {
				var err error
				if f, err = os.Create(o.out); err != nil {
					return fmt.Errorf("export: %w", err)
				}
				w = f
			}
			s, err := a.engine.Export(ctx, a.ns, w)
			if f != nil {
				if cerr := f.Close(); err == nil && cerr != nil {
					err = fmt.Errorf("export: %w", cerr)
				}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(a.env.Stderr, "exported %d memories, %d versions, %d episodes, %d admissions, %d traces\n", s.Memories, s.Versions, s.Episodes, s.Admissions, s.Traces)
			return nil
		},
	}
}

func importCmd() *command {
	return &command{
		name: "import", args: "[FILE|-]", summary: "read an export into this namespace, all or nothing",
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			if len(args) > 1 {
				return usagef("import takes at most one FILE")
			}
			in := a.env.Stdin
			if len(args) == 1 && args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return fmt.Errorf("import: %w", err)
				}
				defer f.Close()
				in = f
			}
			s, err := a.engine.Import(ctx, a.ns, in)
			if err != nil {
				return err
			}
			if o.json {
				return writeJSON(a.env.Stdout, s)
			}
			fmt.Fprintf(a.env.Stdout, "imported %d memories, %d versions, %d episodes, %d admissions, %d traces into %s\n", s.Memories, s.Versions, s.Episodes, s.Admissions, s.Traces, a.ns)
			return nil
		},
	}
}

func versionCmd() *command {
	return &command{
		name: "version", summary: "print the version", noStore: true,
		run: func(ctx context.Context, a *app, o *options, args []string) error {
			fmt.Fprintln(a.env.Stdout, "mnemon", Version)
			return nil
		},
	}
}
