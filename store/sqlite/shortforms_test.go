package sqlite

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/embed"
	"github.com/mnemon-dev/mnemon/memory"
	"github.com/mnemon-dev/mnemon/search"
)

// longVarint is a version 2 sparse encoding whose count is a needlessly
// long varint: a valid vector that must be stored byte for byte as given.
func longVarint() []byte {
	b := []byte{2, 1}
	b = binary.AppendUvarint(b, 1000)
	b = append(b, 0x80|2, 0x00) // count 2 in two bytes
	b = binary.AppendUvarint(b, 998)
	b = binary.AppendUvarint(b, 1)
	return append(b, 0x00, 0x3c, 0x00, 0x3c)
}

// shortCases are symbol values of every shape a codec must keep apart:
// known names, unknown ones, empty, and ones that begin with the bytes the
// stored codes use.
var shortCases = []struct {
	name  string
	sym   string // used as type, criticality, operation and every provenance name
	coded bool   // stored as one code character
}{
	{"empty", "", false},
	{"unknown", "my-embedder-v9", false},
	{"control", "\x01", false},
	{"escape", "\x1fabc", false},
	{"list mark", "\x1e", false},
	{"one char", "a", false},
	{"note", "note", true},
	{"embedder", embed.WordVectorsName, true},
}

