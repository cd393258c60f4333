package engine

import (
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// The engine checks every time a caller gives against memory.MinTime and
// MaxTime before it writes anything, as the transports do: an in-process
// caller gets the same refusal, and nothing is half-written. A time.Time
// field whose zero value means "not set" (an event's occurred_at, an
// observation time: default now) is checked only when set; an optional
// *time.Time that points at the zero time was given, and is refused.

func checkSetTime(field string, t time.Time) error {
	if t.IsZero() {
		return nil
	}
	return memory.CheckTime(field, t)
}

func checkTimePtr(field string, t *time.Time) error {
	if t == nil {
		return nil
	}
	return memory.CheckTime(field, *t)
}

// firstTimeError returns the first error of errs, in order.
func firstTimeError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkRememberTimes checks the times of one remember.
func checkRememberTimes(p RememberParams) error {
	return firstTimeError(
		checkSetTime("observed_at", p.ObservedAt),
		checkTimePtr("valid_from", p.ValidFrom),
		checkTimePtr("valid_to", p.ValidTo),
	)
}

// checkRecordTimes checks the times an imported record carries from
// outside mnemon (when things happened and were true, what a retrieval
// asked about), as capture, remember and retrieve check them. Every
// episode has its time, so a zero one is refused; a version's may be unset.
// The times mnemon stamps itself are left to the store, which refuses what
// it cannot hold.
func checkRecordTimes(rec *Record) error {
	switch {
	case rec.Episode != nil:
		return memory.CheckTime("episode "+rec.Episode.ID+" occurred_at", rec.Episode.OccurredAt)
	case rec.Version != nil:
		v := rec.Version
		return firstTimeError(
			checkSetTime("version "+v.ID+" observed_at", v.ObservedAt),
			checkSetTime("version "+v.ID+" valid_from", v.ValidFrom),
			checkTimePtr("version "+v.ID+" valid_to", v.ValidTo),
		)
	case rec.Trace != nil:
		return firstTimeError(
			checkTimePtr("trace "+rec.Trace.ID+" as_of", rec.Trace.AsOf),
			checkTimePtr("trace "+rec.Trace.ID+" known_at", rec.Trace.KnownAt),
		)
	}
	return nil
}
