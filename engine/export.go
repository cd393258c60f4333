package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// ExportFormat is the version of the JSON lines export format.
const ExportFormat = 1

// Record is one line of an export: a header, then one row per line. The
// field named like the record kind holds the row: {"record": "memory",
// "memory": {...}}; a procedure_cursor record holds traces_at.
//
// The learning state (feedback, session_summary, episode_stub,
// procedure_use, procedure_cursor) came after format 1 was first written:
// an export without those records still imports, with that state empty as
// it was then.
type Record struct {
	// Record is the kind: header, memory, version, episode, admission,
	// trace, feedback, session_summary, episode_stub, procedure_use or
	// procedure_cursor.
	Record string `json:"record"`

	// Header fields.
	Format     int        `json:"format,omitempty"`
	Namespace  string     `json:"namespace,omitempty"`
	ExportedAt *time.Time `json:"exported_at,omitempty"`

	Memory         *memory.Memory         `json:"memory,omitempty"`
	Version        *memory.Version        `json:"version,omitempty"`
	Episode        *memory.Episode        `json:"episode,omitempty"`
	Admission      *memory.Admission      `json:"admission,omitempty"`
	Trace          *memory.Trace          `json:"trace,omitempty"`
	Feedback       *memory.Feedback       `json:"feedback,omitempty"`
	SessionSummary *memory.SessionSummary `json:"session_summary,omitempty"`
	EpisodeStub    *memory.EpisodeStub    `json:"episode_stub,omitempty"`
	ProcedureUse   *memory.ProcedureUse   `json:"procedure_use,omitempty"`
	// TracesAt is how far procedural promotion has read the traces
	// (procedure_cursor; one at most, none when it never ran).
	TracesAt *time.Time `json:"traces_at,omitempty"`
}

// ExportStats counts what an export or import carried.
type ExportStats struct {
	Memories         int `json:"memories"`
	Versions         int `json:"versions"`
	Episodes         int `json:"episodes"`
	Admissions       int `json:"admissions"`
	Traces           int `json:"traces"`
	Feedback         int `json:"feedback"`          // feedback events
	SessionSummaries int `json:"session_summaries"` // consolidation records of summarised sessions
	EpisodeStubs     int `json:"episode_stubs"`     // consolidation records of summarised episodes not purged
	ProcedureUses    int `json:"procedure_uses"`
	// Extracted counts episodes an import found unextracted (exported
	// while waiting in a backlog) and extracted after committing.
	Extracted int `json:"extracted,omitempty"`
}