// Every symbol, reasons list and vector reads back as written; the short
// forms are the ones stored when they apply.
func TestShortFormsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "short.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1_700_000_000, 0).UTC()
	wv := embed.NewWordVectors()
	vectors := map[string]struct {
		b      []byte
		packed bool
	}{
		"wordvectors": {wv.Vector("the reviewer in warsaw reviews profiling changes").EncodeCompact(), true},
		"hashed only": {embed.NewBuiltin().Vector("zzq plorb").EncodeCompact(), false},
		"version 1":   {wv.Vector("deploy the exporter").Encode(), false},
		"dense":       {search.Vector{Dim: 3, Values: []float32{0.6, 0.8, 0}}.EncodeCompact(), false},
		"long varint": {longVarint(), false},
		"none":        {nil, false},
	}
	type vcase struct {
		id, sym string
		coded   bool
		vec     string
	}
	var cases []vcase
	i := 0
	for _, c := range shortCases {
		for name := range vectors {
			cases = append(cases, vcase{fmt.Sprintf("v-%d", i), c.sym, c.coded, name})
			i++
		}
	}
	types := map[string]memory.Type{}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		for i, c := range cases {
			m := &memory.Memory{Namespace: "n", ID: "m-" + c.id, Kind: memory.KindSemantic, Subject: "user", Key: fmt.Sprint("k", i), CreatedAt: at, UpdatedAt: at}
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
			typ := memory.Type(c.sym)
			if c.sym == "" {
				typ = memory.TypeFact
			}
			types[c.id] = typ
			v := &memory.Version{Namespace: "n", ID: c.id, MemoryID: m.ID, Seq: 1, Kind: m.Kind, Type: typ, Subject: "user", Key: m.Key,
				Content: "c " + c.id, Criticality: memory.Criticality(c.sym), Status: memory.StatusActive, Operation: memory.Operation(c.sym),
				ObservedAt: at, RecordedAt: at, ValidFrom: at, UpdatedAt: at,
				Provenance: memory.Provenance{Extractor: c.sym, Model: c.sym, PromptVersion: c.sym, Embedder: c.sym, EmbedderDim: 7, Source: c.sym},
				Embedding:  vectors[c.vec].b}
			if err := tx.CreateVersion(ctx, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: c.id})
		if err != nil {
			t.Fatal(err)
		}
		want := memory.Provenance{Extractor: c.sym, Model: c.sym, PromptVersion: c.sym, Embedder: c.sym, EmbedderDim: 7, Source: c.sym}
		if v.Type != types[c.id] || string(v.Criticality) != c.sym || string(v.Operation) != c.sym || v.Provenance != want {
			t.Errorf("%s (%q): read type %q criticality %q operation %q provenance %+v", c.id, c.sym, v.Type, v.Criticality, v.Operation, v.Provenance)
		}
		if !bytes.Equal(v.Embedding, vectors[c.vec].b) {
			t.Errorf("%s: vector %s reads back other bytes", c.id, c.vec)
		}
		var raw string
		var emb []byte
		if err := s.writer.QueryRowContext(ctx, `SELECT prov_embedder, embedding FROM versions WHERE id = ?`, c.id).Scan(&raw, &emb); err != nil {
			t.Fatal(err)
		}
		if got := len(raw) == 1 && raw[0] < 0x20; got != c.coded {
			t.Errorf("%s: %q stored as %q, coded %v want %v", c.id, c.sym, raw, got, c.coded)
		}
		if search.IsPacked(emb) != vectors[c.vec].packed {
			t.Errorf("%s: vector %s stored packed %v", c.id, c.vec, search.IsPacked(emb))
		}
	}
	// The inspector's type filter matches coded and plain types alike.
	for _, typ := range []memory.Type{memory.TypeFact, "\x01", "my-embedder-v9"} {
		got, err := s.PageVersions(ctx, memory.PageVersionsParams{Namespace: "n", Types: []memory.Type{typ}, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range cases {
			if types[c.id] == typ {
				n++
			}
		}
		if len(got) != n || n == 0 {
			t.Errorf("type %q: %d versions, want %d", typ, len(got), n)
		}
		for _, v := range got {
			if v.Type != typ {
				t.Errorf("type %q: got a version of type %q", typ, v.Type)
			}
		}
	}
	// A re-embedding stores its vector packed and its embedder coded.
	vec := wv.Vector("a new text for the vector").EncodeCompact()
	err = s.SetEmbedding(ctx, memory.SetEmbeddingParams{Namespace: "n", ID: cases[0].id, Embedding: vec, Embedder: embed.WordVectorsName, EmbedderDim: 9, ChangedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: cases[0].id})
	if err != nil || !bytes.Equal(v.Embedding, vec) || v.Provenance.Embedder != embed.WordVectorsName || v.Provenance.EmbedderDim != 9 {
		t.Fatalf("after SetEmbedding: %+v, %v", v.Provenance, err)
	}
}

// An admission's reasons read back as written: nil, empty, coded or JSON.
func TestReasonsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "reasons.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1_700_000_000, 0).UTC()
	cases := []struct {
		reasons   []string
		extractor string
		coded     bool
	}{
		{nil, "note", false},
		{[]string{}, "episode", false},
		{[]string{"no_rule_matched", "kept_as_note", "stands_in_for_episode"}, "note", true},
		{[]string{"extracted:rules-en-v3", "cue:correction", "correction"}, "rules-en-v3", true},
		{[]string{"episode"}, "\x03", true},
		{[]string{"episode", "something new"}, "other", false},
		{[]string{"\x01", "x"}, "", false},
		{[]string{""}, "\x1e", false},
	}
	ep := &memory.Episode{ID: "e-1", Kind: "user_message", Speaker: "user", Content: "one", OccurredAt: at, RecordedAt: at}
	var adms []*memory.Admission
	for i, c := range cases {
		adms = append(adms, &memory.Admission{Namespace: "n", ID: fmt.Sprintf("a-%d", i), EpisodeID: "e-1", Decision: memory.AdmitAccept,
			Reasons: c.reasons, Operation: memory.OpAdd, Extractor: c.extractor, CreatedAt: at.Add(time.Duration(i))})
	}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: []*memory.Episode{ep}}); err != nil {
			return err
		}
		return tx.CreateAdmissions(ctx, memory.CreateAdmissionsParams{Namespace: "n", Admissions: adms})
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "n"})
	if err != nil || len(got) != len(cases) {
		t.Fatalf("admissions: %d, %v", len(got), err)
	}
	byID := map[string]*memory.Admission{}
	for _, a := range got {
		byID[a.ID] = a
	}
	for i, c := range cases {
		a := byID[fmt.Sprintf("a-%d", i)]
		if a == nil {
			t.Fatalf("a-%d not read", i)
		}
		if !reflect.DeepEqual(a.Reasons, c.reasons) || a.Extractor != c.extractor {
			t.Errorf("%s: reasons %#v extractor %q; want %#v %q", a.ID, a.Reasons, a.Extractor, c.reasons, c.extractor)
		}
		var raw string
		if err := s.writer.QueryRowContext(ctx, `SELECT reasons FROM admissions WHERE id = ?`, a.ID).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if got := strings.HasPrefix(raw, "\x1e"); got != c.coded {
			t.Errorf("%s: reasons stored as %q, coded %v want %v", a.ID, raw, got, c.coded)
		}
	}
}

