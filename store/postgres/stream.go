package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/mnemon-dev/mnemon/memory"
)

// StreamVersions (memory.VersionStreamer) is the read a replica builds a
// namespace's search index from. ScanVersions pages through a cursor, 512
// rows a round trip, each page decoded by pgx's reflection-driven Scan and
// encoding/json into a slice before the caller sees a row: at 100k
// versions that was most of an index load. Here one statement streams the
// rows (the server sends while the caller works), every column in binary
// format, and each row is decoded straight from the wire bytes: integers
// and floats read in place, repeated short strings (namespace, scope, kind,
// status, provenance) interned, the two jsonb lists parsed by hand in the
// form PostgreSQL prints them (decodeJSONB; anything else goes to
// encoding/json, which stays the definition of correct).
//
// One statement sees one snapshot, so no transaction is needed.
const qStreamVersions = `SELECT ` + versionCols + ` FROM versions
	WHERE namespace = $1 AND status NOT IN ('deleted', 'quarantined') ORDER BY id`

var _ memory.VersionStreamer = (*Store)(nil)

// StreamVersions implements memory.VersionStreamer.
func (s *Store) StreamVersions(ctx context.Context, p memory.ScanParams, fn func(*memory.Version) error) error {
	const op = "stream versions"
	if err := checkNamespace(p.Namespace); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	rows, err := s.pool.Query(ctx, qStreamVersions, pgx.QueryResultFormats{pgx.BinaryFormatCode}, p.Namespace)
	if err != nil {
		return fmt.Errorf("postgres: %s: %w", op, mapErr(err))
	}
	defer rows.Close()
	d, err := newRowDecoder(rows.FieldDescriptions())
	if err != nil {
		return fmt.Errorf("postgres: %s: %w", op, err)
	}
	for rows.Next() {
		v, err := d.version(rows.RawValues())
		if err != nil {
			return fmt.Errorf("postgres: %s: %w", op, err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres: %s: %w", op, mapErr(err))
	}
	return nil
}

// colType is how a column's binary value is read.
type colType uint8

const (
	colText colType = iota
	colInt
	colFloat
	colJSON
	colBytes
)

// versionColTypes are versionCols' columns in order.
var versionColTypes = [...]colType{
	colText, colText, colText, colInt, colText, colText, colText, colText, // namespace … session_id
	colText, colText, colText, colText, colText, colText, colText, // kind … criticality
	colFloat, colFloat, colFloat, colInt, colInt, // confidence … failure_count
	colText, colText, colText, // status, operation, superseded_by
	colInt, colInt, colInt, colInt, colInt, // observed_at … updated_at
	colJSON, colJSON, // evidence
	colText, colText, colText, colText, colInt, colText, // provenance
	colInt, colText, colBytes, // tokens, search_text, embedding
}

// rowDecoder decodes rows of qStreamVersions.
type rowDecoder struct {
	oids [len(versionColTypes)]uint32
	syms map[string]string
	err  error
	raw  [][]byte
	col  int
}

// newRowDecoder checks that every column is in binary format and of a type
// its reader understands; a schema that disagrees is an error, not a guess.
func newRowDecoder(fds []pgconn.FieldDescription) (*rowDecoder, error) {
	d := &rowDecoder{syms: make(map[string]string)}
	if len(fds) != len(versionColTypes) {
		return nil, fmt.Errorf("%d columns, want %d", len(fds), len(versionColTypes))
	}
	for i, fd := range fds {
		if fd.Format != pgx.BinaryFormatCode {
			return nil, fmt.Errorf("column %s: format %d, want binary", fd.Name, fd.Format)
		}
		ok := false
		switch versionColTypes[i] {
		case colText:
			ok = fd.DataTypeOID == pgtype.TextOID || fd.DataTypeOID == pgtype.VarcharOID
		case colInt:
			ok = fd.DataTypeOID == pgtype.Int2OID || fd.DataTypeOID == pgtype.Int4OID || fd.DataTypeOID == pgtype.Int8OID
		case colFloat:
			ok = fd.DataTypeOID == pgtype.Float4OID || fd.DataTypeOID == pgtype.Float8OID
		case colJSON:
			ok = fd.DataTypeOID == pgtype.JSONBOID || fd.DataTypeOID == pgtype.JSONOID
		case colBytes:
			ok = fd.DataTypeOID == pgtype.ByteaOID
		}
		if !ok {
			return nil, fmt.Errorf("column %s: unexpected type oid %d", fd.Name, fd.DataTypeOID)
		}
		d.oids[i] = fd.DataTypeOID
	}
	return d, nil
}

func (d *rowDecoder) next() ([]byte, uint32) {
	i := d.col
	d.col++
	return d.raw[i], d.oids[i]
}

func (d *rowDecoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("column %d: "+format, append([]any{d.col - 1}, args...)...)
	}
}

// str reads a text column into a new string. NULL, which the schema does
// not allow, fails as pgx's Scan into a string would.
func (d *rowDecoder) str() string {
	b, _ := d.next()
	if b == nil {
		d.fail("NULL in a text column")
	}
	return string(b)
}

// sym reads a text column whose values repeat across rows, copying each
// distinct value once.
func (d *rowDecoder) sym() string {
	b, _ := d.next()
	if b == nil {
		d.fail("NULL in a text column")
		return ""
	}
	if len(b) == 0 {
		return ""
	}
	if s, ok := d.syms[string(b)]; ok { // no allocation for the lookup
		return s
	}
	s := string(b)
	if len(d.syms) < 4096 { // bounded: a column of distinct values is not worth keeping
		d.syms[s] = s
	}
	return s
}

// int64p reads an integer column; NULL is nil.
func (d *rowDecoder) int64p() (int64, bool) {
	b, oid := d.next()
	if b == nil {
		return 0, false
	}
	switch {
	case oid == pgtype.Int2OID && len(b) == 2:
		return int64(int16(binary.BigEndian.Uint16(b))), true
	case oid == pgtype.Int4OID && len(b) == 4:
		return int64(int32(binary.BigEndian.Uint32(b))), true
	case oid == pgtype.Int8OID && len(b) == 8:
		return int64(binary.BigEndian.Uint64(b)), true
	}
	d.fail("integer of %d bytes", len(b))
	return 0, false
}

func (d *rowDecoder) int() int64 {
	n, ok := d.int64p()
	if !ok {
		d.fail("NULL in an integer column")
	}
	return n
}

func (d *rowDecoder) float() float64 {
	b, oid := d.next()
	switch {
	case b == nil:
		d.fail("NULL in a float column")
	case oid == pgtype.Float8OID && len(b) == 8:
		return math.Float64frombits(binary.BigEndian.Uint64(b))
	case oid == pgtype.Float4OID && len(b) == 4:
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b)))
	default:
		d.fail("float of %d bytes", len(b))
	}
	return 0
}

