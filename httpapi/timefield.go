package httpapi

import (
	"time"

	"github.com/mnemon-dev/mnemon/memory"
)

// The request and response bodies of the API are package wire's types;
// handlers convert the engine's values to them with package wireconv.

// timeField parses an optional RFC 3339 time field: absent is nil; a time
// outside the storable range, the zero time included, is refused.
func timeField(name, s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, &apiError{status: 400, code: CodeInvalidTimestamp,
			detail: name + " " + quote(s) + " is not an RFC 3339 time such as 2026-05-01T12:00:00Z"}
	}
	t = t.UTC()
	if err := memory.CheckTime(name, t); err != nil {
		return nil, err
	}
	return &t, nil
}
