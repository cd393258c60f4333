package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/engine"
	"github.com/mnemon-dev/mnemon/internal/clock"
	"github.com/mnemon-dev/mnemon/memory"
)

// learned is a namespace with learning state beside its memories: feedback
// on a fact, sessions consolidated in every stage of forgetting, and a
// procedure whose use by a failing session was counted.
type learned struct {
	fact      string   // the Lisbon fact's memory id
	retrieval string   // the retrieval the feedback judged
	procedure string   // the procedure's memory id
	purged    []string // s-old: summarised, forgotten, purged
	faded     []string // s-faded: summarised and forgotten, not purged yet
	kept      []string // s-mid: summarised, still served
}

func (l learned) episodes() []string { return slices.Concat(l.purged, l.faded, l.kept) }

func buildLearned(t *testing.T, e *engine.Engine, clk *clock.Manual, ns string) learned {
	t.Helper()
	ctx := context.Background()
	var l learned

	// s-old is summarised now, forgotten 160 days later, purged 31 days
	// after that.
	start := clk.Now().Add(-10 * day)
	l.purged = captureSession(t, e, ns, "s-old", start, editorSession...)
	consolidateDue(t, e, ns)
	clk.Set(start.Add(170 * day))
	if rep := consolidateDue(t, e, ns); len(rep.Forgotten) != len(l.purged) {
		t.Fatalf("s-old not forgotten: %+v", rep)
	}
	clk.Advance(31 * day)
	// s-faded happened long ago: summarised and forgotten in this run;
	// s-mid is recent enough to stay served.
	l.faded = captureSession(t, e, ns, "s-faded", clk.Now().Add(-140*day), "The lobby plant needs watering on Thursdays.")
	l.kept = captureSession(t, e, ns, "s-mid", clk.Now().Add(-10*day), "We decided to deploy with Kubernetes.", "agent: Noted, Kubernetes it is.")
	rep := consolidateDue(t, e, ns)
	if len(rep.Sessions) != 2 || len(rep.Purged) != len(l.purged) || len(rep.Forgotten) != len(l.faded) {
		t.Fatalf("second run: %+v", rep)
	}

	// Feedback on a fact: two events with their usefulness and trust.
	l.fact = remember(t, e, ns, "I live in Lisbon.", clk.Now()).Outcomes[0].MemoryID
	res := retrieve(t, e, engine.RetrieveParams{Namespace: ns, Query: "where does the user live?"})
	l.retrieval = res.RetrievalID
	for _, p := range []engine.FeedbackParams{
		{Outcome: memory.OutcomeHelpful, MemoryIDs: []string{l.fact}, Output: "You live in Lisbon."},
		{Outcome: memory.OutcomeHarmful, MemoryIDs: []string{l.fact}, Severity: ptrTo(0.5), Source: memory.SourceUser},
	} {
		p.Namespace, p.RetrievalID = ns, res.RetrievalID
		if _, err := e.Feedback(ctx, p); err != nil {
			t.Fatal(err)
		}
	}

	// A procedure, used by a session that failed (counted) and one that
	// never reported (pending).
	for i := range 3 {
		deploySession(t, e, clk, ns, fmt.Sprintf("s%d", i), "success")
	}
	promote(t, e, ns)
	l.procedure = procedures(t, e, ns)[0].MemoryID
	clk.Advance(time.Hour)
	for _, session := range []string{"bad", "quiet"} {
		clk.Advance(time.Minute)
		res := retrieve(t, e, engine.RetrieveParams{Namespace: ns, Query: "how do I deploy atlas", Scope: memory.Scope{AgentID: "ops", SessionID: session}})
		if !slices.ContainsFunc(res.Items, func(it engine.Item) bool { return it.MemoryID == l.procedure }) {
			t.Fatalf("procedure not packed in session %s", session)
		}
	}
	deploySession(t, e, clk, ns, "bad", "failure")
	if rep := promote(t, e, ns); len(rep.Failures) != 1 {
		t.Fatalf("failing session not counted: %+v", rep)
	}
	return l
}