// A store written at schema 19 (names as text, JSON reasons, vectors at
// version 2) reads the same after migration 0020, with the short forms
// stored; a version sharing another's text and vector still shares it,
// and the trigger made again still unshares on a re-embedding.
func TestMigrationShortensRows(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "old.db")
	old := openAtSchema(t, path, 19)
	wv := embed.NewWordVectors()
	vecA := wv.Vector("the reviewer in warsaw reviews profiling changes").EncodeCompact()
	vecB := wv.Vector("deploy the exporter").Encode() // version 1: stays as it is
	version := func(id, typ, emb string, shared, sameAs, content string) string {
		key := "k"
		if id == "v-a" {
			key = "ka" // its memory's: stored empty after migrating
		}
		return `('n', '` + id + `', 'm-` + id + `', 1, '', '', '', '', 'semantic', '` + typ + `', 'user', '` + key + `', '', '` + content + `', 'normal',
			 0.8, 0.5, 0.6, 0, 0, 'active', 'ADD', '', 1, 1, 1, NULL, 1, 'null', 'null', 'note', '', 'p1', '` + embed.WordVectorsName + `', 4, 'remember', 1, '', ` +
			emb + `, ` + shared + `, ` + sameAs + `)`
	}
	execAll(t, old,
		`INSERT INTO memories VALUES ('n', 'm-v-a', '', '', '', '', 'semantic', 'user', 'ka', 1, 1),
			('n', 'm-v-b', '', '', '', '', 'semantic', 'user', 'kb', 1, 1),
			('n', 'm-v-c', '', '', '', '', 'semantic', 'user', 'kc', 1, 1),
			('n', 'm-v-d', '', '', '', '', 'semantic', 'user', 'kd', 1, 1)`,
		`INSERT INTO versions VALUES `+strings.Join([]string{
			version("v-a", "fact", fmt.Sprintf("x'%x'", vecA), "NULL", "NULL", "shared text"),
			version("v-b", "\x01odd", fmt.Sprintf("x'%x'", vecB), "NULL", "NULL", "b"),
			version("v-c", "my-type", "NULL", "NULL", "NULL", "c"),
			version("v-d", "fact", "NULL", "2", "'v-a'", ""), // shares v-a's text and vector
		}, ", "),
		`INSERT INTO admissions VALUES ('n', 'a-1', 'e-1', '', '', 'accept', '["no_rule_matched","kept_as_note"]', 'ADD', 'x', 'note', 1, NULL, NULL),
			('n', 'a-2', 'e-1', '', '', 'accept', '["episode","new reason"]', '', 'x', 'custom', 2, NULL, NULL),
			('n', 'a-3', 'e-1', '', '', 'accept', 'null', '', 'x', '', 3, NULL, NULL),
			('n', 'a-4', 'e-1', '', '', 'accept', '[]', '', 'x', 'episode', 4, NULL, NULL)`,
	)
	s := migrateOld(t, old, path)
	want := map[string]struct {
		typ     memory.Type
		content string
		emb     []byte
		packed  bool
	}{
		"v-a": {memory.TypeFact, "shared text", vecA, true},
		"v-b": {"\x01odd", "b", vecB, false},
		"v-c": {"my-type", "c", nil, false},
		"v-d": {memory.TypeFact, "shared text", vecA, false},
	}
	for id, w := range want {
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: id})
		if err != nil {
			t.Fatal(err)
		}
		if v.Type != w.typ || v.Content != w.content || !bytes.Equal(v.Embedding, w.emb) || v.Criticality != memory.CriticalityNormal ||
			v.Operation != memory.OpAdd || v.Provenance.Embedder != embed.WordVectorsName || v.Provenance.Extractor != "note" ||
			v.Provenance.PromptVersion != "p1" || v.Provenance.Source != "remember" {
			t.Errorf("%s after migrating: type %q content %q provenance %+v, same vector %v", id, v.Type, v.Content, v.Provenance, bytes.Equal(v.Embedding, w.emb))
		}
		var emb []byte
		var sameAs sql.NullString
		var typ string
		if err := s.writer.QueryRowContext(ctx, `SELECT embedding, same_as, type FROM versions WHERE id = ?`, id).Scan(&emb, &sameAs, &typ); err != nil {
			t.Fatal(err)
		}
		if search.IsPacked(emb) != w.packed {
			t.Errorf("%s: stored packed %v, want %v", id, search.IsPacked(emb), w.packed)
		}
		wantKey := "k"
		if id == "v-a" {
			wantKey = "ka"
		}
		if !v.ValidFrom.Equal(time.Unix(0, 1)) || !v.UpdatedAt.Equal(time.Unix(0, 1)) || !v.ObservedAt.Equal(time.Unix(0, 1)) {
			t.Errorf("%s: times after migrating: %v %v %v", id, v.ObservedAt, v.ValidFrom, v.UpdatedAt)
		}
		if v.Kind != memory.KindSemantic {
			t.Errorf("%s: kind %q after migrating", id, v.Kind)
		}
		var vkind, mkind string
		if err := s.writer.QueryRowContext(ctx, `SELECT v.kind, m.kind FROM versions v JOIN memories m ON m.namespace = v.namespace AND m.id = v.memory_id
			WHERE v.id = ?`, id).Scan(&vkind, &mkind); err != nil || vkind != "\x1c" || mkind != "\x1c" {
			t.Errorf("%s: kinds stored as %q, %q, %v", id, vkind, mkind, err)
		}
		if v.Key != wantKey || v.Subject != "user" {
			t.Errorf("%s: subject %q key %q after migrating", id, v.Subject, v.Key)
		}
		var storedKey string
		if err := s.writer.QueryRowContext(ctx, `SELECT "key" FROM versions WHERE id = ?`, id).Scan(&storedKey); err != nil {
			t.Fatal(err)
		}
		if (id == "v-a") != (storedKey == "") {
			t.Errorf("%s: key stored as %q", id, storedKey)
		}
		if id == "v-d" && (sameAs.String != "v-a" || emb != nil) {
			t.Errorf("v-d no longer shares v-a's row: same_as %v, own vector %d bytes", sameAs, len(emb))
		}
		if (typ == string(memory.TypeFact)) || (id == "v-b" && typ != "\x1f\x01odd") {
			t.Errorf("%s: type stored as %q", id, typ)
		}
	}
	wantAdm := map[string]struct {
		reasons   []string
		extractor string
		coded     bool
	}{
		"a-1": {[]string{"no_rule_matched", "kept_as_note"}, "note", true},
		"a-2": {[]string{"episode", "new reason"}, "custom", false},
		"a-3": {nil, "", false},
		"a-4": {[]string{}, "episode", false},
	}
	adms, err := s.ListAdmissions(ctx, memory.ListAdmissionsParams{Namespace: "n"})
	if err != nil || len(adms) != len(wantAdm) {
		t.Fatalf("admissions: %d, %v", len(adms), err)
	}
	for _, a := range adms {
		w := wantAdm[a.ID]
		if !reflect.DeepEqual(a.Reasons, w.reasons) || a.Extractor != w.extractor {
			t.Errorf("%s after migrating: reasons %#v extractor %q", a.ID, a.Reasons, a.Extractor)
		}
		var raw string
		if err := s.writer.QueryRowContext(ctx, `SELECT reasons FROM admissions WHERE id = ?`, a.ID).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(raw, "\x1e") != w.coded {
			t.Errorf("%s: reasons stored as %q", a.ID, raw)
		}
	}
	// The trigger is back: re-embedding v-a first gives v-d its own copy.
	var n int
	if err := s.writer.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name = 'versions_unshare_on_embedding'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("trigger after migrating: %d, %v", n, err)
	}
	vecNew := wv.Vector("a different text altogether").EncodeCompact()
	if err := s.SetEmbedding(ctx, memory.SetEmbeddingParams{Namespace: "n", ID: "v-a", Embedding: vecNew, Embedder: embed.WordVectorsName, EmbedderDim: 4, ChangedAt: time.Unix(2, 0)}); err != nil {
		t.Fatal(err)
	}
	v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: "v-d"})
	if err != nil || v.Content != "shared text" || !bytes.Equal(v.Embedding, vecA) {
		t.Fatalf("v-d after v-a's re-embedding: %q, same vector %v, %v", v.Content, bytes.Equal(v.Embedding, vecA), err)
	}
}

