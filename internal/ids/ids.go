// Package ids makes sortable, prefixed identifiers ("mem_01J...") so an id
// says what it names and sorts by creation time.
package ids

import (
	"crypto/rand"
	"strings"
	"sync"
	"time"

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

// gen issues every id of the process. The clock is read under the same lock
// that draws the entropy, so ids issued one after the other sort in that
// order even across goroutines (ulid.Make reads the clock before taking its
// lock: two callers could draw in the other order, and the one with the
// earlier millisecond, drawing second, got fresh entropy below the first's).
var gen struct {
	sync.Mutex
	lastMS  uint64
	entropy *ulid.MonotonicEntropy
}

func init() {
	gen.entropy = ulid.Monotonic(rand.Reader, 0)
}

// now is the clock, a variable for tests that make it step back.
var now = time.Now

// issued, when set (by tests), sees every id under the lock, in the order
// they are issued.
var issued func(ulid.ULID)

// New returns a fresh identifier with the given prefix. Ids from one process
// sort in the order New returned them: the millisecond never goes backwards
// (a wall clock that steps back keeps the last one) and within a
// millisecond the random part grows.
func New(prefix string) string {
	gen.Lock()
	ms := ulid.Timestamp(now())
	if ms < gen.lastMS {
		ms = gen.lastMS
	}
	id, err := ulid.New(ms, gen.entropy)
	for err == ulid.ErrMonotonicOverflow {
		// The random part overflowed within this millisecond (after about
		// 2^48 ids in it, never in practice): move on to the next one.
		ms++
		id, err = ulid.New(ms, gen.entropy)
	}
	if err != nil {
		gen.Unlock()
		panic("ids: " + err.Error()) // as ulid.Make: the clock or crypto/rand failed
	}
	gen.lastMS = ms
	if issued != nil {
		issued(id)
	}
	gen.Unlock()
	return prefix + "_" + strings.ToLower(id.String())
}

// HasPrefix reports whether id was made with prefix.
func HasPrefix(id, prefix string) bool {
	return strings.HasPrefix(id, prefix+"_")
}
