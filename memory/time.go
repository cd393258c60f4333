package memory

import "time"

// MinTime and MaxTime bound every time mnemon takes from a caller: when an
// event happened or a statement was observed, a fact's validity, the as_of
// and known_at of a retrieval or a graph query, and those times in an
// imported export. Checking them once, where they come in, means nothing
// accepted fails later in the store (a retrieval's trace could otherwise
// not be written, and its id would then be unknown to explain).
//
// A backend may keep times as int64 unix nanoseconds, which hold
// 1677-09-21 to 2262-04-11 and no more. The accepted range sits well inside
// that, so that times mnemon derives from an accepted one (when an
// episode's retention is next checked, when a summary's episodes may be
// purged) stay storable too; and it still spans any date a memory about
// people and projects is dated with.
var (
	MinTime = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// CheckTime returns an invalid_timestamp Error naming field ("as_of",
// "--as-of", "events[2].occurred_at") if t is outside MinTime..MaxTime
// (both included). The zero time is outside too: a caller that means "not
// set" leaves the field out.
func CheckTime(field string, t time.Time) error {
	if !t.Before(MinTime) && !t.After(MaxTime) {
		return nil
	}
	rng := "the storable range " + MinTime.Format(time.DateOnly) + " to " + MaxTime.Format(time.DateOnly)
	at := t.UTC().Format(time.RFC3339Nano)
	msg := field + " " + at + " is outside " + rng
	if t.IsZero() {
		msg = field + " " + at + " is the zero time, outside " + rng + "; leave the field out for its default"
	}
	return &Error{Code: CodeInvalidTimestamp, Field: field, Kind: ErrInvalid, Message: msg}
}