// A version's subject and key are stored empty when they are its memory's
// (shared bit 4), and every read and filter sees them as written, those of
// versions that carry their own as well.
func TestSlotKeyRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "slotkey.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1_700_000_000, 0).UTC()
	cases := []struct {
		id, subject, key string
		short            bool
	}{
		{"v-same", "user", "k1", true},
		{"v-subject", "team", "k1", false},
		{"v-key", "user", "k2", false},
		{"v-same-2", "user", "k1", true},
	}
	m := &memory.Memory{Namespace: "n", ID: "m-1", Kind: memory.KindSemantic, Subject: "user", Key: "k1", CreatedAt: at, UpdatedAt: at}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateMemory(ctx, m); err != nil {
			return err
		}
		for i, c := range cases {
			v := &memory.Version{Namespace: "n", ID: c.id, MemoryID: m.ID, Seq: i + 1, Kind: m.Kind, Type: memory.TypeFact, Subject: c.subject, Key: c.key,
				Content: "c " + c.id, Status: memory.StatusActive, Operation: memory.OpAdd, ObservedAt: at, RecordedAt: at.Add(time.Duration(i)),
				ValidFrom: at, UpdatedAt: at}
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
	for _, c := range cases {
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: c.id})
		if err != nil || v.Subject != c.subject || v.Key != c.key {
			t.Errorf("%s: subject %q key %q, %v; want %q %q", c.id, v.Subject, v.Key, err, c.subject, c.key)
		}
		if sv := streamed[c.id]; sv == nil || sv.Subject != c.subject || sv.Key != c.key {
			t.Errorf("%s streamed: %+v", c.id, sv)
		}
		var subject, key string
		var shared sql.NullInt64
		if err := s.writer.QueryRowContext(ctx, `SELECT subject, "key", shared FROM versions WHERE id = ?`, c.id).Scan(&subject, &key, &shared); err != nil {
			t.Fatal(err)
		}
		if short := shared.Int64&4 != 0; short != c.short || (short && (subject != "" || key != "")) || (!short && (subject != c.subject || key != c.key)) {
			t.Errorf("%s: stored subject %q key %q shared %d; short form want %v", c.id, subject, key, shared.Int64, c.short)
		}
	}
	ids := func(vs []*memory.Version) []string {
		var out []string
		for _, v := range vs {
			out = append(out, v.ID)
		}
		return out
	}
	// The slot's filters: its memory matches, then each version's own.
	got, err := s.ListVersions(ctx, memory.ListVersionsParams{Namespace: "n", Subject: "user", Key: "k1"})
	if err != nil || !reflect.DeepEqual(ids(got), []string{"v-same", "v-same-2"}) {
		t.Errorf("subject user, key k1: %v, %v", ids(got), err)
	}
	got, err = s.ListVersions(ctx, memory.ListVersionsParams{Namespace: "n", Key: "k1"})
	if err != nil || !reflect.DeepEqual(ids(got), []string{"v-same", "v-subject", "v-same-2"}) {
		t.Errorf("key k1: %v, %v", ids(got), err)
	}
	got, err = s.ListVersions(ctx, memory.ListVersionsParams{Namespace: "n", Subject: "user"})
	if err != nil || !reflect.DeepEqual(ids(got), []string{"v-same", "v-key", "v-same-2"}) {
		t.Errorf("subject user: %v, %v", ids(got), err)
	}
	got, err = s.PageVersions(ctx, memory.PageVersionsParams{Namespace: "n", Subject: "user", Limit: 10})
	if err != nil || !reflect.DeepEqual(ids(got), []string{"v-same-2", "v-key", "v-same"}) {
		t.Errorf("page, subject user: %v, %v", ids(got), err)
	}
	got, err = s.PageVersions(ctx, memory.PageVersionsParams{Namespace: "n", Subject: "team", Limit: 10})
	if err != nil || !reflect.DeepEqual(ids(got), []string{"v-subject"}) {
		t.Errorf("page, subject team: %v, %v", ids(got), err)
	}
}

