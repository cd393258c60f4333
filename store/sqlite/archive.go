package sqlite

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/mnemon-dev/mnemon/memory"
)

// The episode archive (migration 0012): purged episodes packed per session.
//
// PurgeEpisodeText moves an episode out of the episodes table into its
// session's newest chunk; every episode read (GetEpisode, ListEpisodes,
// ScanEpisodes, Stats, GetSession, DueSessions) returns archived episodes
// as it returned purged rows, so nothing above the store knows. A chunk
// holds up to archiveChunk episodes.

const archiveChunk = 256

const (
	archiveCols     = `session_id, chunk, packed`
	qArchiveLast    = `SELECT ` + archiveCols + ` FROM episode_archive WHERE namespace = /*ns*/? AND session_id = ? ORDER BY chunk DESC LIMIT 1`
	qArchiveSession = `SELECT ` + archiveCols + ` FROM episode_archive WHERE namespace = /*ns*/? AND session_id = ? ORDER BY chunk`
	// A chunk's id and time ranges may overlap another's (sessions
	// captured side by side), so a lookup reads every chunk whose range
	// holds the value; the index walks only chunks ending after it.
	qArchiveByID   = `SELECT ` + archiveCols + ` FROM episode_archive WHERE namespace = /*ns*/? AND last_id >= ? AND first_id <= ?`
	qArchiveByTime = `SELECT ` + archiveCols + ` FROM episode_archive WHERE namespace = /*ns*/? AND last_at >= ? AND first_at <= ?`
	qArchiveAll    = `SELECT ` + archiveCols + ` FROM episode_archive WHERE namespace = /*ns*/? ORDER BY session_id, chunk`
	qPutArchive    = `INSERT INTO episode_archive (namespace, session_id, chunk, first_id, last_id, first_at, last_at, episodes, packed)
	VALUES (/*ns*/?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (namespace, session_id, chunk) DO UPDATE SET first_id = excluded.first_id, last_id = excluded.last_id,
	  first_at = excluded.first_at, last_at = excluded.last_at, episodes = excluded.episodes, packed = excluded.packed`
	qDeleteEpisode = `DELETE FROM episodes WHERE namespace = /*ns*/? AND id = ?`
)

var archiveQueries = []string{qArchiveLast, qArchiveSession, qArchiveByID, qArchiveByTime, qPutArchive, qDeleteEpisode}

// chunk is one decoded archive row.
type chunk struct {
	session string
	n       int
	eps     []*memory.Episode
}

// archiveEpisode appends a purged episode to its session's newest chunk, or
// starts a chunk when that one is full.
func (e *executor) archiveEpisode(ctx context.Context, ep *memory.Episode) error {
	chunks, err := e.archiveChunks(ctx, ep.Namespace, qArchiveLast, ep.Namespace, ep.Scope.SessionID)
	if err != nil {
		return err
	}
	c := chunk{session: ep.Scope.SessionID}
	if len(chunks) == 1 {
		c = chunks[0]
		if len(c.eps) >= archiveChunk {
			c = chunk{session: c.session, n: c.n + 1}
		}
	}
	c.eps = append(c.eps, ep)
	return e.putChunk(ctx, ep.Namespace, c)
}

func (e *executor) putChunk(ctx context.Context, ns string, c chunk) error {
	packed, err := encodeArchive(c.eps)
	if err != nil {
		return err
	}
	first, last := c.eps[0], c.eps[0]
	firstAt, lastAt := c.eps[0].OccurredAt, c.eps[0].OccurredAt
	for _, ep := range c.eps[1:] {
		if ep.ID < first.ID {
			first = ep
		}
		if ep.ID > last.ID {
			last = ep
		}
		if ep.OccurredAt.Before(firstAt) {
			firstAt = ep.OccurredAt
		}
		if ep.OccurredAt.After(lastAt) {
			lastAt = ep.OccurredAt
		}
	}
	var enc encoder
	args := []any{ns, c.session, c.n, first.ID, last.ID, enc.time("occurred_at", firstAt), enc.time("occurred_at", lastAt), len(c.eps), packed}
	if enc.err != nil {
		return enc.err
	}
	_, err = e.exec(ctx, qPutArchive, args...)
	return mapErr(err)
}

