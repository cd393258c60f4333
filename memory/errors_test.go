package memory_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mnemon-dev/mnemon/memory"
)

// driverError stands in for a database driver's error: text a client must
// never see.
type driverError struct{}

func (driverError) Error() string { return "UNIQUE constraint failed: memories.id" }

// TestErrorCarriesItsPublicFace checks what every transport relies on: the
// Error a chain carries is found with errors.As whatever operations wrap
// it, its sentinel still answers errors.Is, context added with Within is
// part of the message, and a cause that is no Error stays out of the
// message but in the log text and the chain.
func TestErrorCarriesItsPublicFace(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		err       error
		code      string
		field     string
		message   string
		logText   string
		sentinels []error
	}{
		{
			name:    "invalid under operation prefixes",
			err:     fmt.Errorf("capture: %w", fmt.Errorf("sqlite: create episode: %w", memory.Invalidf("content is empty"))),
			code:    memory.CodeInvalid,
			message: "content is empty",
			logText: "capture: sqlite: create episode: content is empty", sentinels: []error{memory.ErrInvalid},
		},
		{
			name:    "context added where the caller needs it",
			err:     fmt.Errorf("import: %w", memory.Within(memory.Within(memory.Invalidf("outcome %q: use helpful, unused or harmful", "x"), "feedback %s", "fb_1"), "line %d", 4)),
			code:    memory.CodeInvalid,
			message: `line 4: feedback fb_1: outcome "x": use helpful, unused or harmful`,
			logText: `import: line 4: feedback fb_1: outcome "x": use helpful, unused or harmful`, sentinels: []error{memory.ErrInvalid},
		},
		{
			name:    "a field and its own code",
			err:     memory.CheckTime("as_of", memory.MaxTime.AddDate(1, 0, 0)),
			code:    memory.CodeInvalidTimestamp,
			field:   "as_of",
			message: "as_of 2201-01-01T00:00:00Z is outside the storable range 1900-01-01 to 2200-01-01",
			logText: "as_of 2201-01-01T00:00:00Z is outside the storable range 1900-01-01 to 2200-01-01", sentinels: []error{memory.ErrInvalid},
		},
		{
			name:    "recoded by the use case that called the check",
			err:     fmt.Errorf("consolidate: %w", memory.WithCode(memory.ValidateScopeID("session id", "\x00"), memory.CodeInvalidSession)),
			code:    memory.CodeInvalidSession,
			field:   "session id",
			message: "session id contains control characters",
			logText: "consolidate: session id contains control characters", sentinels: []error{memory.ErrInvalid},
		},
		{
			name:    "a conflict keeps the driver's text for the log only",
			err:     memory.Within(memory.Conflictf(driverError{}, "it is stored already"), "memory %s", "mem_1"),
			code:    memory.CodeConflict,
			message: "memory mem_1: it is stored already",
			logText: "memory mem_1: it is stored already: UNIQUE constraint failed: memories.id", sentinels: []error{memory.ErrConflict, driverError{}},
		},
		{
			name:    "a conflict on its own",
			err:     memory.Conflictf(driverError{}, "it is stored already"),
			code:    memory.CodeConflict,
			message: "it is stored already",
			logText: "it is stored already: UNIQUE constraint failed: memories.id", sentinels: []error{memory.ErrConflict, driverError{}},
		},
		{
			name:    "a namespace",
			err:     memory.ValidateNamespace("a b"),
			code:    memory.CodeInvalidNamespace,
			field:   "namespace",
			message: `namespace "a b": use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit`,
			logText: `namespace "a b": use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit`, sentinels: []error{memory.ErrInvalid},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var pe *memory.Error
			if !errors.As(c.err, &pe) {
				t.Fatalf("%v carries no *memory.Error", c.err)
			}
			if pe.Code != c.code || pe.Field != c.field || pe.Message != c.message {
				t.Errorf("code %q field %q message %q, want %q %q %q", pe.Code, pe.Field, pe.Message, c.code, c.field, c.message)
			}
			if got := c.err.Error(); got != c.logText {
				t.Errorf("Error() %q, want %q", got, c.logText)
			}
			for _, s := range c.sentinels {
				if !errors.Is(c.err, s) {
					t.Errorf("errors.Is(%v, %v) is false", c.err, s)
				}
			}
			if errors.Is(c.err, memory.ErrNotFound) {
				t.Errorf("%v is ErrNotFound", c.err)
			}
		})
	}
}

// TestWithinAndWithCodeLeaveOtherErrors checks that an error no Error
// carries keeps its text and chain.
func TestWithinAndWithCodeLeaveOtherErrors(t *testing.T) {
	t.Parallel()
	base := fmt.Errorf("sqlite: get memory: %w", memory.ErrNotFound)
	within := memory.Within(base, "line %d", 2)
	if within.Error() != "line 2: sqlite: get memory: not found" || !errors.Is(within, memory.ErrNotFound) {
		t.Errorf("Within: %q", within)
	}
	var pe *memory.Error
	if errors.As(within, &pe) {
		t.Errorf("Within made a public error of %v", base)
	}
	if got := memory.WithCode(base, memory.CodeInvalidSession); got != base {
		t.Errorf("WithCode changed %v into %v", base, got)
	}
}