// A version whose content is its first evidence episode's text stores it
// empty (shared bit 8) and reads it from the episode; it gets its own copy
// before the episode goes or an update names another episode first, and
// versions sharing its row read the same text throughout.
func TestEpisodeTextRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "eptext.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1_700_000_000, 0).UTC()
	const (
		long  = "Fixed a flaky bug in the exporter where searching broke under vim"
		long2 = "The reviewer in warsaw reviews profiling changes every wednesday"
		short = "deploy on fridays"
	)
	vec := embed.NewWordVectors().Vector(long).EncodeCompact()
	eps := []*memory.Episode{
		{ID: "e-1", Kind: "user_message", Speaker: "user", Content: long, OccurredAt: at, RecordedAt: at},
		{ID: "e-2", Kind: "user_message", Speaker: "user", Content: short, OccurredAt: at, RecordedAt: at},
		{ID: "e-3", Kind: "user_message", Speaker: "user", Content: long2, OccurredAt: at, RecordedAt: at},
	}
	cases := []struct {
		id, content string
		ids         []string
		emb         []byte
		own         bool // the row holds its text (else its episode's or a shared row's)
	}{
		{"v-note", long, []string{"e-1"}, vec, false},
		{"v-ep", long, []string{"e-1"}, vec, false},    // shares v-note's row (bit 2)
		{"v-short", short, []string{"e-2"}, nil, true}, // too short to refer to
		{"v-other", "something else entirely, long enough to count", []string{"e-1"}, nil, true},
		{"v-second", long, []string{"e-3", "e-1"}, nil, true}, // e-1 is not its first episode
		{"v-three", long2, []string{"e-3"}, nil, false},
	}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: eps}); err != nil {
			return err
		}
		for i, c := range cases {
			m := &memory.Memory{Namespace: "n", ID: "m-" + c.id, Kind: memory.KindSemantic, Subject: "user", Key: fmt.Sprint("k", i), CreatedAt: at, UpdatedAt: at}
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
			v := &memory.Version{Namespace: "n", ID: c.id, MemoryID: m.ID, Seq: 1, Kind: m.Kind, Type: memory.TypeFact, Subject: "user", Key: m.Key,
				Value: c.content, Content: c.content, Status: memory.StatusActive, Operation: memory.OpAdd,
				ObservedAt: at, RecordedAt: at.Add(time.Duration(i)), ValidFrom: at, UpdatedAt: at, EvidenceEpisodeIDs: c.ids, Embedding: c.emb}
			if err := tx.CreateVersion(ctx, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string, own map[string]bool) {
		t.Helper()
		streamed := map[string]*memory.Version{}
		if err := s.StreamVersions(ctx, memory.ScanParams{Namespace: "n"}, func(v *memory.Version) error { streamed[v.ID] = v; return nil }); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: c.id})
			if err != nil || v.Content != c.content || v.Value != c.content || !bytes.Equal(v.Embedding, c.emb) {
				t.Errorf("%s, %s: content %q value %q, %v", when, c.id, v.Content, v.Value, err)
			}
			if sv := streamed[c.id]; sv == nil || sv.Content != c.content || sv.Value != c.content || !bytes.Equal(sv.Embedding, c.emb) {
				t.Errorf("%s, %s streamed: %+v", when, c.id, sv)
			}
			var raw string
			if err := s.writer.QueryRowContext(ctx, `SELECT content FROM versions WHERE id = ?`, c.id).Scan(&raw); err != nil {
				t.Fatal(err)
			}
			if (raw != "") != own[c.id] {
				t.Errorf("%s, %s: stored content %q, own text want %v", when, c.id, raw, own[c.id])
			}
		}
		got, err := s.PageVersions(ctx, memory.PageVersionsParams{Namespace: "n", Text: "flaky", Limit: 10})
		var ids []string
		for _, v := range got {
			ids = append(ids, v.ID)
		}
		if err != nil || !reflect.DeepEqual(ids, []string{"v-second", "v-ep", "v-note"}) {
			t.Errorf("%s: text search: %v, %v", when, ids, err)
		}
	}
	own := map[string]bool{}
	for _, c := range cases {
		own[c.id] = c.own
	}
	check("written", own)

	// An update naming another first episode gives v-three its own text.
	v3, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: "v-three"})
	if err != nil {
		t.Fatal(err)
	}
	v3.EvidenceEpisodeIDs = append(v3.EvidenceEpisodeIDs, "e-2") // the first stays: still shared
	v3.UpdatedAt = at.Add(time.Second)
	if err := s.UpdateVersionState(ctx, v3); err != nil {
		t.Fatal(err)
	}
	check("evidence appended", own)
	v3.EvidenceEpisodeIDs = []string{"e-2", "e-3"}
	if err := s.UpdateVersionState(ctx, v3); err != nil {
		t.Fatal(err)
	}
	own["v-three"] = true
	check("first evidence changed", own)

	// Deleting e-1 copies its text into v-note first, and v-note into
	// v-ep, which shared its row.
	var plan string
	rows, err := s.writer.QueryContext(ctx, `EXPLAIN QUERY PLAN UPDATE versions SET content = 'x', shared = shared & ~8
	WHERE namespace = 'n' AND substr(iif(typeof(evidence_episode_ids) = 'blob', substr(evidence_episode_ids, 1, 16), evidence_episode_ids ->> 0), -8) = substr('e-1', -8)
	  AND shared & 8 AND iif(typeof(evidence_episode_ids) = 'blob', substr(evidence_episode_ids, 1, 16), evidence_episode_ids ->> 0) = 'e-1'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan += detail + "; "
	}
	rows.Close()
	if !strings.Contains(plan, "versions_episode_text") {
		t.Errorf("the trigger's update does not use versions_episode_text: %s", plan)
	}
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM episodes WHERE id = 'e-1'`); err != nil {
		t.Fatal(err)
	}
	own["v-note"], own["v-ep"] = true, true
	check("e-1 deleted", own)
}

