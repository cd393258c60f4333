package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Every duration mnemon is configured with (flags, MNEMON_ variables, the
// config file) is written one way: a Go duration string, "30s", "5m",
// "720h". Go's syntax has no unit above hours, so a whole or decimal number
// of days ("7d", "1.5d") is read too: ages of sessions are given in days.
//
// Config fields that took a number of seconds (request_timeout_seconds and
// the like) are still read, with a deprecation warning naming the field
// that replaces them; setting both spellings of one setting in the same
// place is an error, because nothing says which one was meant.

// parseDuration reads a duration setting (see above).
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		// A sign, digits and a point only: ParseFloat would also take
		// "inf" or "1e9", which no one means by a number of days. A
		// negative one parses, as "-5m" does, for the caller to refuse
		// by name.
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || strings.Trim(strings.TrimPrefix(days, "-"), "0123456789.") != "" || math.Abs(n) > maxDays {
			return 0, errors.New("not a duration")
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	return time.ParseDuration(s)
}

// maxDays keeps a number of days inside time.Duration's range (about 292
// years).
const maxDays = 100_000

// durationHint is what a duration error tells the user to write.
const durationHint = "use a duration like 30s, 5m or 720h"

// durationSetting is one duration of the server config: its field, its
// MNEMON_ variable, and the deprecated field in seconds it replaces.
type durationSetting struct {
	field   string    // config field, e.g. "request_timeout"
	env     string    // MNEMON_ variable
	value   *string   // the field's value in the config ("" when not set)
	seconds **float64 // the deprecated "<field>_seconds" number; nil when not set
	def     time.Duration
	into    *time.Duration // where serverConfig.timeouts puts the result
}

// oldField is the deprecated spelling's name.
func (s durationSetting) oldField() string { return s.field + "_seconds" }

// resolve returns the setting's duration (its default when it is unset or
// 0) and the name of the field it was read from, for messages.
func (s durationSetting) resolve() (time.Duration, string, error) {
	set, old := strings.TrimSpace(*s.value) != "", *s.seconds
	var d time.Duration
	name := s.field
	switch {
	case set && old != nil:
		return 0, name, usagef("%s and %s are both set; keep %s (%s) and remove %s, which is deprecated", s.field, s.oldField(), s.field, durationHint, s.oldField())
	case old != nil:
		name = s.oldField()
		if *old < 0 {
			return 0, name, usagef("%s %g: must not be negative (0 or leaving it out gives the default)", name, *old)
		}
		if *old > maxDays*24*3600 {
			return 0, name, usagef("%s %g: too long (at most %d days)", name, *old, maxDays)
		}
		d = time.Duration(*old * float64(time.Second))
	case set:
		var err error
		if d, err = parseDuration(*s.value); err != nil {
			return 0, name, usagef("%s %q is not a duration: %s", name, *s.value, durationHint)
		}
		if d < 0 {
			return 0, name, usagef("%s %q: must not be negative (0 or leaving it out gives the default)", name, *s.value)
		}
	}
	if d == 0 {
		d = s.def
	}
	return d, name, nil
}

// deprecation is the warning for a setting given in seconds, "" when it is
// not.
func (s durationSetting) deprecation() string {
	if *s.seconds == nil {
		return ""
	}
	d := time.Duration(**s.seconds * float64(time.Second))
	return fmt.Sprintf("config field %s is deprecated: write %q: %q (a duration) instead", s.oldField(), s.field, shortDuration(d))
}

// shortDuration prints d as a user would write it: "90s", "5m", "2h30m".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// defaultSync is the durability of a commit when nothing sets it, the same
// for every command that opens the database (serve, worker, mcp and the
// one-shot commands): see 'mnemon help serve'.
const defaultSync = "normal"

// syncLevel maps a sync setting (normal or full; "" for the default) to
// the store's synchronous level.
func syncLevel(v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "":
		return syncLevel(defaultSync)
	case "normal":
		return "NORMAL", nil
	case "full":
		return "FULL", nil
	}
	return "", errors.New("use normal or full")
}

// defaultCompactOnExitMB is the largest SQLite file (MiB) serve and mcp
// compact when they stop: a VACUUM of 64 MiB takes a second or two.
const defaultCompactOnExitMB = 64

// compactOnExit turns the compact_on_exit_mb setting (MiB; 0 the default,
// -1 never) into the store's CompactOnClose.
func compactOnExit(mb int) (int64, error) {
	switch {
	case mb == -1:
		return 0, nil
	case mb < 0:
		return 0, usagef("compact_on_exit_mb %d (--compact-on-exit, MNEMON_COMPACT_ON_EXIT_MB): use a size in MiB, 0 for the default (%d) or -1 for never", mb, defaultCompactOnExitMB)
	case mb == 0:
		mb = defaultCompactOnExitMB
	}
	return int64(mb) << 20, nil
}