// jsonText reads a json or jsonb column as JSON text (jsonb's binary form
// is a version byte, 1, and the text).
func (d *rowDecoder) jsonText() []byte {
	b, oid := d.next()
	if b == nil {
		d.fail("NULL in a json column")
		return nil
	}
	if oid == pgtype.JSONBOID {
		if len(b) == 0 || b[0] != 1 {
			d.fail("jsonb of unknown version")
			return nil
		}
		b = b[1:]
	}
	return b
}

// bytes reads a bytea column into a new slice; NULL is nil, as pgx scans
// it.
func (d *rowDecoder) bytes() []byte {
	b, _ := d.next()
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}

// version decodes one row. It copies everything it keeps: raw is pgx's
// buffer, reused for the next row.
func (d *rowDecoder) version(raw [][]byte) (*memory.Version, error) {
	if len(raw) != len(versionColTypes) {
		return nil, fmt.Errorf("%d values, want %d", len(raw), len(versionColTypes))
	}
	d.raw, d.col, d.err = raw, 0, nil
	v := &memory.Version{}
	v.Namespace = d.sym()
	v.ID = d.str()
	v.MemoryID = d.str()
	v.Seq = int(d.int())
	v.Scope = memory.Scope{AgentID: d.sym(), UserID: d.sym(), ProjectID: d.sym(), SessionID: d.sym()}
	v.Kind = memory.Kind(d.sym())
	v.Type = memory.Type(d.sym())
	v.Subject = d.sym()
	v.Key = d.str()
	v.Value = d.str()
	v.Content = d.str()
	v.Criticality = memory.Criticality(d.sym())
	v.Confidence, v.Usefulness, v.Trust = d.float(), d.float(), d.float()
	v.ReinforcementCount, v.FailureCount = int(d.int()), int(d.int())
	v.Status = memory.Status(d.sym())
	v.Operation = memory.Operation(d.sym())
	v.SupersededBy = d.str()
	v.ObservedAt, v.RecordedAt, v.ValidFrom = fromNanos(d.int()), fromNanos(d.int()), fromNanos(d.int())
	if n, ok := d.int64p(); ok {
		t := fromNanos(n)
		v.ValidTo = &t
	}
	v.UpdatedAt = fromNanos(d.int())
	evIDs, evSpans := d.jsonText(), d.jsonText()
	v.Provenance = memory.Provenance{
		Extractor: d.sym(), Model: d.sym(), PromptVersion: d.sym(), Embedder: d.sym(),
		EmbedderDim: int(d.int()), Source: d.sym(),
	}
	v.Tokens = int(d.int())
	v.SearchText = d.str()
	v.Embedding = d.bytes()
	if d.err != nil {
		return nil, fmt.Errorf("version %s: %w", v.ID, d.err)
	}
	if err := decodeJSONB("evidence_episode_ids", evIDs, &v.EvidenceEpisodeIDs); err != nil {
		return nil, err
	}
	if err := decodeJSONB("evidence_spans", evSpans, &v.EvidenceSpans); err != nil {
		return nil, err
	}
	return v, nil
}

