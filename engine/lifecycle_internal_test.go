package engine

import (
	"math"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// TestLifecycleSmoothsTrustOncePerRun: a version that decays and then
// loses its contest in the same run moves its trust by one smoothing step
// toward where it ends, not by two.
func TestLifecycleSmoothsTrustOncePerRun(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	old := now.Add(-48 * time.Hour)
	mk := func(id string, st memory.Status, u, c, trust float64) *memory.Version {
		return &memory.Version{ID: id, MemoryID: "mem_1", Namespace: "ns", Kind: memory.KindSemantic, Subject: "user", Key: "lives_in",
			Status: st, Usefulness: u, Confidence: c, Trust: trust, UpdatedAt: old, ObservedAt: old, RecordedAt: old, ValidFrom: old}
	}
	a := mk("ver_a", memory.StatusActive, 0.9, 0.9, 0.8)
	b := mk("ver_b", memory.StatusContested, 0.3, 0.4, 0.8)
	rep := &LifecycleReport{}
	changed := planLifecycle([]*memory.Version{a, b}, now, 100, rep)
	var got *memory.Version
	for _, v := range changed {
		if v.ID == "ver_b" {
			got = v
		}
	}
	if got == nil || got.Status == memory.StatusContested {
		t.Fatalf("b not changed by decay and contest: %+v (report %+v)", got, rep)
	}
	want := 0.8 + TrustEMA*(trustOf(got, now)-0.8)
	if math.Abs(got.Trust-want) > 1e-9 {
		t.Fatalf("b's trust %.4f, want one smoothing step %.4f", got.Trust, want)
	}
}
