package storetest

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// streamVersions checks memory.VersionStreamer where the store offers it:
// the versions a search index holds (every status but deleted and
// quarantined), in id order, each exactly as ScanVersions returns it,
// awkward values, nil and empty lists included, and nothing of another
// namespace.
func (s suite) streamVersions(t *testing.T) {
	streamer := func(t *testing.T, st memory.Store) memory.VersionStreamer {
		vs, ok := st.(memory.VersionStreamer)
		if !ok {
			t.Skip("the store does not implement memory.VersionStreamer")
		}
		return vs
	}

	t.Run("SameAsScan", func(t *testing.T) {
		ctx, st := s.fresh(t)
		vs := streamer(t, st)
		mem := newMemory(ns, "mem-1", "user", "prefers:editor", memory.Scope{UserID: "u1", AgentID: "a1"})
		epi := newMemory(ns, "mem-2", "user", "event:turn", memory.Scope{})
		var all []*memory.Version
		// Ids out of recorded order: the stream follows ids.
		for i, status := range []memory.Status{
			memory.StatusQuarantined, memory.StatusActive, memory.StatusSuperseded, memory.StatusDeleted,
			memory.StatusContested, memory.StatusExpired, memory.StatusCandidate,
		} {
			v := newVersion(ns, "ver-"+string(rune('g'-i)), mem, i+1, at(i))
			v.Status = status
			all = append(all, v)
		}
		odd := `quote" back\slash ünïcødé ✓ 🧠 \u0000 tab	newline
`
		awkward := newVersion(ns, "ver-odd", mem, 20, at(20))
		awkward.Content, awkward.SearchText, awkward.Subject = odd, odd, "user"
		awkward.Confidence, awkward.Usefulness, awkward.Trust = math.SmallestNonzeroFloat64, math.MaxFloat64, -1.5
		awkward.ReinforcementCount, awkward.FailureCount = math.MaxInt32, -1
		awkward.EvidenceEpisodeIDs = []string{odd, "", "ep_plain", "ep_2"}
		awkward.EvidenceSpans = []memory.Span{
			{EpisodeID: odd, Start: -1, End: math.MaxInt32},
			{EpisodeID: "ep_plain", Start: 0, End: 0},
			{EpisodeID: "", Start: 12, End: 120},
		}
		awkward.Provenance.Model = odd
		awkward.Embedding = []byte{0, 0xff, 0, 0x00}
		empty := newBareVersion(ns, "ver-empty", epi, 1, at(21))
		empty.Status = memory.StatusActive
		empty.EvidenceEpisodeIDs, empty.EvidenceSpans = []string{}, []memory.Span{}
		bare := newBareVersion(ns, "ver-bare", epi, 2, at(22)) // nil lists, no embedding, no valid_to
		bare.Status = memory.StatusActive
		all = append(all, awkward, empty, bare)
		other := newMemory("tenant-b", "mem-1", "user", "prefers:editor", memory.Scope{})
		theirs := newVersion("tenant-b", "ver-a", other, 1, at(1))
		createAll(t, ctx, st, []*memory.Memory{mem, epi}, all)
		createAll(t, ctx, st, []*memory.Memory{other}, []*memory.Version{theirs})

		scanned, err := collectScan(st.ScanVersions, ctx, ns)
		must(t, err)
		want := slices.DeleteFunc(scanned, func(v *memory.Version) bool {
			return v.Status == memory.StatusDeleted || v.Status == memory.StatusQuarantined
		})
		got, err := collectScan(vs.StreamVersions, ctx, ns)
		must(t, err)
		wantIDs(t, "StreamVersions", ids(got, versionID), ids(want, versionID))
		if len(got) == len(want) {
			for i := range got {
				same(t, "streamed "+got[i].ID, want[i], got[i])
			}
		}
		// And as written, not only as scanned.
		for _, v := range got {
			for _, w := range all {
				if w.ID == v.ID {
					same(t, "streamed "+v.ID+" against what was written", w, v)
				}
			}
		}
		// Each version is the caller's: no two share memory.
		for i := range got {
			for j := range i {
				if got[i] == got[j] {
					t.Fatalf("versions %d and %d are one pointer", i, j)
				}
			}
		}
		checkScanStops(t, "StreamVersions", vs.StreamVersions, ctx, ns)
		gotOther, err := collectScan(vs.StreamVersions, ctx, "tenant-b")
		must(t, err)
		wantIDs(t, "StreamVersions of the other namespace", ids(gotOther, versionID), []string{"ver-a"})
		none, err := collectScan(vs.StreamVersions, ctx, "nobody")
		must(t, err)
		wantIDs(t, "StreamVersions of an empty namespace", ids(none, versionID), nil)
	})

	t.Run("Invalid", func(t *testing.T) {
		ctx, st := s.fresh(t)
		vs := streamer(t, st)
		_, err := collectScan(vs.StreamVersions, ctx, "")
		wantErr(t, "StreamVersions of an empty namespace name", err, memory.ErrInvalid)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := collectScan(vs.StreamVersions, cctx, ns); err == nil {
			t.Error("StreamVersions with a canceled context succeeded")
		}
		must(t, st.Close())
		if _, err := collectScan(vs.StreamVersions, ctx, ns); err == nil || errors.Is(err, context.Canceled) {
			t.Errorf("StreamVersions after Close: %v", err)
		}
	})
}