// Export writes a namespace as JSON lines: every memory, version (with its
// embedding), episode, admission and trace, and the learning state kept
// beside them: feedback events, consolidation records (session summaries,
// episode stubs), procedure uses and promotion's trace cursor. Import reads
// it back losslessly.
func (e *Engine) Export(ctx context.Context, ns string, w io.Writer) (*ExportStats, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	e.traces.Flush()
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	now := e.clock.Now()
	stats := &ExportStats{}
	if err := enc.Encode(Record{Record: "header", Format: ExportFormat, Namespace: ns, ExportedAt: &now}); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	// One read transaction: a snapshot, so an extraction that commits
	// while the export runs is in it whole or not at all (an episode's
	// admission without the facts it yielded would import as extracted
	// and lose them).
	err = e.store.ReadTx(ctx, func(rd memory.Executor) error {
		scan := memory.ScanParams{Namespace: ns}
		if err := rd.ScanMemories(ctx, scan, func(m *memory.Memory) error {
			stats.Memories++
			return enc.Encode(Record{Record: "memory", Memory: m})
		}); err != nil {
			return err
		}
		if err := rd.ScanEpisodes(ctx, scan, func(ep *memory.Episode) error {
			stats.Episodes++
			return enc.Encode(Record{Record: "episode", Episode: ep})
		}); err != nil {
			return err
		}
		if err := rd.ScanVersions(ctx, scan, func(v *memory.Version) error {
			stats.Versions++
			return enc.Encode(Record{Record: "version", Version: v})
		}); err != nil {
			return err
		}
		// Oldest first, streamed: the admission log and the traces are
		// the largest parts of a namespace.
		if err := rd.ScanAdmissions(ctx, scan, func(a *memory.Admission) error {
			stats.Admissions++
			return enc.Encode(Record{Record: "admission", Admission: a})
		}); err != nil {
			return err
		}
		if err := rd.ScanTraces(ctx, scan, func(t *memory.Trace) error {
			stats.Traces++
			return enc.Encode(Record{Record: "trace", Trace: t})
		}); err != nil {
			return err
		}
		if err := exportLearning(ctx, rd, ns, enc, stats); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return stats, nil
}

// exportLearning writes the learning state: feedback (oldest first),
// session summaries (by session), episode stubs (by occurred_at), procedure
// uses (by packed_at) and the procedure cursor.
func exportLearning(ctx context.Context, rd memory.Executor, ns string, enc *json.Encoder, stats *ExportStats) error {
	fbs, err := rd.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: ns})
	if err != nil {
		return err
	}
	for _, f := range fbs {
		stats.Feedback++
		if err := enc.Encode(Record{Record: "feedback", Feedback: f}); err != nil {
			return err
		}
	}
	sums, err := rd.ListSessionSummaries(ctx, memory.ListSessionSummariesParams{Namespace: ns})
	if err != nil {
		return err
	}
	for _, s := range sums {
		stats.SessionSummaries++
		if err := enc.Encode(Record{Record: "session_summary", SessionSummary: s}); err != nil {
			return err
		}
	}
	stubs, err := rd.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns})
	if err != nil {
		return err
	}
	for _, s := range stubs {
		stats.EpisodeStubs++
		if err := enc.Encode(Record{Record: "episode_stub", EpisodeStub: s}); err != nil {
			return err
		}
	}
	uses, err := rd.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: ns})
	if err != nil {
		return err
	}
	for _, u := range uses {
		stats.ProcedureUses++
		if err := enc.Encode(Record{Record: "procedure_use", ProcedureUse: u}); err != nil {
			return err
		}
	}
	cursor, err := rd.ProcedureCursor(ctx, memory.ScanParams{Namespace: ns})
	if err != nil {
		return err
	}
	if !cursor.IsZero() {
		return enc.Encode(Record{Record: "procedure_cursor", TracesAt: &cursor})
	}
	return nil
}

// Import reads an export into namespace ns (whatever namespace it was
// exported from) in one transaction: a bad line leaves nothing written.
// Episodes that were exported before their extraction ran (captured, still
// in a backlog) are extracted once the import has committed, so nothing
// captured is left unread; Stats.Extracted counts them.
func (e *Engine) Import(ctx context.Context, ns string, r io.Reader) (*ExportStats, error) {
	stats, pending, err := e.importLocked(ctx, ns, r)
	if err != nil {
		return nil, err
	}
	ns, _ = checkNamespace(ns) // valid: the import went through
	// Imported versions keep their times, older than any dedupe mark a
	// run over the empty namespace left: compare everything next time.
	e.dedupeMarks.Delete(ns)
	for start := 0; start < len(pending); start += MaxEvents {
		res, err := e.Extract(ctx, ExtractJob{Namespace: ns, EpisodeIDs: pending[start:min(start+MaxEvents, len(pending))]})
		if err != nil {
			return stats, fmt.Errorf("import: committed; extracting the %d episodes that arrived unextracted: %w", len(pending), err)
		}
		stats.Extracted += res.Extracted
	}
	return stats, nil
}

// unextracted returns the ids of the episodes with text that no
// extraction has read: every extraction leaves an admission of the episode
// itself (see marksExtraction); a purged episode has neither text nor
// admissions and is not waiting for anything.
func unextracted(eps []*memory.Episode, adms []*memory.Admission) []string {
	done := make(map[string]bool, len(adms))
	for _, a := range adms {
		if marksExtraction(a) {
			done[a.EpisodeID] = true
		}
	}
	var out []string
	for _, ep := range eps {
		if ep.Content != "" && !done[ep.ID] {
			out = append(out, ep.ID)
		}
	}
	return out
}

