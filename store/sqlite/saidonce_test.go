package sqlite

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/internal/ids"
	"github.com/mnemon-dev/mnemon/memory"
)

// Migration 0027's stored forms read back exactly what was written: an
// episode's recorded_at and a memory's updated_at beside the time they
// nearly always equal (the instant 0 and the zero time included), coded
// speakers, decisions and operations beside names that have no code, and
// a span over all of a version's content beside near misses of one.
func TestSaidOnceRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "once.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1_700_000_000, 7).UTC()
	later := at.Add(40 * time.Microsecond)
	epoch := time.Unix(0, 0).UTC()
	type pair struct {
		name        string
		first, then time.Time
		stored      int64 // the second time's stored value; 1: the time's own nanoseconds
	}
	pairs := []pair{
		{"same", at, at, 0},
		{"later", at, later, 1},
		{"then-epoch", at, epoch, epochNanos},
		{"both-epoch", epoch, epoch, 0},
		{"both-zero", time.Time{}, time.Time{}, 0},
		{"first-zero", time.Time{}, at, 1},
		{"then-zero", at, time.Time{}, zeroTimeNanos},
		{"first-epoch", epoch, at, 1},
	}
	speakerCases := []string{"user", "assistant", "Ines", "\x01odd", "", "\x1fuser"}
	text := "Deploys freeze on Thursday évenings; the release train leaves Friday at nine"
	own := "Ines moved the standup to half past nine, starting next Monday — señor Ruiz agreed"
	err = s.InTx(ctx, func(tx memory.Executor) error {
		var eps []*memory.Episode
		for i, p := range pairs {
			eps = append(eps, &memory.Episode{Namespace: "n", ID: "ep-" + p.name, Kind: memory.EpisodeUserMessage,
				Speaker: speakerCases[i%len(speakerCases)], Content: fmt.Sprint("said ", i), OccurredAt: p.first, RecordedAt: p.then})
			if err := tx.CreateMemory(ctx, &memory.Memory{Namespace: "n", ID: "m-" + p.name, Kind: memory.KindSemantic,
				Subject: "user", Key: p.name, CreatedAt: p.first, UpdatedAt: p.then}); err != nil {
				return err
			}
		}
		return tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: eps})
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pairs {
		ep, err := s.GetEpisode(ctx, memory.GetParams{Namespace: "n", ID: "ep-" + p.name})
		if err != nil || !sameInstant(ep.OccurredAt, p.first) || !sameInstant(ep.RecordedAt, p.then) || ep.Speaker != speakerCases[i%len(speakerCases)] {
			t.Errorf("episode %s: %v %v %q, %v", p.name, ep.OccurredAt, ep.RecordedAt, ep.Speaker, err)
		}
		m, err := s.GetMemory(ctx, memory.GetParams{Namespace: "n", ID: "m-" + p.name})
		if err != nil || !sameInstant(m.CreatedAt, p.first) || !sameInstant(m.UpdatedAt, p.then) {
			t.Errorf("memory %s: %v %v, %v", p.name, m.CreatedAt, m.UpdatedAt, err)
		}
		want := p.stored
		if want == 1 {
			want = p.then.UnixNano()
		}
		for id, q := range map[string]string{
			"ep-" + p.name: `SELECT recorded_at FROM episodes WHERE id = ?`,
			"m-" + p.name:  `SELECT updated_at FROM memories WHERE id = ?`,
		} {
			var got int64
			if err := s.writer.QueryRowContext(ctx, q, id).Scan(&got); err != nil || got != want {
				t.Errorf("%s: stored %d, want %d, %v", id, got, want, err)
			}
		}
	}
	var speakersStored string
	if err := s.writer.QueryRowContext(ctx, `SELECT group_concat(hex(speaker), ',') FROM (SELECT speaker FROM episodes ORDER BY id)`).Scan(&speakersStored); err != nil {
		t.Fatal(err)
	}
	// By id: both-epoch user, both-zero assistant, first-epoch \x1fuser (escaped), first-zero "",
	// later assistant... the codes for user and assistant, the escape before a control character.
	if !strings.Contains(speakersStored, "01,") || !strings.Contains(speakersStored, "02") || !strings.Contains(speakersStored, "1F1F75736572") ||
		!strings.Contains(speakersStored, "1F01") || !strings.Contains(speakersStored, hexOf("Ines")) {
		t.Errorf("stored speakers: %s", speakersStored)
	}

	// Spans: the whole content of the first evidence episode is "~".
	spanCases := []struct {
		id       string
		content  string
		evidence []string
		spans    []memory.Span
		whole    bool
	}{
		{"v-whole", text, []string{"ep-later"}, []memory.Span{{EpisodeID: "ep-later", Start: 0, End: len(text)}}, true},
		{"v-short", text, []string{"ep-later"}, []memory.Span{{EpisodeID: "ep-later", Start: 0, End: len(text) - 1}}, false},
		{"v-runes", text, []string{"ep-later"}, []memory.Span{{EpisodeID: "ep-later", Start: 0, End: len([]rune(text))}}, false},
		{"v-start", text, []string{"ep-later"}, []memory.Span{{EpisodeID: "ep-later", Start: 1, End: len(text)}}, false},
		{"v-second", text, []string{"ep-same", "ep-later"}, []memory.Span{{EpisodeID: "ep-later", Start: 0, End: len(text)}}, false},
		{"v-two", text, []string{"ep-later"}, []memory.Span{{EpisodeID: "ep-later", Start: 0, End: len(text)}, {EpisodeID: "ep-later", Start: 0, End: 3}}, false},
		{"v-none", text, []string{"ep-later"}, nil, false},
		{"v-text", own, []string{"ep-text"}, []memory.Span{{EpisodeID: "ep-text", Start: 0, End: len(own)}}, true}, // content by reference to the episode's
	}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		// Written in this transaction, so a version of its very text refers to it.
		if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: []*memory.Episode{{Namespace: "n", ID: "ep-text",
			Kind: memory.EpisodeUserMessage, Speaker: "\x1fuser", Content: own, OccurredAt: at, RecordedAt: at}}}); err != nil {
			return err
		}
		for i, c := range spanCases {
			m := &memory.Memory{Namespace: "n", ID: "m-" + c.id, Kind: memory.KindSemantic, Subject: "user", Key: c.id, CreatedAt: at, UpdatedAt: at}
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
			v := &memory.Version{Namespace: "n", ID: c.id, MemoryID: m.ID, Seq: 1, Kind: m.Kind, Type: memory.TypeFact, Subject: "user",
				Key: fmt.Sprint("k", i), Content: c.content, Status: memory.StatusActive, Operation: memory.OpAdd,
				ObservedAt: at, RecordedAt: at, ValidFrom: at, UpdatedAt: at, EvidenceEpisodeIDs: c.evidence, EvidenceSpans: c.spans}
			if err := tx.CreateVersion(ctx, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	streamed := map[string]*memory.Version{}
	if err := s.StreamVersions(ctx, memory.ScanParams{Namespace: "n"}, func(v *memory.Version) error { streamed[v.ID] = v; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, c := range spanCases {
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: c.id})
		if err != nil || !reflect.DeepEqual(v.EvidenceSpans, c.spans) || v.Content != c.content {
			t.Errorf("%s: spans %+v, want %+v, %v", c.id, v.EvidenceSpans, c.spans, err)
		}
		if sv := streamed[c.id]; sv == nil || !reflect.DeepEqual(sv.EvidenceSpans, c.spans) {
			t.Errorf("%s streamed: %+v", c.id, sv)
		}
		var stored string
		if err := s.writer.QueryRowContext(ctx, `SELECT evidence_spans FROM versions WHERE id = ?`, c.id).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if (stored == spansWhole) != c.whole {
			t.Errorf("%s: stored spans %q", c.id, stored)
		}
	}
	var shared sql.NullInt64
	if err := s.writer.QueryRowContext(ctx, `SELECT shared FROM versions WHERE id = 'v-text'`).Scan(&shared); err != nil || shared.Int64&8 == 0 {
		t.Errorf("v-text does not refer to its episode's text: %v, %v", shared, err)
	}
	// An update that changes the spans stores them again, either way.
	v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: "v-whole"})
	if err != nil {
		t.Fatal(err)
	}
	for _, spans := range [][]memory.Span{{{EpisodeID: "ep-later", Start: 2, End: 9}}, {{EpisodeID: "ep-later", Start: 0, End: len(text)}}} {
		v.EvidenceSpans = spans
		if err := s.UpdateVersionState(ctx, v); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: "v-whole"})
		if err != nil || !reflect.DeepEqual(got.EvidenceSpans, spans) {
			t.Errorf("after an update to %+v: %+v, %v", spans, got.EvidenceSpans, err)
		}
	}
	// A stored "~" with no evidence episode is refused, not misread.
	if _, err := s.writer.ExecContext(ctx, `UPDATE versions SET evidence_episode_ids = '[]' WHERE id = 'v-none'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.ExecContext(ctx, `UPDATE versions SET evidence_spans = '~' WHERE id = 'v-none'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: "v-none"}); err == nil || !strings.Contains(err.Error(), "whole-content span") {
		t.Errorf("a whole-content span without an episode: %v", err)
	}

	// Admissions: every decision and operation, coded or not.
	decisionsWritten := []memory.AdmissionDecision{memory.AdmitAccept, memory.AdmitDefer, memory.AdmitReject, memory.AdmitQuarantine, "maybe", "\x02x", ""}
	operations := []memory.Operation{memory.OpAdd, memory.OpReinforce, memory.OpSupersede, "", "RENAME", "\x03"}
	var adms []*memory.Admission
	for i, d := range decisionsWritten {
		adms = append(adms, &memory.Admission{ID: fmt.Sprint("adm-", i), Namespace: "n", EpisodeID: "ep-later", MemoryID: "m-same",
			Decision: d, Reasons: []string{"kept_as_note"}, Operation: operations[i%len(operations)], Extractor: "rules",
			CreatedAt: at.Add(time.Duration(i) * time.Second)})
	}
	if err := s.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: "n", Admissions: adms}); err != nil {
		t.Fatal(err)
	}
	var scanned []*memory.Admission
	if err := s.ScanAdmissions(ctx, memory.ScanParams{Namespace: "n"}, func(a *memory.Admission) error { scanned = append(scanned, a); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(scanned) != len(adms) {
		t.Fatalf("scanned %d admissions", len(scanned))
	}
	for i, a := range scanned {
		if a.Decision != adms[i].Decision || a.Operation != adms[i].Operation {
			t.Errorf("%s: %q %q, want %q %q", a.ID, a.Decision, a.Operation, adms[i].Decision, adms[i].Operation)
		}
	}
	for _, d := range decisionsWritten[:6] {
		list, err := s.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "n", Decision: d})
		if err != nil || len(list) != 1 || list[0].Decision != d {
			t.Errorf("admissions of decision %q: %+v, %v", d, list, err)
		}
	}
	var stored string
	if err := s.writer.QueryRowContext(ctx, `SELECT group_concat(hex(decision) || '/' || hex(operation), ',') FROM (SELECT * FROM admissions ORDER BY created_at)`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	want := "01/13,02/14,03/15,04/," + hexOf("maybe") + "/" + hexOf("RENAME") + ",1F02" + hexOf("x") + "/1F03,/13"
	if stored != want {
		t.Errorf("stored decisions and operations: %s, want %s", stored, want)
	}
}