// valid_from equal to observed_at is stored as 0 (shared bit 16); every
// time reads back as written, and an update's new updated_at too.
func TestVersionTimesRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "times.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1_700_000_000, 5).UTC()
	later := at.Add(3 * time.Millisecond)
	cases := []struct {
		id                                 string
		observed, recorded, valid, updated time.Time
		validShort                         bool
	}{
		{"v-same", at, later, at, later, true},
		{"v-valid", at, later, later, later, false},
		{"v-updated", at, later, at, at, true},
		{"v-zero", time.Time{}, time.Time{}, time.Time{}, time.Time{}, true},
		{"v-epoch", time.Unix(0, 0).UTC(), time.Unix(0, 0).UTC(), time.Unix(0, 1).UTC(), time.Unix(0, 0).UTC(), false},
	}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		for i, c := range cases {
			m := &memory.Memory{Namespace: "n", ID: "m-" + c.id, Kind: memory.KindSemantic, Subject: "user", Key: fmt.Sprint("k", i), CreatedAt: at, UpdatedAt: at}
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
			v := &memory.Version{Namespace: "n", ID: c.id, MemoryID: m.ID, Seq: 1, Kind: m.Kind, Type: memory.TypeFact, Subject: "user", Key: m.Key,
				Content: "c", Status: memory.StatusActive, Operation: memory.OpAdd,
				ObservedAt: c.observed, RecordedAt: c.recorded, ValidFrom: c.valid, UpdatedAt: c.updated}
			if err := tx.CreateVersion(ctx, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: c.id})
		if err != nil || !v.ObservedAt.Equal(c.observed) || !v.RecordedAt.Equal(c.recorded) || !v.ValidFrom.Equal(c.valid) || !v.UpdatedAt.Equal(c.updated) {
			t.Errorf("%s: times %v %v %v %v, %v", c.id, v.ObservedAt, v.RecordedAt, v.ValidFrom, v.UpdatedAt, err)
		}
		var shared sql.NullInt64
		if err := s.writer.QueryRowContext(ctx, `SELECT shared FROM versions WHERE id = ?`, c.id).Scan(&shared); err != nil {
			t.Fatal(err)
		}
		if shared.Int64&16 != 0 != c.validShort {
			t.Errorf("%s: shared %d, short valid_from %v", c.id, shared.Int64, c.validShort)
		}
		if shared.Int64&512 != 0 != c.updated.Equal(c.recorded) { // updated_at is recorded_at, stored 0
			t.Errorf("%s: shared %d, updated_at %v, recorded_at %v", c.id, shared.Int64, c.updated, c.recorded)
		}
	}
	v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: "v-same"})
	if err != nil {
		t.Fatal(err)
	}
	v.UpdatedAt = later.Add(time.Hour)
	v.Status = memory.StatusSuperseded
	if err := s.UpdateVersionState(ctx, v); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: "v-same"})
	if err != nil || !got.UpdatedAt.Equal(v.UpdatedAt) || !got.ValidFrom.Equal(at) || got.Status != memory.StatusSuperseded {
		t.Fatalf("after an update: %+v, %v", got, err)
	}
	// And back: an update to recorded_at stores it short again.
	got.UpdatedAt = got.RecordedAt
	if err := s.UpdateVersionState(ctx, got); err != nil {
		t.Fatal(err)
	}
	var stored, bits int64
	if err := s.writer.QueryRowContext(ctx, `SELECT updated_at, shared & 512 FROM versions WHERE id = 'v-same'`).Scan(&stored, &bits); err != nil {
		t.Fatal(err)
	}
	if again, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: "v-same"}); err != nil || !again.UpdatedAt.Equal(later) || stored != 0 || bits == 0 {
		t.Fatalf("updated back to recorded_at: stored %d, bit %d, read %+v, %v", stored, bits, again, err)
	}
	var streamed *memory.Version
	err = s.StreamVersions(ctx, memory.ScanParams{Namespace: "n"}, func(sv *memory.Version) error {
		if sv.ID == "v-valid" {
			streamed = sv
		}
		return nil
	})
	if err != nil || streamed == nil || !streamed.ValidFrom.Equal(later) || !streamed.UpdatedAt.Equal(later) {
		t.Fatalf("streamed: %+v, %v", streamed, err)
	}
}