func consolidateDue(t *testing.T, e *engine.Engine, ns string) *engine.ConsolidateReport {
	t.Helper()
	rep, err := e.ConsolidateDue(context.Background(), ns)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// asJSON renders v with namespace ns shown as "*", so the same state in two
// namespaces compares equal.
func asJSON(t *testing.T, v any, ns string) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), `"namespace":"`+ns+`"`, `"namespace":"*"`)
}

// learningState reads back everything the learning state shows.
func learningState(t *testing.T, e *engine.Engine, st memory.Store, ns string, l learned) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	get := func(name string, v any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = asJSON(t, v, ns)
	}
	ex, err := e.Explain(ctx, ns, l.fact)
	get("explain fact", ex, err)
	ex, err = e.Explain(ctx, ns, l.retrieval)
	get("explain retrieval", ex, err)
	stubs, err := e.EpisodeStubs(ctx, ns, l.episodes())
	get("episode stubs", stubs, err)
	sums, err := st.ListSessionSummaries(ctx, memory.ListSessionSummariesParams{Namespace: ns})
	get("session summaries", sums, err)
	uses, err := st.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: ns})
	get("procedure uses", uses, err)
	cursor, err := st.ProcedureCursor(ctx, memory.ScanParams{Namespace: ns})
	get("procedure cursor", cursor, err)
	ps, err := e.Procedures(ctx, ns)
	get("procedures", ps, err)
	return out
}