func hexOf(s string) string { return fmt.Sprintf("%X", s) }

// sameInstant compares two times as the store keeps them: the zero time,
// or the same instant.
func sameInstant(a, b time.Time) bool { return a.IsZero() == b.IsZero() && a.Equal(b) }

// Migration 0027 on a store as 0026 left it: the times said twice, speakers,
// decisions and operations as text, spans over all of the content written
// out. After it, every row reads back as before, the second times and the
// whole spans are stored short, the codes are stored, and the queries on
// decisions and on REINFORCE rows (through the remade partial index) find
// the same rows.
func TestMigrationSaidOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	old := openAtSchema(t, path, 26)
	text := "the staging keys rotate monthly, and the runbook says who does it: Zoë"
	n := len(text)
	execAll(t, old,
		fmt.Sprintf(`INSERT INTO episodes VALUES
			('n', 'ep-1', '', '', '', '', 'user_message', 'user', '%[1]s', '', 5, 5, 'h1'),
			('n', 'ep-2', '', '', '', '', 'user_message', 'assistant', 'short', '', 5, 7, 'h2'),
			('n', 'ep-3', '', '', '', '', 'user_message', 'Ines', 'short', '', 5, 0, 'h3'),
			('n', 'ep-4', '', '', '', '', 'user_message', '', 'short', '', 0, 0, 'h4'),
			('other', 'ep-1', '', '', '', '', 'user_message', 'user', 'short', '', %[2]d, %[2]d, 'h5')`, text, zeroTimeNanos),
		fmt.Sprintf(`INSERT INTO memories VALUES
			('n', 'm-1', '', '', '', '', 's', 'user', 'k1', 3, 3, %d),
			('n', 'm-2', '', '', '', '', 's', 'user', 'k2', 3, 4, %d),
			('n', 'm-3', '', '', '', '', 's', 'user', 'k3', 3, 0, %d)`, slotHash("user", "k1"), slotHash("user", "k2"), slotHash("user", "k3")),
	)
	version := func(id, mem string, seq int, content, spans string, shared string) string {
		return fmt.Sprintf(`('n', '%s', '%s', %d, '', '', '', '', 's', 'fact', 'user', 'k', 'v', '%s', 'normal',
			0.8, 0.5, 0.6, 0, 0, 'active', 'ADD', '', 1, 1, 1, NULL, 1, '["ep-1"]', '%s', 'note', '', '', 'emb', 4, 'remember', 3, '', NULL, %s, NULL)`,
			id, mem, seq, content, spans, shared)
	}
	execAll(t, old, `INSERT INTO versions VALUES `+strings.Join([]string{
		version("v-own", "m-1", 1, text, fmt.Sprintf("~0:0:%d", n), "NULL"),
		version("v-ref", "m-2", 1, "", fmt.Sprintf("~0:0:%d", n), "8"), // the text is ep-1's
		version("v-part", "m-3", 1, text, fmt.Sprintf("~0:0:%d", n-1), "NULL"),
		version("v-runes", "m-3", 2, text, fmt.Sprintf("~0:0:%d", len([]rune(text))), "NULL"),
	}, ", "))
	execAll(t, old, `INSERT INTO admissions VALUES
		('n', 'adm-1', 'ep-1', 'm-1', 'v-own', 'accept', 'null', 'ADD', '', 'rules', 10, 1, NULL),
		('n', 'adm-2', 'ep-2', 'm-1', 'v-own', 'accept', 'null', 'REINFORCE', '', 'rules', 11, 1, NULL),
		('n', 'adm-3', 'ep-2', 'm-1', 'v-own', 'accept', 'null', 'REINFORCE', '', 'rules', 12, 1, NULL),
		('n', 'adm-4', 'ep-3', '', '', 'reject', 'null', '', 'not kept', 'rules', 13, NULL, NULL),
		('n', 'adm-5', 'ep-3', '', '', 'quarantine', 'null', 'CONTEST', 'held', 'rules', 14, NULL, NULL),
		('n', 'adm-6', 'ep-4', '', '', 'maybe', 'null', 'RENAME', 'odd', 'rules', 15, NULL, NULL),
		('n', 'adm-7', 'ep-4', '', '', 'defer', 'null', '', 'later', 'episode', 16, NULL, NULL),
		('n', 'adm-8', 'ep-4', 'm-2', 'v-own', 'accept', 'null', 'ADD', '', 'rules', 17, NULL, NULL),
		('n', 'adm-9', 'ep-4', 'm-3', 'v-gone', 'accept', 'null', 'ADD', '', 'rules', 18, NULL, NULL)`)

	// What the old rows read as, through this code's reads of the old forms.
	type snapshot struct {
		eps  map[string]*memory.Episode
		mems map[string]*memory.Memory
		vers map[string]*memory.Version
		adms []*memory.Admission
	}
	read := func(s *Store) snapshot {
		t.Helper()
		snap := snapshot{eps: map[string]*memory.Episode{}, mems: map[string]*memory.Memory{}, vers: map[string]*memory.Version{}}
		for _, ns := range []string{"n", "other"} {
			if err := s.ScanEpisodes(ctx, memory.ScanParams{Namespace: ns}, func(e *memory.Episode) error { snap.eps[ns+"/"+e.ID] = e; return nil }); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.ScanMemories(ctx, memory.ScanParams{Namespace: "n"}, func(m *memory.Memory) error { snap.mems[m.ID] = m; return nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.ScanVersions(ctx, memory.ScanParams{Namespace: "n"}, func(v *memory.Version) error { snap.vers[v.ID] = v; return nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.ScanAdmissions(ctx, memory.ScanParams{Namespace: "n"}, func(a *memory.Admission) error { snap.adms = append(snap.adms, a); return nil }); err != nil {
			t.Fatal(err)
		}
		return snap
	}
	s := migrateOld(t, old, path)
	got := read(s)

	// The values as the old rows said them.
	if e := got.eps["n/ep-1"]; e == nil || e.RecordedAt.UnixNano() != 5 || e.Speaker != "user" || e.Content != text {
		t.Errorf("ep-1: %+v", e)
	}
	if e := got.eps["n/ep-2"]; e == nil || e.RecordedAt.UnixNano() != 7 || e.Speaker != "assistant" {
		t.Errorf("ep-2: %+v", e)
	}
	if e := got.eps["n/ep-3"]; e == nil || !e.RecordedAt.Equal(time.Unix(0, 0)) || e.RecordedAt.IsZero() || e.OccurredAt.UnixNano() != 5 || e.Speaker != "Ines" {
		t.Errorf("ep-3: %+v", e)
	}
	if e := got.eps["n/ep-4"]; e == nil || e.RecordedAt.UnixNano() != 0 || e.OccurredAt.UnixNano() != 0 || e.Speaker != "" {
		t.Errorf("ep-4: %+v", e)
	}
	if e := got.eps["other/ep-1"]; e == nil || !e.RecordedAt.IsZero() || !e.OccurredAt.IsZero() {
		t.Errorf("other/ep-1: %+v", e)
	}
	for id, want := range map[string]int64{"m-1": 3, "m-2": 4, "m-3": 0} {
		if m := got.mems[id]; m == nil || m.UpdatedAt.UnixNano() != want || m.UpdatedAt.IsZero() || m.CreatedAt.UnixNano() != 3 {
			t.Errorf("%s: %+v", id, m)
		}
	}
	for id, end := range map[string]int{"v-own": n, "v-ref": n, "v-part": n - 1, "v-runes": len([]rune(text))} {
		v := got.vers[id]
		if v == nil || v.Content != text || !reflect.DeepEqual(v.EvidenceSpans, []memory.Span{{EpisodeID: "ep-1", Start: 0, End: end}}) {
			t.Errorf("%s: %+v", id, v)
		}
	}
	wantAdms := [][2]string{{"accept", "ADD"}, {"accept", "REINFORCE"}, {"accept", "REINFORCE"}, {"reject", ""}, {"quarantine", "CONTEST"}, {"maybe", "RENAME"}, {"defer", ""},
		{"accept", "ADD"}, {"accept", "ADD"}}
	wantVersions := []string{"v-own", "v-own", "v-own", "", "", "", "", "v-own", "v-gone"}
	if len(got.adms) != len(wantAdms) {
		t.Fatalf("admissions: %d", len(got.adms))
	}
	for i, a := range got.adms {
		if string(a.Decision) != wantAdms[i][0] || string(a.Operation) != wantAdms[i][1] || a.VersionID != wantVersions[i] {
			t.Errorf("%s: %q %q, want %v", a.ID, a.Decision, a.Operation, wantAdms[i])
		}
	}

	// Stored short.
	var stored string
	if err := s.writer.QueryRowContext(ctx, `SELECT group_concat(namespace || id || ':' || recorded_at || ':' || hex(speaker), ',') FROM (SELECT * FROM episodes ORDER BY namespace, id)`).Scan(&stored); err != nil ||
		stored != fmt.Sprintf("nep-1:0:01,nep-2:7:02,nep-3:%d:%s,nep-4:0:,otherep-1:0:01", int64(epochNanos), hexOf("Ines")) {
		t.Errorf("episodes stored: %s, %v", stored, err)
	}
	if err := s.writer.QueryRowContext(ctx, `SELECT group_concat(id || ':' || updated_at, ',') FROM (SELECT * FROM memories ORDER BY id)`).Scan(&stored); err != nil ||
		stored != fmt.Sprintf("m-1:0,m-2:4,m-3:%d", int64(epochNanos)) {
		t.Errorf("memories stored: %s, %v", stored, err)
	}
	if err := s.writer.QueryRowContext(ctx, `SELECT group_concat(id || ':' || evidence_spans, ',') FROM (SELECT * FROM versions ORDER BY id)`).Scan(&stored); err != nil ||
		stored != fmt.Sprintf("v-own:~,v-part:~0:0:%d,v-ref:~,v-runes:~0:0:%d", n-1, len([]rune(text))) {
		t.Errorf("versions' spans stored: %s, %v", stored, err)
	}
	if err := s.writer.QueryRowContext(ctx, `SELECT group_concat(hex(decision) || '/' || hex(operation), ',') FROM (SELECT * FROM admissions ORDER BY id)`).Scan(&stored); err != nil ||
		stored != "01/13,01/14,01/14,03/,04/16,"+hexOf("maybe")+"/"+hexOf("RENAME")+",02/,01/13,01/13" {
		t.Errorf("admissions stored: %s, %v", stored, err)
	}
	// Each admission naming a version of its own memory by its seq; one
	// naming another memory's version, or a version not there, by the id.
	if err := s.writer.QueryRowContext(ctx, `SELECT group_concat(quote(version_id), ',') FROM (SELECT * FROM admissions ORDER BY id)`).Scan(&stored); err != nil ||
		stored != "1,1,1,'','','','','v-own','v-gone'" {
		t.Errorf("admissions' versions stored: %s, %v", stored, err)
	}

	// The queries that name decisions and REINFORCE find the same rows.
	for d, want := range map[memory.AdmissionDecision]int{memory.AdmitAccept: 5, memory.AdmitReject: 1, "maybe": 1, memory.AdmitDefer: 1} {
		list, err := s.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "n", Decision: d})
		if err != nil || len(list) != want {
			t.Errorf("decision %s: %d, %v", d, len(list), err)
		}
	}
	var index string
	if err := s.writer.QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE name = 'admissions_reinforcements'`).Scan(&index); err != nil ||
		!strings.Contains(index, "operation = char(20)") {
		t.Errorf("admissions_reinforcements: %s, %v", index, err)
	}
	pruned, err := s.PruneReinforcements(ctx, memory.PruneHistoryParams{Namespace: "n", Keep: 1, Limit: 10, Now: time.Unix(100, 0)})
	if err != nil || pruned != 1 {
		t.Errorf("pruned %d reinforcements, %v", pruned, err)
	}
	// A version that goes gives its id back to the admissions that named
	// it by seq first: the prune of its history finds them by that id.
	if deleted, err := s.DeleteMemories(ctx, memory.DeleteMemoriesParams{Namespace: "n", VersionIDs: []string{"v-own"}, Now: time.Unix(100, 0)}); err != nil || len(deleted) != 1 {
		t.Fatalf("deleting v-own: %v, %v", deleted, err)
	}
	if err := s.writer.QueryRowContext(ctx, `SELECT group_concat(id || ':' || quote(version_id), ',') FROM (SELECT * FROM admissions WHERE memory_id <> '' ORDER BY id)`).Scan(&stored); err != nil ||
		stored != "adm-8:'v-own',adm-9:'v-gone'" {
		t.Errorf("admissions after v-own went: %s, %v", stored, err)
	}
	var check string
	if err := s.writer.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %s, %v", check, err)
	}
}

// An admission naming a version its transaction wrote, of its own memory,
// stores the version's seq; the read gives the id back, and so does the
// trigger before the version goes, whichever way it goes.
func TestAdmissionVersionBySeq(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "byseq.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1_700_000_000, 0).UTC()
	version := func(mem string, seq int) *memory.Version {
		return &memory.Version{Namespace: "n", ID: fmt.Sprintf("v-%s-%d", mem, seq), MemoryID: mem, Seq: seq, Kind: memory.KindSemantic,
			Type: memory.TypeFact, Subject: "user", Key: mem, Content: fmt.Sprint(mem, " says ", seq), Status: memory.StatusActive,
			Operation: memory.OpAdd, ObservedAt: at, RecordedAt: at, ValidFrom: at, UpdatedAt: at}
	}
	admission := func(id, mem, ver string) *memory.Admission {
		return &memory.Admission{ID: id, Namespace: "n", MemoryID: mem, VersionID: ver, Decision: memory.AdmitAccept,
			Operation: memory.OpAdd, Extractor: "rules", CreatedAt: at}
	}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		for _, m := range []string{"m-a", "m-b"} {
			if err := tx.CreateMemory(ctx, &memory.Memory{Namespace: "n", ID: m, Kind: memory.KindSemantic, Subject: "user", Key: m, CreatedAt: at, UpdatedAt: at}); err != nil {
				return err
			}
			if err := tx.CreateVersion(ctx, version(m, 1)); err != nil {
				return err
			}
		}
		return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: "n", Admissions: []*memory.Admission{
			admission("adm-1", "m-a", "v-m-a-1"),
			admission("adm-2", "m-b", "v-m-a-1"), // another memory's version: by id
			admission("adm-3", "", "v-m-a-1"),    // no memory: by id
		}})
	})
	if err != nil {
		t.Fatal(err)
	}
	// A later transaction: v-m-a-1 is not one it wrote (by id); v-m-a-2 is.
	err = s.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateVersion(ctx, version("m-a", 2)); err != nil {
			return err
		}
		return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: "n", Admissions: []*memory.Admission{
			admission("adm-4", "m-a", "v-m-a-1"),
			admission("adm-5", "m-a", "v-m-a-2"),
		}})
	})
	if err != nil {
		t.Fatal(err)
	}
	stored := func() string {
		t.Helper()
		var out string
		if err := s.writer.QueryRowContext(ctx, `SELECT group_concat(id || ':' || typeof(version_id), ',') FROM (SELECT * FROM admissions ORDER BY id, namespace)`).Scan(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := stored(); got != "adm-1:integer,adm-2:text,adm-3:text,adm-4:text,adm-5:integer" {
		t.Errorf("stored: %s", got)
	}
	read := func() map[string]string {
		t.Helper()
		out := map[string]string{}
		if err := s.ScanAdmissions(ctx, memory.ScanParams{Namespace: "n"}, func(a *memory.Admission) error { out[a.ID] = a.VersionID; return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := map[string]string{"adm-1": "v-m-a-1", "adm-2": "v-m-a-1", "adm-3": "v-m-a-1", "adm-4": "v-m-a-1", "adm-5": "v-m-a-2"}
	if got := read(); !reflect.DeepEqual(got, want) {
		t.Errorf("read: %v", got)
	}
	list, err := s.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "n", MemoryID: "m-a"})
	if err != nil || len(list) != 3 {
		t.Fatalf("by memory: %+v, %v", list, err)
	}
	// A delete by any statement gives the id back first.
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM versions WHERE namespace = 'n' AND id = 'v-m-a-2'`); err != nil {
		t.Fatal(err)
	}
	if got := stored(); got != "adm-1:integer,adm-2:text,adm-3:text,adm-4:text,adm-5:text" {
		t.Errorf("stored after v-m-a-2 went: %s", got)
	}
	if got := read(); !reflect.DeepEqual(got, want) {
		t.Errorf("read after v-m-a-2 went: %v", got)
	}
	// The same version id in another namespace is another version.
	err = s.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateMemory(ctx, &memory.Memory{Namespace: "o", ID: "m-a", Kind: memory.KindSemantic, Subject: "user", Key: "m-a", CreatedAt: at, UpdatedAt: at}); err != nil {
			return err
		}
		v := version("m-a", 1)
		v.Namespace = "o"
		if err := tx.CreateVersion(ctx, v); err != nil {
			return err
		}
		a := admission("adm-1", "m-a", "v-m-a-1")
		a.Namespace = "o"
		return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: "o", Admissions: []*memory.Admission{a}})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM versions WHERE namespace = 'o'`); err != nil {
		t.Fatal(err)
	}
	if got := stored(); !strings.HasPrefix(got, "adm-1:integer,adm-1:text,") {
		t.Errorf("after o's version went: %s", got)
	}
	if got := read(); !reflect.DeepEqual(got, want) {
		t.Errorf("n's admissions after o's version went: %v", got)
	}
}

// Migration 0028's indexes hold no namespace: the same episode (an export
// imported into a second namespace keeps its ids and text) is found, and
// its delete copies its text back, in its own namespace only.
func TestTailIndexesKeepNamespaces(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "tails.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1_700_000_000, 0).UTC()
	text := "The release train leaves on Thursday mornings; freeze the branch the night before"
	sum := sha256.Sum256([]byte(text))
	hash := hex.EncodeToString(sum[:]) // as the engine writes it: stored as 8 bytes, derived from the text
	ep := ids.New(ids.Episode)
	mem, ver, adm := ids.New(ids.Memory), ids.New(ids.Version), ids.New(ids.Admission)
	for _, ns := range []string{"n", "o"} {
		err := s.InTx(ctx, func(tx memory.Executor) error {
			if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: ns, Episodes: []*memory.Episode{{Namespace: ns, ID: ep,
				Kind: memory.EpisodeUserMessage, Speaker: "user", Content: text, OccurredAt: at, RecordedAt: at, ContentHash: hash}}}); err != nil {
				return err
			}
			if err := tx.CreateMemory(ctx, &memory.Memory{Namespace: ns, ID: mem, Kind: memory.KindSemantic, Subject: "user", Key: "train",
				CreatedAt: at, UpdatedAt: at}); err != nil {
				return err
			}
			if err := tx.CreateVersion(ctx, &memory.Version{Namespace: ns, ID: ver, MemoryID: mem, Seq: 1, Kind: memory.KindSemantic,
				Type: memory.TypeFact, Subject: "user", Key: "train", Content: text, Status: memory.StatusActive, Operation: memory.OpAdd,
				ObservedAt: at, RecordedAt: at, ValidFrom: at, UpdatedAt: at, EvidenceEpisodeIDs: []string{ep},
				EvidenceSpans: []memory.Span{{EpisodeID: ep, Start: 0, End: len(text)}}}); err != nil {
				return err
			}
			return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: ns, Admissions: []*memory.Admission{{ID: adm,
				Namespace: ns, EpisodeID: ep, MemoryID: mem, VersionID: ver, Decision: memory.AdmitAccept, Operation: memory.OpAdd,
				Content: text, Extractor: "rules", CreatedAt: at}}})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var shared int
	if err := s.writer.QueryRowContext(ctx, `SELECT count(*) FROM versions WHERE shared & 8 AND content = ''`).Scan(&shared); err != nil || shared != 2 {
		t.Fatalf("versions referring to their episode's text: %d, %v", shared, err)
	}
	for _, ns := range []string{"n", "o"} {
		eps, err := s.ListEpisodes(ctx, memory.ListEpisodesParams{Namespace: ns, ContentHash: hash})
		if err != nil || len(eps) != 1 || eps[0].Namespace != ns {
			t.Errorf("%s: episodes by hash: %+v, %v", ns, eps, err)
		}
		for _, p := range []memory.ListAdmissionsParams{{Namespace: ns, EpisodeID: ep}, {Namespace: ns, MemoryID: mem}} {
			as, err := s.ListAdmissions(ctx, p)
			if err != nil || len(as) != 1 || as[0].Namespace != ns || as[0].Content != text || as[0].VersionID != ver {
				t.Errorf("%+v: %+v, %v", p, as, err)
			}
		}
	}
	// The episode goes in n: n's version and admission get their own copy
	// of the text; o's still refer to o's episode.
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM episodes WHERE namespace = 'n' AND id = ?`, idArg(ep)); err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := s.writer.QueryRowContext(ctx, `SELECT group_concat(namespace || ':' || length(content) || ':' || (shared & 8), ',')
		FROM (SELECT * FROM versions ORDER BY namespace)`).Scan(&stored); err != nil || stored != fmt.Sprintf("n:%d:0,o:0:8", len(text)) {
		t.Errorf("versions after n's episode went: %s, %v", stored, err)
	}
	if err := s.writer.QueryRowContext(ctx, `SELECT group_concat(namespace || ':' || length(content) || ':' || coalesce(content_ref, 0), ',')
		FROM (SELECT * FROM admissions ORDER BY namespace)`).Scan(&stored); err != nil || stored != fmt.Sprintf("n:%d:0,o:0:1", len(text)) {
		t.Errorf("admissions after n's episode went: %s, %v", stored, err)
	}
	for _, ns := range []string{"n", "o"} {
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: ns, ID: ver})
		if err != nil || v.Content != text {
			t.Errorf("%s: version %+v, %v", ns, v, err)
		}
	}
}