// A version refers to its memory's subject and key and to its episode's
// text only when its own transaction wrote them (or read the slot): not
// for rows of an earlier transaction, nor for an episode whose batch was
// rolled back.
func TestReferencesOnlyWhatTheTransactionWrote(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "refs.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Unix(1_700_000_000, 0).UTC()
	const text = "Fixed a flaky bug in the exporter where searching broke under vim"
	episode := func(id string) *memory.Episode {
		return &memory.Episode{ID: id, Kind: "user_message", Speaker: "user", Content: text, OccurredAt: at, RecordedAt: at}
	}
	version := func(id, mem, ep string) *memory.Version {
		return &memory.Version{Namespace: "n", ID: id, MemoryID: mem, Seq: 1, Kind: memory.KindSemantic, Type: memory.TypeFact,
			Subject: "user", Key: "k-" + mem, Content: text, Status: memory.StatusActive, Operation: memory.OpAdd,
			ObservedAt: at, RecordedAt: at, ValidFrom: at, UpdatedAt: at, EvidenceEpisodeIDs: []string{ep}}
	}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: []*memory.Episode{episode("e-1")}}); err != nil {
			return err
		}
		return tx.CreateMemory(ctx, &memory.Memory{Namespace: "n", ID: "m-1", Kind: memory.KindSemantic, Subject: "user", Key: "k-m-1", CreatedAt: at, UpdatedAt: at})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.InTx(ctx, func(tx memory.Executor) error {
		if err := tx.CreateVersion(ctx, version("v-later", "m-1", "e-1")); err != nil {
			return err
		}
		// A batch whose second episode fails is rolled back whole: e-2
		// is not there, and a version must not refer to its text.
		err := tx.CreateEpisodes(ctx, memory.CreateEpisodesParams{Namespace: "n", Episodes: []*memory.Episode{episode("e-2"), episode("e-1")}})
		if err == nil {
			return fmt.Errorf("a duplicate episode id was accepted")
		}
		if err := tx.CreateMemory(ctx, &memory.Memory{Namespace: "n", ID: "m-2", Kind: memory.KindSemantic, Subject: "user", Key: "k-m-2", CreatedAt: at, UpdatedAt: at}); err != nil {
			return err
		}
		return tx.CreateVersion(ctx, version("v-rolled", "m-2", "e-2"))
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id          string
		shared      int64 // bits 4 and 8
		contentRead string
	}{
		{"v-later", 0, text},
		{"v-rolled", 4, text},
	} {
		var shared sql.NullInt64
		var content string
		if err := s.writer.QueryRowContext(ctx, `SELECT shared, content FROM versions WHERE id = ?`, c.id).Scan(&shared, &content); err != nil {
			t.Fatal(err)
		}
		if shared.Int64&12 != c.shared || content != text {
			t.Errorf("%s: shared %d, stored content %q; want bits %d and the text in the row", c.id, shared.Int64, content, c.shared)
		}
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: c.id})
		if err != nil || v.Content != c.contentRead || v.Key != "k-"+v.MemoryID {
			t.Errorf("%s reads %+v, %v", c.id, v, err)
		}
	}
}
