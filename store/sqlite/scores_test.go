package sqlite

import (
	"database/sql"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// Confidence, usefulness and trust read back bit for bit whether or not
// they are stored as thousandths (shared bits 32, 64, 128), through a get,
// a stream and the unsettled list, and an update moves a score between
// the two forms.
func TestVersionScoresRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, templatePath(t, "scores.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	type scores struct{ confidence, usefulness, trust float64 }
	cases := []struct {
		id   string
		sc   scores
		bits int64
	}{
		{"v-usual", scores{0.8, 0.5, 0.655}, 32 | 64 | 128},
		{"v-whole", scores{1, 0, 1}, 0},                                    // whole values: small integers already
		{"v-finer", scores{0.70675, 0.5000001, math.Nextafter(0.3, 1)}, 0}, // not whole thousandths
		{"v-negative", scores{-0.25, 0.499, 2.5}, 32 | 64 | 128},           // below the base, above 1
		{"v-extreme", scores{1e300, math.SmallestNonzeroFloat64, -0}, 0},   // too large, too small, -0 is whole
		{"v-mixed", scores{0.9, 0.75, 0.123456789}, 32 | 64},
	}
	at := time.Unix(1_700_000_000, 0).UTC()
	err = s.InTx(ctx, func(tx memory.Executor) error {
		for i, c := range cases {
			m := &memory.Memory{Namespace: "n", ID: "m-" + c.id, Kind: memory.KindSemantic, Subject: "user", Key: fmt.Sprint("k", i), CreatedAt: at, UpdatedAt: at}
			if err := tx.CreateMemory(ctx, m); err != nil {
				return err
			}
			v := &memory.Version{Namespace: "n", ID: c.id, MemoryID: m.ID, Seq: 1, Kind: m.Kind, Type: memory.TypeFact, Subject: "user", Key: m.Key,
				Content: "c", Status: memory.StatusActive, Operation: memory.OpAdd, ObservedAt: at, RecordedAt: at, ValidFrom: at, UpdatedAt: at,
				Confidence: c.sc.confidence, Usefulness: c.sc.usefulness, Trust: c.sc.trust}
			if err := tx.CreateVersion(ctx, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	check := func(when string, v *memory.Version, want scores) {
		t.Helper()
		if !same(v.Confidence, want.confidence) || !same(v.Usefulness, want.usefulness) || !same(v.Trust, want.trust) {
			t.Errorf("%s %s: scores %v %v %v, want %v", when, v.ID, v.Confidence, v.Usefulness, v.Trust, want)
		}
	}
	bits := func(id string) int64 {
		var shared sql.NullInt64
		if err := s.writer.QueryRowContext(ctx, `SELECT shared FROM versions WHERE namespace = 'n' AND id = ?`, id).Scan(&shared); err != nil {
			t.Fatal(err)
		}
		return shared.Int64 & 224
	}
	want := map[string]scores{}
	for _, c := range cases {
		want[c.id] = c.sc
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: c.id})
		if err != nil {
			t.Fatal(err)
		}
		check("get", v, c.sc)
		if got := bits(c.id); got != c.bits {
			t.Errorf("%s: stored with bits %d, want %d", c.id, got, c.bits)
		}
	}
	var raw [3]float64
	if err := s.writer.QueryRowContext(ctx, `SELECT confidence, usefulness, trust FROM versions WHERE id = 'v-usual'`).Scan(&raw[0], &raw[1], &raw[2]); err != nil {
		t.Fatal(err)
	}
	if raw != [3]float64{800, 0, 655} {
		t.Errorf("v-usual stored as %v", raw)
	}

	// An update: v-usual's usefulness leaves 0.5 (still thousandths), its
	// trust becomes finer (a REAL again); v-finer's become thousandths.
	upd := map[string]scores{"v-usual": {0.8, 0.55, 0.6551}, "v-finer": {0.7, 0.5, 0.25}}
	for id, sc := range upd {
		v, err := s.GetVersion(ctx, memory.GetParams{Namespace: "n", ID: id})
		if err != nil {
			t.Fatal(err)
		}
		v.Confidence, v.Usefulness, v.Trust = sc.confidence, sc.usefulness, sc.trust
		v.UpdatedAt = at.Add(time.Hour)
		if err := s.UpdateVersionState(ctx, v); err != nil {
			t.Fatal(err)
		}
		want[id] = sc
	}
	if b := bits("v-usual"); b != 32|64 {
		t.Errorf("v-usual after the update: bits %d", b)
	}
	if b := bits("v-finer"); b != 32|64|128 {
		t.Errorf("v-finer after the update: bits %d", b)
	}
	streamed := 0
	err = s.StreamVersions(ctx, memory.ScanParams{Namespace: "n"}, func(v *memory.Version) error {
		streamed++
		check("stream", v, want[v.ID])
		return nil
	})
	if err != nil || streamed != len(cases) {
		t.Fatalf("streamed %d, %v", streamed, err)
	}
	// Unsettled: a usefulness other than 0.5 in either form.
	unsettled, err := s.ListUnsettledVersions(ctx, memory.ScanParams{Namespace: "n"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range unsettled {
		check("unsettled", v, want[v.ID])
		got = append(got, v.ID)
	}
	wantIDs := map[string]bool{"v-usual": true, "v-whole": true, "v-finer": false, "v-negative": true, "v-extreme": true, "v-mixed": true}
	for id, in := range wantIDs {
		found := false
		for _, g := range got {
			found = found || g == id
		}
		if found != in {
			t.Errorf("unsettled %v: %s listed %v, want %v", got, id, found, in)
		}
	}
}