// TestExportImportLearningState: feedback, consolidation records and
// procedure uses survive export and import, into a fresh store under the
// same namespace and into another namespace of the same store, and the
// imported namespaces go on learning where the original left off.
func TestExportImportLearningState(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ctx := context.Background()
	l := buildLearned(t, e, clk, "src")
	var dump bytes.Buffer
	stats, err := e.Export(ctx, "src", &dump)
	if err != nil {
		t.Fatal(err)
	}
	// Two feedback events (helpful, harmful); three summarised sessions;
	// stubs for s-faded and s-mid (s-old's were purged: its episode rows
	// answer for it); two procedure uses (bad, quiet).
	if stats.Feedback != 2 || stats.SessionSummaries != 3 || stats.EpisodeStubs != len(l.faded)+len(l.kept) || stats.ProcedureUses != 2 {
		t.Fatalf("export stats %+v", stats)
	}
	want := learningState(t, e, st, "src", l)
	if !strings.Contains(want["explain fact"], `"outcome":"harmful"`) || !strings.Contains(want["episode stubs"], `"forgotten_at"`) ||
		!strings.Contains(want["procedure uses"], `"outcome":"failure"`) {
		t.Fatalf("the source lacks the state under test:\n%v", want)
	}

	e2, clk2, st2 := newEngine(t)
	clk2.Set(clk.Now()) // trust and staleness are read at the same instant
	for _, target := range []struct {
		name string
		e    *engine.Engine
		st   memory.Store
		ns   string
	}{
		{"fresh store", e2, st2, "src"},
		{"another namespace", e, st, "copy"},
	} {
		t.Run(target.name, func(t *testing.T) {
			e, st, ns := target.e, target.st, target.ns
			got, err := e.Import(ctx, ns, bytes.NewReader(dump.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if *got != *stats {
				t.Errorf("import stats %+v, export stats %+v", got, stats)
			}
			have := learningState(t, e, st, ns, l)
			for name, w := range want {
				if have[name] != w {
					t.Errorf("%s after import:\n got %s\nwant %s", name, have[name], w)
				}
			}
			if !strings.Contains(have["explain fact"], "harmful from user on "+l.retrieval) {
				t.Errorf("explain's feedback history is not back: %s", have["explain fact"])
			}
			// Exported again, it is the same export.
			var again bytes.Buffer
			if _, err := e.Export(ctx, ns, &again); err != nil {
				t.Fatal(err)
			}
			a, b := records(t, dump.Bytes(), "src"), records(t, again.Bytes(), ns)
			if !slices.Equal(a, b) {
				t.Errorf("re-export differs: %d records, then %d", len(a), len(b))
			}

			// Consolidation goes on where it was: every session is
			// covered, nothing new is forgotten or purged, no summary is
			// written again.
			for _, s := range []string{"s-old", "s-faded", "s-mid"} {
				rep, err := e.ConsolidateSession(ctx, ns, s, engine.ConsolidateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Sessions[0].Status != engine.SessionUnchanged || len(rep.Forgotten)+len(rep.Purged) != 0 {
					t.Errorf("consolidating %s again: %+v", s, rep)
				}
			}
			if rep := consolidateDue(t, e, ns); len(rep.Sessions)+len(rep.Forgotten)+len(rep.Purged) != 0 {
				t.Errorf("consolidate due after import: %+v", rep)
			}
			// Promotion neither counts the failing session again nor
			// reads again the traces it had read.
			rep := promote(t, e, ns)
			if wrote(rep) || rep.TracesRead > 1 {
				t.Errorf("promotion after import: %+v", rep)
			}
			if after := learningState(t, e, st, ns, l); after["procedure uses"] != want["procedure uses"] {
				t.Errorf("uses moved:\n got %s\nwant %s", after["procedure uses"], want["procedure uses"])
			}
		})
	}

	// The fading s-faded episode is purged on schedule in the copy, as in
	// the original: 30 days after it was forgotten, not after the import.
	clk.Advance(30 * day)
	for _, ns := range []string{"src", "copy"} {
		if rep := consolidateDue(t, e, ns); !slices.Equal(rep.Purged, l.faded) {
			t.Errorf("%s: purged %v, want %v", ns, rep.Purged, l.faded)
		}
	}
}

// TestImportOlderExport: an export written before the learning state was
// exported still imports; that state starts empty.
func TestImportOlderExport(t *testing.T) {
	t.Parallel()
	e, clk, _ := newEngine(t)
	ctx := context.Background()
	l := buildLearned(t, e, clk, "src")
	var dump bytes.Buffer
	if _, err := e.Export(ctx, "src", &dump); err != nil {
		t.Fatal(err)
	}
	old := withoutLearning(t, dump.Bytes())
	stats, err := e.Import(ctx, "copy", bytes.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	if stats.Memories == 0 || stats.Feedback+stats.SessionSummaries+stats.EpisodeStubs+stats.ProcedureUses != 0 {
		t.Fatalf("import stats %+v", stats)
	}
	ex, err := e.Explain(ctx, "copy", l.fact)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range ex.Memory.Versions {
		if len(v.Feedback) != 0 {
			t.Errorf("feedback from nowhere: %+v", v.Feedback)
		}
	}
}

// withoutLearning drops the learning state records from an export, as an
// export written before they existed.
func withoutLearning(t *testing.T, dump []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(dump), []byte("\n")) {
		var rec engine.Record
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		switch rec.Record {
		case "feedback", "session_summary", "episode_stub", "procedure_use", "procedure_cursor":
			continue
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// TestImportRefusesBadLearningRecord: a malformed learning state record
// fails the import with ErrInvalid, and nothing of the export is written,
// whether the record is refused as it is read or by the store once the
// rest was written in the transaction.
func TestImportRefusesBadLearningRecord(t *testing.T) {
	t.Parallel()
	e, clk, st := newEngine(t)
	ctx := context.Background()
	buildLearned(t, e, clk, "src")
	var dump bytes.Buffer
	if _, err := e.Export(ctx, "src", &dump); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(dump.Bytes()), []byte("\n"))

	// edit returns the export with the first record of a kind changed by
	// fn (given the row as a map) into the lines fn returns.
	edit := func(kind string, fn func(row map[string]any) []string) []byte {
		var out bytes.Buffer
		done := false
		for _, line := range lines {
			var rec map[string]any
			if err := json.Unmarshal(line, &rec); err != nil {
				t.Fatal(err)
			}
			if rec["record"] != kind || done {
				out.Write(line)
				out.WriteByte('\n')
				continue
			}
			done = true
			row, _ := rec[kind].(map[string]any)
			for _, l := range fn(row) {
				out.WriteString(l)
				out.WriteByte('\n')
			}
		}
		if !done {
			t.Fatalf("the export has no %s record", kind)
		}
		return out.Bytes()
	}
	set := func(kind, field string, v any) []byte {
		return edit(kind, func(row map[string]any) []string {
			row[field] = v
			b, _ := json.Marshal(map[string]any{"record": kind, kind: row})
			return []string{string(b)}
		})
	}
	drop := func(kind, field string) []byte {
		return edit(kind, func(row map[string]any) []string {
			delete(row, field)
			b, _ := json.Marshal(map[string]any{"record": kind, kind: row})
			return []string{string(b)}
		})
	}
	twice := func(kind string) []byte {
		return edit(kind, func(row map[string]any) []string {
			b, _ := json.Marshal(map[string]any{"record": kind, kind: row})
			return []string{string(b), string(b)}
		})
	}
	cursor := func(v string) []byte {
		return edit("procedure_cursor", func(map[string]any) []string {
			return []string{`{"record":"procedure_cursor","traces_at":` + v + `}`}
		})
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"feedback without its row", edit("feedback", func(map[string]any) []string { return []string{`{"record":"feedback"}`} })},
		{"feedback row not an object", edit("feedback", func(map[string]any) []string { return []string{`{"record":"feedback","feedback":[1]}`} })},
		{"feedback with a bad outcome", set("feedback", "outcome", "great")},
		{"feedback with a severity of words", set("feedback", "severity", "high")},
		{"feedback severity above 1", set("feedback", "severity", 2)},
		{"feedback without a version", drop("feedback", "version_id")},
		{"feedback twice", twice("feedback")},
		{"session summary without a memory", drop("session_summary", "memory_id")},
		{"session summary of no episodes", set("session_summary", "episodes", 0)},
		{"session summary twice", twice("session_summary")},
		{"episode stub without an episode", drop("episode_stub", "episode_id")},
		{"episode stub with retention 2", set("episode_stub", "retention", 2)},
		{"episode stub twice", twice("episode_stub")},
		// Checked by the store only, inside the transaction, after every
		// memory and episode was written.
		{"episode stub beyond the storable years", set("episode_stub", "check_at", "9999-01-01T00:00:00Z")},
		{"procedure use settled without a time", drop("procedure_use", "settled_at")},
		{"procedure use with a bad outcome", set("procedure_use", "outcome", "maybe")},
		{"procedure use twice", twice("procedure_use")},
		{"procedure cursor at the zero time", cursor(`"0001-01-01T00:00:00Z"`)},
		{"procedure cursor not a time", cursor(`42`)},
		{"procedure cursor twice", edit("procedure_cursor", func(map[string]any) []string {
			l := `{"record":"procedure_cursor","traces_at":"2026-01-01T00:00:00Z"}`
			return []string{l, l}
		})},
	}
	for i, c := range cases {
		ns := fmt.Sprintf("bad%d", i)
		_, err := e.Import(ctx, ns, bytes.NewReader(c.data))
		if !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", c.name, err)
			continue
		}
		if strings.Contains(err.Error(), "memory.") || strings.Contains(err.Error(), "engine.") {
			t.Errorf("%s: the error names Go types: %v", c.name, err)
		}
		checkNothingImported(t, st, ns)
	}
	// The untouched export imports.
	if _, err := e.Import(ctx, "good", bytes.NewReader(dump.Bytes())); err != nil {
		t.Fatal(err)
	}
}

func checkNothingImported(t *testing.T, st memory.Store, ns string) {
	t.Helper()
	ctx := context.Background()
	s, err := st.Stats(ctx, memory.StatsParams{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	fbs, err := st.ListFeedback(ctx, memory.ListFeedbackParams{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	sums, err := st.ListSessionSummaries(ctx, memory.ListSessionSummariesParams{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	stubs, err := st.ListEpisodeStubs(ctx, memory.ListEpisodeStubsParams{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	uses, err := st.ListProcedureUses(ctx, memory.ListProcedureUsesParams{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	cursor, err := st.ProcedureCursor(ctx, memory.ScanParams{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	if s.Memories+s.Episodes+s.Admissions+s.Traces+len(fbs)+len(sums)+len(stubs)+len(uses) != 0 || !cursor.IsZero() {
		t.Errorf("%s: a refused import left %+v, %d feedback, %d summaries, %d stubs, %d uses, cursor %v",
			ns, s, len(fbs), len(sums), len(stubs), len(uses), cursor)
	}
}