// decodeJSONB decodes a version's evidence lists as unjson does, with the
// shapes PostgreSQL prints them in (`["a", "b"]`, `[{"end": 9, "start": 0,
// "episode_id": "a"}]`, `null`) parsed by hand. Anything else (escapes,
// unknown or repeated keys, numbers json.Marshal would not write) goes to
// encoding/json, so both give the same answer (FuzzDecodeJSONB).
func decodeJSONB(field string, b []byte, dst any) error {
	switch p := dst.(type) {
	case *[]string:
		if v, ok := parseJSONStrings(b); ok {
			*p = v
			return nil
		}
	case *[]memory.Span:
		if v, ok := parseJSONSpans(b); ok {
			*p = v
			return nil
		}
	}
	return unjson(field, b, dst)
}

// jsonReader reads JSON as PostgreSQL prints jsonb: every method reports
// false on what it does not handle, and the caller falls back.
type jsonReader struct {
	b []byte
	i int
}

func (r *jsonReader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// lit consumes l after any whitespace.
func (r *jsonReader) lit(l string) bool {
	r.ws()
	if len(r.b)-r.i >= len(l) && string(r.b[r.i:r.i+len(l)]) == l {
		r.i += len(l)
		return true
	}
	return false
}

// raw reads a string without escapes, control characters or invalid
// UTF-8 and returns its bytes (valid until the row is done).
func (r *jsonReader) raw() ([]byte, bool) {
	if !r.lit(`"`) {
		return nil, false
	}
	start := r.i
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			v := r.b[start:r.i]
			r.i++
			return v, utf8.Valid(v)
		case c == '\\' || c < 0x20:
			return nil, false
		}
		r.i++
	}
	return nil, false
}

func (r *jsonReader) str() (string, bool) {
	b, ok := r.raw()
	return string(b), ok
}

// int reads an integer as json.Marshal writes an int: an optional minus and
// digits without a leading zero, short enough not to overflow.
func (r *jsonReader) int() (int, bool) {
	r.ws()
	start := r.i
	neg := r.i < len(r.b) && r.b[r.i] == '-'
	if neg {
		r.i++
	}
	digits := r.i
	n := 0
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		n = n*10 + int(r.b[r.i]-'0')
		r.i++
	}
	nd := r.i - digits
	if nd == 0 || nd > 18 || (nd > 1 && r.b[digits] == '0') || (neg && r.i-start == 1) {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

func (r *jsonReader) end() bool {
	r.ws()
	return r.i == len(r.b)
}

// list reads `null` (ok, nil: dst stays nil, as with encoding/json), or an
// array whose elements item reads.
func (r *jsonReader) list(item func() bool) (isNull, ok bool) {
	if r.lit("null") {
		return true, r.end()
	}
	if !r.lit("[") {
		return false, false
	}
	if r.lit("]") {
		return false, r.end()
	}
	for {
		if !item() {
			return false, false
		}
		if r.lit("]") {
			return false, r.end()
		}
		if !r.lit(",") {
			return false, false
		}
	}
}

func parseJSONStrings(b []byte) ([]string, bool) {
	r := jsonReader{b: b}
	out := make([]string, 0, 1)
	isNull, ok := r.list(func() bool {
		s, ok := r.str()
		out = append(out, s)
		return ok
	})
	if !ok {
		return nil, false
	}
	if isNull {
		return nil, true
	}
	return out, true
}

func parseJSONSpans(b []byte) ([]memory.Span, bool) {
	r := jsonReader{b: b}
	out := make([]memory.Span, 0, 1)
	isNull, ok := r.list(func() bool {
		var sp memory.Span
		if !r.lit("{") {
			return false
		}
		var seen [3]bool // episode_id, start, end: each exactly once
		for k := 0; k < 3; k++ {
			if k > 0 && !r.lit(",") {
				return false
			}
			key, ok := r.raw()
			if !ok || !r.lit(":") {
				return false
			}
			var f int
			switch string(key) {
			case "episode_id":
				f = 0
				sp.EpisodeID, ok = r.str()
			case "start":
				f = 1
				sp.Start, ok = r.int()
			case "end":
				f = 2
				sp.End, ok = r.int()
			default:
				return false
			}
			if !ok || seen[f] {
				return false
			}
			seen[f] = true
		}
		out = append(out, sp)
		return r.lit("}")
	})
	if !ok {
		return nil, false
	}
	if isNull {
		return nil, true
	}
	return out, true
}