// rearchive rewrites an archived episode's metadata (a purge repeated).
// It reports false when the episode is not archived.
func (e *executor) rearchive(ctx context.Context, ns, id string, meta map[string]string) (bool, error) {
	chunks, err := e.archiveChunks(ctx, ns, qArchiveByID, ns, id, id)
	if err != nil {
		return false, err
	}
	for _, c := range chunks {
		for _, ep := range c.eps {
			if ep.ID == id {
				ep.Metadata = meta
				return true, e.putChunk(ctx, ns, c)
			}
		}
	}
	return false, nil
}

// archiveChunks reads and decodes the chunks q selects.
func (e *executor) archiveChunks(ctx context.Context, ns, q string, args ...any) ([]chunk, error) {
	rows, err := e.query(ctx, q, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	var out []chunk
	for rows.Next() {
		var (
			c      chunk
			packed []byte
		)
		if err := rows.Scan(&c.session, &c.n, &packed); err != nil {
			return nil, mapErr(err)
		}
		if c.eps, err = decodeArchive(ns, c.session, packed); err != nil {
			return nil, fmt.Errorf("episode archive %s/%d: %w", c.session, c.n, err)
		}
		out = append(out, c)
	}
	return out, mapErr(rows.Err())
}

// archivePurgedRows packs the episodes purged before the archive existed
// (rows with their text purged: capture refuses empty text, so an empty
// content is a purge) into their sessions' archives (migration 0012).
func archivePurgedRows(ctx context.Context, e *executor) error {
	// One session at a time, so a large store is not read into memory
	// at once.
	rows, err := e.query(ctx, `SELECT DISTINCT namespace, session_id FROM episodes WHERE content = ''`)
	if err != nil {
		return mapErr(err)
	}
	var sessions [][2]string
	for rows.Next() {
		var k [2]string
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			rows.Close()
			return mapErr(err)
		}
		k[0] = nsName(k[0])
		sessions = append(sessions, k)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return mapErr(err)
	}
	for _, k := range sessions {
		eps, err := collect(ctx, e, decodeEpisode, `SELECT `+episodeCols+` FROM episodes
		WHERE namespace = /*ns*/? AND session_id = ? AND content = '' ORDER BY occurred_at, id`, k[0], k[1])
		if err != nil {
			return err
		}
		for _, ep := range eps {
			if _, err := e.exec(ctx, qDeleteEpisode, ep.Namespace, ep.ID); err != nil {
				return mapErr(err)
			}
		}
		for n := 0; len(eps) > 0; n++ {
			part := eps[:min(len(eps), archiveChunk)]
			eps = eps[len(part):]
			if err := e.putChunk(ctx, k[0], chunk{session: k[1], n: n, eps: part}); err != nil {
				return err
			}
		}
	}
	return nil
}

// archived returns the archived episodes matching p, ordered by
// occurred_at then id (not limited). skip names episodes already found
// live: an id lookup reads the archive only for the rest.
func (e *executor) archived(ctx context.Context, p memory.ListEpisodesParams, skip map[string]bool) ([]*memory.Episode, error) {
	var (
		chunks []chunk
		err    error
	)
	switch {
	case p.SessionID != "":
		chunks, err = e.archiveChunks(ctx, p.Namespace, qArchiveSession, p.Namespace, p.SessionID)
	case len(p.IDs) > 0:
		seen := map[[2]any]bool{}
		for _, id := range p.IDs {
			if skip[id] {
				continue
			}
			cs, err := e.archiveChunks(ctx, p.Namespace, qArchiveByID, p.Namespace, id, id)
			if err != nil {
				return nil, err
			}
			for _, c := range cs {
				if k := [2]any{c.session, c.n}; !seen[k] {
					seen[k] = true
					chunks = append(chunks, c)
				}
			}
		}
	case !p.OccurredAt.IsZero():
		var enc encoder
		at := enc.time("occurred_at", p.OccurredAt)
		if enc.err != nil {
			return nil, enc.err
		}
		chunks, err = e.archiveChunks(ctx, p.Namespace, qArchiveByTime, p.Namespace, at, at)
	default:
		chunks, err = e.archiveChunks(ctx, p.Namespace, qArchiveAll, p.Namespace)
	}
	if err != nil {
		return nil, err
	}
	var ids map[string]bool
	if len(p.IDs) > 0 {
		ids = make(map[string]bool, len(p.IDs))
		for _, id := range p.IDs {
			ids[id] = true
		}
	}
	var out []*memory.Episode
	for _, c := range chunks {
		for _, ep := range c.eps {
			switch {
			case p.SessionID != "" && ep.Scope.SessionID != p.SessionID,
				ids != nil && !ids[ep.ID],
				p.ContentHash != "" && ep.ContentHash != p.ContentHash,
				!p.OccurredAt.IsZero() && !ep.OccurredAt.Equal(p.OccurredAt):
				continue
			}
			out = append(out, ep)
		}
	}
	sortEpisodes(out)
	return out, nil
}