func (e *Engine) importLocked(ctx context.Context, ns string, r io.Reader) (*ExportStats, []string, error) {
	ns, err := checkNamespace(ns)
	if err != nil {
		return nil, nil, fmt.Errorf("import: %w", err)
	}
	var (
		mems  []*memory.Memory
		vers  []*memory.Version
		eps   []*memory.Episode
		adms  []*memory.Admission
		trs   []*memory.Trace
		learn learningState
		stats ExportStats
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, nil, fmt.Errorf("import: %w", memory.Invalidf("line %d: not a JSON record: %s", lineNo, recordError(err)))
		}
		if err := checkRecordTimes(&rec); err != nil {
			return nil, nil, fmt.Errorf("import: %w", memory.Within(err, "line %d", lineNo))
		}
		switch {
		case rec.Record == "header":
			if rec.Format > ExportFormat {
				return nil, nil, fmt.Errorf("import: %w", memory.Invalidf("export format %d is newer than this mnemon reads (%d)", rec.Format, ExportFormat))
			}
		case rec.Record == "memory" && rec.Memory != nil:
			rec.Memory.Namespace = ns
			mems = append(mems, rec.Memory)
		case rec.Record == "version" && rec.Version != nil:
			rec.Version.Namespace = ns
			vers = append(vers, rec.Version)
		case rec.Record == "episode" && rec.Episode != nil:
			rec.Episode.Namespace = ns
			eps = append(eps, rec.Episode)
		case rec.Record == "admission" && rec.Admission != nil:
			rec.Admission.Namespace = ns
			adms = append(adms, rec.Admission)
		case rec.Record == "trace" && rec.Trace != nil:
			rec.Trace.Namespace = ns
			trs = append(trs, rec.Trace)
		default:
			ok, err := learn.add(ns, &rec)
			if !ok {
				return nil, nil, fmt.Errorf("import: %w", memory.Invalidf("line %d: unknown or empty record %q", lineNo, rec.Record))
			}
			if err != nil {
				return nil, nil, fmt.Errorf("import: %w", memory.Within(err, "line %d", lineNo))
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("import: %w", memory.Within(err, "line %d", lineNo+1))
	}
	// Every version must decode before anything is written: a version the
	// index cannot read would leave the namespace unloadable.
	docs := make([]search.Doc, len(vers))
	for i, v := range vers {
		doc, err := e.index.Doc(v)
		if err != nil {
			return nil, nil, fmt.Errorf("import: %w", memory.Invalidf("version %s: unreadable embedding: %v", v.ID, err))
		}
		docs[i] = doc
	}
	st, unlock, err := e.lockNamespace(ctx, ns)
	if err != nil {
		return nil, nil, fmt.Errorf("import: %w", err)
	}
	defer unlock()
	// An export is a namespace's whole history; merging two histories is
	// not an import, so the target must be empty.
	if have, err := e.store.Stats(ctx, memory.StatsParams{Namespace: ns}); err != nil {
		return nil, nil, fmt.Errorf("import: %w", err)
	} else if have.Episodes > 0 || have.Memories > 0 {
		return nil, nil, fmt.Errorf("import: %w", memory.Conflictf(nil, "namespace %q already holds %d memories and %d episodes", ns, have.Memories, have.Episodes))
	}
	err = e.store.InTx(ctx, func(tx memory.Executor) error {
		for _, m := range mems {
			if err := tx.CreateMemory(ctx, m); err != nil {
				return memory.Within(err, "memory %s", m.ID)
			}
		}
		if len(eps) > 0 {
			if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: eps}); err != nil {
				return err
			}
			// A purged episode is stored as purged: the store keeps what
			// is left of it in its compact form (the SQLite store's
			// archive), as it did in the namespace exported. Capture
			// refuses empty text, so an empty episode is a purged one.
			for _, ep := range eps {
				if ep.Content == "" {
					if err := tx.PurgeEpisodeText(ctx, memory.PurgeEpisodeParams{Namespace: ns, EpisodeID: ep.ID, Metadata: ep.Metadata}); err != nil {
						return memory.Within(err, "episode %s", ep.ID)
					}
				}
			}
		}
		for _, v := range vers {
			if err := tx.CreateVersion(ctx, v); err != nil {
				return memory.Within(err, "version %s", v.ID)
			}
		}
		if len(adms) > 0 {
			if err := tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: adms}); err != nil {
				return err
			}
		}
		for _, t := range trs {
			if err := tx.CreateTrace(ctx, t); err != nil {
				return memory.Within(err, "trace %s", t.ID)
			}
		}
		return learn.write(ctx, tx, ns)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("import: %w", err)
	}
	for i, v := range vers {
		st.Put(v, docs[i])
	}
	st.SortEpisodes()
	stats = ExportStats{Memories: len(mems), Versions: len(vers), Episodes: len(eps), Admissions: len(adms), Traces: len(trs),
		Feedback: len(learn.feedback), SessionSummaries: len(learn.summaries), EpisodeStubs: len(learn.stubs),
		ProcedureUses: len(learn.uses)}
	return &stats, unextracted(eps, adms), nil
}

