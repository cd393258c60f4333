// Package ids makes sortable, prefixed identifiers ("mem_01J...") so an id
// says what it names and sorts by creation time.
package ids

import (
	"strings"

	"github.com/oklog/ulid/v2"
)

// Prefixes of mnemon's identifiers.
const (
	Memory    = "mem"
	Version   = "ver"
	Episode   = "ep"
	Admission = "adm"
	Retrieval = "ret"
	Key       = "key" // API keys
	Feedback  = "fb"
	Job       = "job" // background jobs (the queue's own numbers stay inside)
)

// New returns a fresh identifier with the given prefix. ulid.Make is safe for
// concurrent use and monotonic within a millisecond.
func New(prefix string) string {
	return prefix + "_" + strings.ToLower(ulid.Make().String())
}

// HasPrefix reports whether id was made with prefix.
func HasPrefix(id, prefix string) bool {
	return strings.HasPrefix(id, prefix+"_")
}
