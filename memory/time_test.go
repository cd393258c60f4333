package memory_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

func TestCheckTime(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		at   time.Time
		want string // "" when in range
	}{
		{"first instant", memory.MinTime, ""},
		{"last instant", memory.MaxTime, ""},
		{"a day in range", time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), ""},
		{"in range in another zone", time.Date(1900, 1, 1, 3, 0, 0, 0, time.FixedZone("CET", 3600)), ""},
		{"year 9999", time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC),
			"as_of 9999-12-31T00:00:00Z is outside the storable range 1900-01-01 to 2200-01-01"},
		{"year 1000", time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC),
			"as_of 1000-01-01T00:00:00Z is outside the storable range 1900-01-01 to 2200-01-01"},
		{"zero time", time.Time{},
			"as_of 0001-01-01T00:00:00Z is the zero time, outside the storable range 1900-01-01 to 2200-01-01; leave the field out for its default"},
		{"just before", memory.MinTime.Add(-time.Nanosecond),
			"as_of 1899-12-31T23:59:59.999999999Z is outside the storable range 1900-01-01 to 2200-01-01"},
		{"just after", memory.MaxTime.Add(time.Nanosecond),
			"as_of 2200-01-01T00:00:00.000000001Z is outside the storable range 1900-01-01 to 2200-01-01"},
		{"shown in UTC", time.Date(2300, 1, 1, 1, 0, 0, 0, time.FixedZone("CET", 3600)),
			"as_of 2300-01-01T00:00:00Z is outside the storable range 1900-01-01 to 2200-01-01"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := memory.CheckTime("as_of", c.at)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var pe *memory.Error
			if !errors.As(err, &pe) || !errors.Is(err, memory.ErrInvalid) || pe.Code != memory.CodeInvalidTimestamp || pe.Field != "as_of" {
				t.Fatalf("err = %#v, want an invalid_timestamp *memory.Error for as_of that is ErrInvalid", err)
			}
			if err.Error() != c.want {
				t.Errorf("message\n%q, want\n%q", err.Error(), c.want)
			}
			if strings.Contains(err.Error(), memory.ErrInvalid.Error()) {
				t.Errorf("message repeats the sentinel: %q", err)
			}
		})
	}
}