// learningState is the learning state an import read: checked record by
// record as it is read, written in the import's transaction.
type learningState struct {
	feedback  []*memory.Feedback
	summaries []*memory.SessionSummary
	stubs     []*memory.EpisodeStub
	uses      []*memory.ProcedureUse
	cursor    *time.Time
	seen      map[string]bool // kind and key of each row read: a repeat is invalid
}

// add takes rec, in namespace ns, if it is a learning state record: ok
// says it was one, err that it is invalid (or repeats a row).
func (l *learningState) add(ns string, rec *Record) (ok bool, err error) {
	var key string
	switch {
	case rec.Record == "feedback" && rec.Feedback != nil:
		f := rec.Feedback
		err, key = checkFeedbackRecord(f), f.ID
		f.Namespace = ns
		l.feedback = append(l.feedback, f)
	case rec.Record == "session_summary" && rec.SessionSummary != nil:
		s := rec.SessionSummary
		err, key = checkSummaryRecord(s), s.SessionID
		s.Namespace = ns
		l.summaries = append(l.summaries, s)
	case rec.Record == "episode_stub" && rec.EpisodeStub != nil:
		s := rec.EpisodeStub
		err, key = checkStubRecord(s), s.EpisodeID
		s.Namespace = ns
		l.stubs = append(l.stubs, s)
	case rec.Record == "procedure_use" && rec.ProcedureUse != nil:
		u := rec.ProcedureUse
		err, key = checkUseRecord(u), u.MemoryID+"\x00"+u.SessionID
		u.Namespace = ns
		l.uses = append(l.uses, u)
	case rec.Record == "procedure_cursor" && rec.TracesAt != nil:
		if rec.TracesAt.IsZero() {
			err = memory.Invalidf("procedure_cursor: traces_at is the zero time")
		}
		l.cursor = rec.TracesAt
	default:
		return false, nil
	}
	if err != nil {
		return true, err
	}
	if l.seen == nil {
		l.seen = make(map[string]bool)
	}
	k := rec.Record + "\x00" + key
	if l.seen[k] {
		return true, memory.Invalidf("%s %s", rec.Record, duplicateOf(rec))
	}
	l.seen[k] = true
	return true, nil
}

// duplicateOf says which row a record repeats.
func duplicateOf(rec *Record) string {
	switch {
	case rec.Feedback != nil:
		return fmt.Sprintf("%s appears twice", rec.Feedback.ID)
	case rec.SessionSummary != nil:
		return fmt.Sprintf("of session %q appears twice", rec.SessionSummary.SessionID)
	case rec.EpisodeStub != nil:
		return fmt.Sprintf("of episode %s appears twice", rec.EpisodeStub.EpisodeID)
	case rec.ProcedureUse != nil:
		return fmt.Sprintf("of %s in session %q appears twice", rec.ProcedureUse.MemoryID, rec.ProcedureUse.SessionID)
	}
	return "appears twice"
}

// write stores the learning state through tx.
func (l *learningState) write(ctx context.Context, tx memory.Executor, ns string) error {
	if len(l.feedback) > 0 {
		if err := tx.CreateFeedback(ctx, memory.CreateFeedbackParams{Namespace: ns, Feedback: l.feedback}); err != nil {
			return err
		}
	}
	for _, s := range l.summaries {
		if err := tx.PutSessionSummary(ctx, s); err != nil {
			return memory.Within(err, "session summary %q", s.SessionID)
		}
	}
	if len(l.stubs) > 0 {
		if err := tx.AddEpisodeStubs(ctx, memory.AddEpisodeStubsParams{Namespace: ns, Stubs: l.stubs}); err != nil {
			return err
		}
	}
	if len(l.uses) > 0 {
		if err := tx.RestoreProcedureUses(ctx, memory.RecordProcedureUsesParams{Namespace: ns, Uses: l.uses}); err != nil {
			return err
		}
	}
	if l.cursor != nil {
		return tx.SetProcedureCursor(ctx, memory.SetProcedureCursorParams{Namespace: ns, At: *l.cursor})
	}
	return nil
}

