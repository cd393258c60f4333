package scale

import (
	"github.com/mnemon-dev/mnemon/bench"
)

// medianOf folds runs of the same options into one report whose every
// measured number is the median over the runs, point by point: on a
// shared machine one run's ingest rate can be half another's. Counts that
// the seed fixes (memories, turns) are the same in every run.
func medianOf(runs []*Report) *Report {
	rep := *runs[0]
	rep.Sizes = make([]SizePoint, len(runs[0].Sizes))
	for i := range rep.Sizes {
		ps := make([]SizePoint, len(runs))
		for j, r := range runs {
			ps[j] = r.Sizes[i]
		}
		p := ps[0]
		p.IngestSeconds = med(ps, func(p SizePoint) float64 { return p.IngestSeconds })
		p.StatementsPerSecond = med(ps, func(p SizePoint) float64 { return p.StatementsPerSecond })
		p.MemoriesPerSecond = med(ps, func(p SizePoint) float64 { return p.MemoriesPerSecond })
		p.Retrieve = medLatency(ps, func(p SizePoint) Latency { return p.Retrieve })
		p.Resources = medResources(ps, func(p SizePoint) Resources { return p.Resources })
		rep.Sizes[i] = p
	}
	rep.Sessions = make([]SessionArm, len(runs[0].Sessions))
	for a := range rep.Sessions {
		arm := runs[0].Sessions[a]
		arm.Points = make([]SessionPoint, len(runs[0].Sessions[a].Points))
		for i := range arm.Points {
			ps := make([]SessionPoint, len(runs))
			for j, r := range runs {
				ps[j] = r.Sessions[a].Points[i]
			}
			p := ps[0]
			p.CaptureSeconds = med(ps, func(p SessionPoint) float64 { return p.CaptureSeconds })
			p.TurnsPerSecond = med(ps, func(p SessionPoint) float64 { return p.TurnsPerSecond })
			p.Retrieve = medLatency(ps, func(p SessionPoint) Latency { return p.Retrieve })
			p.Resources = medResources(ps, func(p SessionPoint) Resources { return p.Resources })
			arm.Points[i] = p
		}
		if len(arm.Points) == 0 {
			arm.Points = nil
		}
		rep.Sessions[a] = arm
	}
	if len(rep.Sizes) == 0 {
		rep.Sizes = nil
	}
	if len(rep.Sessions) == 0 {
		rep.Sessions = nil
	}
	return &rep
}

func med[P any](ps []P, get func(P) float64) float64 {
	xs := make([]float64, len(ps))
	for i, p := range ps {
		xs[i] = get(p)
	}
	return bench.Percentile(xs, 50)
}

func medLatency[P any](ps []P, get func(P) Latency) Latency {
	return Latency{
		P50: med(ps, func(p P) float64 { return get(p).P50 }),
		P95: med(ps, func(p P) float64 { return get(p).P95 }),
		P99: med(ps, func(p P) float64 { return get(p).P99 }),
	}
}

func medResources[P any](ps []P, get func(P) Resources) Resources {
	m := func(f func(Resources) int64) int64 {
		return int64(med(ps, func(p P) float64 { return float64(f(get(p))) }))
	}
	return Resources{
		DBBytes:       m(func(r Resources) int64 { return r.DBBytes }),
		WALBytes:      m(func(r Resources) int64 { return r.WALBytes }),
		DataBytes:     m(func(r Resources) int64 { return r.DataBytes }),
		TraceBytes:    m(func(r Resources) int64 { return r.TraceBytes }),
		RSSBytes:      m(func(r Resources) int64 { return r.RSSBytes }),
		RSSPeakBytes:  m(func(r Resources) int64 { return r.RSSPeakBytes }),
		HeapLiveBytes: m(func(r Resources) int64 { return r.HeapLiveBytes }),
	}
}