// sortEpisodes orders episodes as ListEpisodes does: by occurred_at, then id.
func sortEpisodes(eps []*memory.Episode) {
	slices.SortFunc(eps, func(a, b *memory.Episode) int {
		if c := a.OccurredAt.Compare(b.OccurredAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// ---- the packed format ------------------------------------------------------
//
// A chunk is: a format byte; a table of the distinct strings its episodes
// use (uvarint count, then each as uvarint length and bytes); a table of
// the distinct labels its episodes carry (agent, user, project, kind,
// speaker and metadata JSON, as six string indexes; count first); the
// episode count; then per episode: its labels' index, its id, occurred_at
// as a delta from the previous episode's, recorded_at as a delta from the
// previous episode's (the first's from its own occurred_at), and the
// content hash. A time delta is two signed varints, whole milliseconds and
// the nanoseconds left over, so the usual whole-second or millisecond
// steps take a few bytes. An id written by mnemon ("ep_" and a ULID) is
// stored as its 16 bytes, or, when it follows the previous id in the same
// millisecond (ULIDs made together count up from a random start), as the
// uvarint its random part grew by; a SHA-256 hex hash as its 32 bytes;
// anything else verbatim, behind a tag byte. Content is always empty: only
// purged episodes are archived.
//
// Format 1 (written until format 2 existed) has no labels table: each
// episode holds its six string indexes, and its times are nanosecond
// deltas, recorded_at from the episode's own occurred_at. It is still
// read; a chunk is rewritten as format 2 when its session archives more.

const (
	archiveFormat1 = 1
	archiveFormat  = 2
)

const (
	tagRaw    = 0 // the value's bytes follow (uvarint length first)
	tagPacked = 1 // the value in binary: 16 bytes of ULID, 32 of hash
	tagNext   = 2 // a ULID: the previous one's, its random part grown by a uvarint
)

// stringTable numbers the distinct strings of a chunk.
type stringTable struct {
	strs  []string
	index map[string]uint64
}

func (t *stringTable) ref(s string) uint64 {
	i, ok := t.index[s]
	if !ok {
		if t.index == nil {
			t.index = map[string]uint64{}
		}
		i = uint64(len(t.strs))
		t.index[s] = i
		t.strs = append(t.strs, s)
	}
	return i
}

func encodeArchive(eps []*memory.Episode) ([]byte, error) {
	var (
		strs   stringTable
		labels stringTable // each episode's six string indexes, packed
		body   []byte
		prevID ulid.ULID
		packed bool // prevID holds the previous episode's ULID
	)
	body = binary.AppendUvarint(body, uint64(len(eps)))
	var prevOccurred, prevRecorded int64
	for i, ep := range eps {
		if ep.Content != "" {
			return nil, fmt.Errorf("episode %s: only purged episodes are archived", ep.ID)
		}
		meta, err := json.Marshal(ep.Metadata)
		if err != nil {
			return nil, fmt.Errorf("episode %s: metadata: %w", ep.ID, err)
		}
		var l []byte
		for _, s := range []string{ep.Scope.AgentID, ep.Scope.UserID, ep.Scope.ProjectID, string(ep.Kind), ep.Speaker, string(meta)} {
			l = binary.AppendUvarint(l, strs.ref(s))
		}
		body = binary.AppendUvarint(body, labels.ref(string(l)))
		u, ok := episodeULID(ep.ID)
		switch grew, next := ulidGrowth(prevID, u); {
		case ok && packed && next:
			body = append(body, tagNext)
			body = binary.AppendUvarint(body, grew)
		case ok:
			body = append(body, tagPacked)
			body = append(body, u[:]...)
		default:
			body = appendRaw(body, ep.ID)
		}
		prevID, packed = u, ok
		occurred, recorded := timeNanos(ep.OccurredAt), timeNanos(ep.RecordedAt)
		if i == 0 {
			prevRecorded = occurred
		}
		body = appendTimeDelta(body, occurred-prevOccurred)
		body = appendTimeDelta(body, recorded-prevRecorded)
		prevOccurred, prevRecorded = occurred, recorded
		if h, ok := sha256Hex(ep.ContentHash); ok {
			body = append(body, tagPacked)
			body = append(body, h...)
		} else {
			body = appendRaw(body, ep.ContentHash)
		}
	}
	out := []byte{archiveFormat}
	out = appendStrings(out, strs.strs)
	out = binary.AppendUvarint(out, uint64(len(labels.strs)))
	for _, s := range labels.strs {
		out = append(out, s...) // six uvarints each: self-delimiting
	}
	return append(out, body...), nil
}

func appendStrings(b []byte, strs []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(strs)))
	for _, s := range strs {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// ulidGrowth reports whether next follows prev in the same millisecond
// with a larger random part, and by how much it grew. The growth is taken
// on the random part's low 64 bits, with its top 16 bits unchanged.
func ulidGrowth(prev, next ulid.ULID) (uint64, bool) {
	if !bytes.Equal(prev[:8], next[:8]) {
		return 0, false
	}
	p, n := binary.BigEndian.Uint64(prev[8:]), binary.BigEndian.Uint64(next[8:])
	return n - p, n > p
}

// appendTimeDelta writes a nanosecond delta as whole milliseconds and the
// nanoseconds left over (both signed). Deltas wrap as int64 arithmetic
// does, and the reader's sums wrap back: any two times round-trip, the
// zero time's stand-in included.
func appendTimeDelta(b []byte, d int64) []byte {
	ms := d / int64(time.Millisecond)
	b = binary.AppendVarint(b, ms)
	return binary.AppendVarint(b, d-ms*int64(time.Millisecond))
}

func decodeArchive(ns, session string, b []byte) ([]*memory.Episode, error) {
	r := archiveReader{b: b}
	format := r.byte()
	if r.err != nil {
		return nil, r.err
	}
	if format != archiveFormat && format != archiveFormat1 {
		return nil, fmt.Errorf("unknown archive format %d", format)
	}
	strs := make([]string, r.count())
	for i := range strs {
		strs[i] = string(r.bytes(int(r.uvarint())))
	}
	str := func() string {
		i := r.uvarint()
		if i >= uint64(len(strs)) {
			r.fail("string index out of range")
			return ""
		}
		return strs[i]
	}
	// An episode's labels: agent, user, project, kind, speaker, metadata.
	readLabels := func() (l [6]string) {
		for j := range l {
			l[j] = str()
		}
		return l
	}
	var labels [][6]string
	if format == archiveFormat {
		labels = make([][6]string, r.count())
		for i := range labels {
			labels[i] = readLabels()
		}
	}
	eps := make([]*memory.Episode, r.count())
	var (
		prevOccurred, prevRecorded int64
		prevID                     ulid.ULID
		packed                     bool // prevID is the previous episode's
	)
	for i := range eps {
		ep := &memory.Episode{Namespace: ns, Scope: memory.Scope{SessionID: session}}
		var l [6]string
		if format == archiveFormat {
			if j := r.uvarint(); j < uint64(len(labels)) {
				l = labels[j]
			} else {
				r.fail("labels index out of range")
			}
		}
		switch tag := r.byte(); {
		case tag == tagPacked:
			copy(prevID[:], r.bytes(16))
			ep.ID, packed = episodeIDPrefix+strings.ToLower(prevID.String()), true
		case tag == tagNext && format == archiveFormat && packed:
			low := binary.BigEndian.Uint64(prevID[8:]) + r.uvarint()
			binary.BigEndian.PutUint64(prevID[8:], low)
			ep.ID = episodeIDPrefix + strings.ToLower(prevID.String())
		case tag == tagRaw:
			ep.ID, packed = string(r.bytes(int(r.uvarint()))), false
		default:
			r.fail(fmt.Sprintf("bad id tag %d", tag))
		}
		if format == archiveFormat1 {
			l = readLabels()
		}
		ep.Scope.AgentID, ep.Scope.UserID, ep.Scope.ProjectID = l[0], l[1], l[2]
		ep.Kind, ep.Speaker = memory.EpisodeKind(l[3]), l[4]
		if r.err == nil {
			if err := json.Unmarshal([]byte(l[5]), &ep.Metadata); err != nil {
				r.fail("metadata: " + err.Error())
			}
		}
		var occurred, recorded int64
		switch {
		case format == archiveFormat1:
			occurred = prevOccurred + r.varint()
			recorded = occurred + r.varint()
		case i == 0:
			occurred = r.timeDelta()
			recorded = occurred + r.timeDelta()
		default:
			occurred = prevOccurred + r.timeDelta()
			recorded = prevRecorded + r.timeDelta()
		}
		prevOccurred, prevRecorded = occurred, recorded
		ep.OccurredAt, ep.RecordedAt = nanosTime(occurred), nanosTime(recorded)
		if r.byte() == tagPacked {
			ep.ContentHash = hex.EncodeToString(r.bytes(32))
		} else {
			ep.ContentHash = string(r.bytes(int(r.uvarint())))
		}
		if r.err != nil {
			break
		}
		eps[i] = ep
	}
	if r.err == nil && r.off != len(b) {
		r.fail("trailing bytes")
	}
	if r.err != nil {
		return nil, r.err
	}
	return eps, nil
}

const episodeIDPrefix = "ep_"

// episodeULID reports whether id is exactly what mnemon writes for an
// episode ("ep_" and a lower-case ULID), and its 16 bytes if so.
func episodeULID(id string) (ulid.ULID, bool) {
	rest, ok := strings.CutPrefix(id, episodeIDPrefix)
	if !ok || len(rest) != ulid.EncodedSize {
		return ulid.ULID{}, false
	}
	u, err := ulid.ParseStrict(rest)
	if err != nil || strings.ToLower(u.String()) != rest {
		return ulid.ULID{}, false
	}
	return u, true
}

// sha256Hex reports whether h is a lower-case hex SHA-256, and its bytes.
func sha256Hex(h string) ([]byte, bool) {
	if len(h) != 64 {
		return nil, false
	}
	b, err := hex.DecodeString(h)
	if err != nil || hex.EncodeToString(b) != h {
		return nil, false
	}
	return b, true
}

func appendRaw(b []byte, s string) []byte {
	b = append(b, tagRaw)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// timeNanos and nanosTime store times as the tables do (zeroTimeNanos for
// the zero time).
func timeNanos(t time.Time) int64 {
	if t.IsZero() {
		return zeroTimeNanos
	}
	return t.UnixNano()
}

func nanosTime(n int64) time.Time {
	if n == zeroTimeNanos {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// archiveReader reads the packed format; the first error sticks and every
// later read returns zero values.
type archiveReader struct {
	b   []byte
	off int
	err error
}

func (r *archiveReader) fail(msg string) {
	if r.err == nil {
		r.err = fmt.Errorf("corrupt episode archive at byte %d: %s", r.off, msg)
	}
}

func (r *archiveReader) byte() byte {
	if r.err != nil || r.off >= len(r.b) {
		r.fail("truncated")
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *archiveReader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.off {
		r.fail("truncated")
		return nil
	}
	r.off += n
	return bytes.Clone(r.b[r.off-n : r.off])
}

func (r *archiveReader) uvarint() uint64 { return readVarint(r, binary.Uvarint) }

func (r *archiveReader) varint() int64 { return readVarint(r, binary.Varint) }

// timeDelta reads what appendTimeDelta wrote.
func (r *archiveReader) timeDelta() int64 {
	ms := r.varint()
	return ms*int64(time.Millisecond) + r.varint()
}

// readVarint reads one varint with read (binary.Uvarint or binary.Varint).
func readVarint[T uint64 | int64](r *archiveReader, read func([]byte) (T, int)) T {
	if r.err != nil {
		return 0
	}
	v, n := read(r.b[r.off:])
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.off += n
	return v
}

// count reads a length that must fit in what is left (each item takes at
// least a byte), so a corrupt count cannot make a huge allocation.
func (r *archiveReader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.b)-r.off) {
		r.fail("count past the end")
		return 0
	}
	return int(n)
}