// checkFeedbackRecord checks an imported feedback event as Feedback writes
// them.
func checkFeedbackRecord(f *memory.Feedback) error {
	switch {
	case f.ID == "" || f.RetrievalID == "" || f.MemoryID == "" || f.VersionID == "":
		return memory.Invalidf("feedback %q: id, retrieval_id, memory_id and version_id are required", f.ID)
	case !f.Outcome.Valid():
		return memory.Invalidf("feedback %s: outcome %q: use helpful, unused or harmful", f.ID, f.Outcome)
	case !f.Source.Valid():
		return memory.Invalidf("feedback %s: source %q: use user, agent, tool or evaluator", f.ID, f.Source)
	case f.Severity < 0 || f.Severity > 1:
		return memory.Invalidf("feedback %s: severity %g: use 0 to 1", f.ID, f.Severity)
	case f.StatusAfter == "" || f.CreatedAt.IsZero():
		return memory.Invalidf("feedback %s: status_after and created_at are required", f.ID)
	}
	return nil
}

// checkSummaryRecord checks an imported session summary record.
func checkSummaryRecord(s *memory.SessionSummary) error {
	if err := ValidateSessionID(s.SessionID); err != nil {
		return fmt.Errorf("session_summary: %w", err)
	}
	switch {
	case s.MemoryID == "" || s.VersionID == "":
		return memory.Invalidf("session_summary of session %q: memory_id and version_id are required", s.SessionID)
	case s.Episodes < 1:
		return memory.Invalidf("session_summary of session %q: episodes %d: it covers at least one", s.SessionID, s.Episodes)
	case s.LastAt.IsZero() || s.ConsolidatedAt.IsZero():
		return memory.Invalidf("session_summary of session %q: last_at and consolidated_at are required", s.SessionID)
	}
	return nil
}

// checkStubRecord checks an imported episode stub.
func checkStubRecord(s *memory.EpisodeStub) error {
	switch {
	case s.EpisodeID == "" || s.SessionID == "" || s.SummaryMemoryID == "":
		return memory.Invalidf("episode_stub %q: episode_id, session_id and summary_memory_id are required", s.EpisodeID)
	case s.OccurredAt.IsZero() || s.SummarisedAt.IsZero() || s.CheckAt.IsZero():
		return memory.Invalidf("episode_stub %s: occurred_at, summarised_at and check_at are required", s.EpisodeID)
	case s.Retention < 0 || s.Retention > 1:
		return memory.Invalidf("episode_stub %s: retention %g: use 0 to 1", s.EpisodeID, s.Retention)
	}
	return nil
}

// checkUseRecord checks an imported procedure use.
func checkUseRecord(u *memory.ProcedureUse) error {
	switch {
	case u.MemoryID == "" || u.VersionID == "":
		return memory.Invalidf("procedure_use in session %q: memory_id and version_id are required", u.SessionID)
	case u.PackedAt.IsZero():
		return memory.Invalidf("procedure_use of %s in session %q: packed_at is required", u.MemoryID, u.SessionID)
	}
	switch u.Outcome {
	case memory.OutcomePending:
		if u.SettledAt != nil {
			return memory.Invalidf("procedure_use of %s in session %q: pending, yet settled_at is set", u.MemoryID, u.SessionID)
		}
	case memory.OutcomeSuccess, memory.OutcomeFailure, memory.OutcomeNone:
		if u.SettledAt == nil {
			return memory.Invalidf("procedure_use of %s in session %q: outcome %s without settled_at", u.MemoryID, u.SessionID, u.Outcome)
		}
	default:
		return memory.Invalidf("procedure_use of %s in session %q: outcome %q: use \"\" (pending), success, failure or none", u.MemoryID, u.SessionID, u.Outcome)
	}
	return nil
}

// recordError says why a line is not a record in the terms of the export
// format, never the decoder's Go type names: services pass it to clients.
func recordError(err error) string {
	var (
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntaxErr):
		return "invalid JSON: " + syntaxErr.Error()
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return "a record is a JSON object, not " + article(typeErr.Value)
	case errors.As(err, &typeErr):
		return "field " + typeErr.Field + " cannot be " + article(typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: "):
		return "malformed record"
	}
	return err.Error()
}

// article puts "a" or "an" before a JSON kind ("a number", "an object").
func article(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
