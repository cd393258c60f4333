package memory

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"
)

// traceBinaryDeflated marks version 4: a version 2 or 3 encoding compressed
// with DEFLATE (RFC 1951) at its fastest level. A retrieval's trace repeats
// ids, names and explanation phrases across its ~120 candidates; on the
// peers workload version 2 took 9.5 KB a trace and this takes about 4.5 KB,
// at some tens of microseconds on the trace writer's goroutine, off the
// request path. A store whose engine compresses large values itself
// (PostgreSQL's TOAST) keeps writing version 2. SQLite wrote this version
// until version 5 (tracecompact.go), which costs a fraction of its CPU;
// rows written in it still read.
const traceBinaryDeflated = 4

// maxInflatedTrace bounds what a version 4 encoding may inflate to, so a
// damaged or hostile row cannot make a reader allocate without limit.
const maxInflatedTrace = 64 << 20

var deflaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed) // the level is valid: no error
	return w
}}

// AppendCompressed appends the version 4 encoding of the items to b:
// AppendBinary's bytes, deflated. DecodeTraceItems reads it back exactly.
// scratch, if not nil, holds the uncompressed bytes on the way (it is
// reused; its new contents are returned).
func (ts TraceItems) AppendCompressed(b, scratch []byte) (out, scratchOut []byte) {
	scratch = ts.AppendBinary(scratch[:0])
	buf := bytes.NewBuffer(append(b, traceBinaryDeflated))
	w := deflaters.Get().(*flate.Writer)
	w.Reset(buf)
	// Writes to a bytes.Buffer do not fail.
	_, _ = w.Write(scratch)
	_ = w.Close()
	deflaters.Put(w)
	return buf.Bytes(), scratch
}

// inflateTrace returns the version 2 or 3 encoding inside a version 4 one.
func inflateTrace(b []byte) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader(b[1:]))
	defer r.Close()
	out, err := io.ReadAll(io.LimitReader(r, maxInflatedTrace+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadTraceItems, err)
	}
	if len(out) > maxInflatedTrace {
		return nil, fmt.Errorf("%w: inflates past %d bytes", ErrBadTraceItems, maxInflatedTrace)
	}
	if len(out) == 0 || out[0] != traceBinaryVersion && out[0] != traceBinaryV3 {
		return nil, fmt.Errorf("%w: a deflated trace holds no version %d or %d encoding", ErrBadTraceItems, traceBinaryVersion, traceBinaryV3)
	}
	return out, nil
}
