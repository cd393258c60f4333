package engine

import (
	"math"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// The trust model.
//
// trustOf (ranking.go) is a version's trust target: what its confidence,
// usefulness, reinforcement and failure counts, importance and contested
// history say right now. The stored Version.Trust follows it:
//
//   - reconciliation (a new version, a restatement, a contest) sets it to
//     the target: that is fresh evidence about the claim itself;
//   - every feedback outcome moves it only part of the way, an exponential
//     moving average with weight TrustEMA, so one outcome cannot swing it:
//     from FOLLOW (≥ 0.75) a single outcome, even one whose target is 0,
//     leaves at least 0.75 × (1 − 0.3) = 0.525, still HINT (≥ 0.45).
//
// Retrieval reads the stored trust (trustAt), less a small staleness
// penalty for old claims nobody has confirmed, and reports an uncertainty
// next to it (uncertaintyOf).

// TrustEMA is the weight a feedback outcome's trust target gets against
// the trust a version already had.
const TrustEMA = 0.3

// staleAfter is the age at which an unconfirmed claim has lost all of
// stalePenalty (linearly): a year-old fact nobody has restated or found
// helpful is worth a little less trust than a fresh one.
const (
	staleAfter   = 365 * 24 * time.Hour
	stalePenalty = 0.05
)

// trustAt is the trust retrieval acts on: the stored trust (smoothed by
// feedback) less the staleness penalty. A version stored without a trust
// (none of mnemon's writers does that) gets its target.
func trustAt(v *memory.Version, now time.Time) float64 {
	t := v.Trust
	if t <= 0 {
		t = trustOf(v, now)
	}
	return clamp01(t - staleness(v, now))
}

// staleness grows with the time since the claim was observed, and
// vanishes once it has been confirmed three times.
func staleness(v *memory.Version, now time.Time) float64 {
	age := now.Sub(v.ObservedAt)
	if age <= 0 || v.ObservedAt.IsZero() {
		return 0
	}
	confirmed := minf(1, float64(v.ReinforcementCount)/3)
	return stalePenalty * minf(1, float64(age)/float64(staleAfter)) * (1 - confirmed)
}

// smoothTrust moves v's stored trust toward its target by TrustEMA, after
// a feedback outcome has changed the target's inputs.
func smoothTrust(v *memory.Version, now time.Time) {
	target := trustOf(v, now)
	if v.Trust <= 0 {
		v.Trust = target
		return
	}
	v.Trust = clamp01(v.Trust + TrustEMA*(target-v.Trust))
}

// uncertaintyOf says how little the outcomes so far settle a version's
// trust, from 0 (many confirmations, all one way) to 1 (none yet, or as
// many failures as confirmations). It is derived from the counters, so it
// needs no column of its own:
//
//	sparsity = 1 / (1 + n/2)          n = reinforcements + failures
//	conflict = 2·min(r, f) / n        0 when one-sided, 1 when split evenly
//	uncertainty = 1 − (1 − sparsity)·(1 − 0.8·conflict)
//
// A fact never confirmed is 1; confirmed twice 0.5; six times 0.25; three
// confirmations against three failures 0.85.
func uncertaintyOf(v *memory.Version) float64 {
	r, f := float64(v.ReinforcementCount), float64(v.FailureCount)
	n := r + f
	sparsity := 1 / (1 + n/2)
	conflict := 0.0
	if n > 0 {
		conflict = 2 * math.Min(r, f) / n
	}
	return round4(clamp01(1 - (1-sparsity)*(1-0.8*conflict)))
}
