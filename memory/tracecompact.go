package memory

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"sync"
)

// traceBinaryV5 marks version 5: compact without compression. Version 4
// deflated version 2, which halved a trace but cost the trace writer about
// three times the encoding itself (160 µs of CPU a retrieval at 10k, more
// than a fifth of the retrieval). Version 5 removes most of what deflate
// found, by knowing what the values are:
//
//   - ids of the usual shape (a type prefix, then a ULID in lowercase
//     Crockford base32, as ids.New makes them) are written as their 16
//     bytes: the time as a difference from the previous item's memory id,
//     the 80 random bits as they are; a version id made in the same
//     millisecond as its memory's is the difference of their random bits
//     (ulid's monotonic counter makes it small);
//   - a number equal to the last one written in its place (the trust, a
//     term's value under the same name, a channel's score) is one byte;
//   - reasons and explanations are words joined by spaces, each word a
//     reference into a table of the trace's words, or to an earlier
//     item's memory id ("same text as mem_…, packed: cited there").
//
// Every value reads back exactly as written, whatever its shape; a value
// of an unusual shape only takes more bytes.
const traceBinaryV5 = 5

// traceBinaryV6 marks version 6: version 5 with three more item flags and
// a fourth way to write a VersionID, for what repeats from one candidate to
// the next. On the peers workload's traces (97 candidates each) 94 % of the
// items carry their predecessor's very utility terms and 99 % its reason
// (most candidates are "shown as context of another item" with the same
// usefulness, confidence and coverage terms), and a version id made in its
// memory's millisecond differs from it by a 32-bit random increment (ulid's
// monotonic entropy), which a uvarint spends 5 bytes on:
//
//   - flag 32: Terms are the previous item's (the same names, in order,
//     with the same values bit for bit, nil or not); none follow;
//   - flag 64: Reason is the previous item's; no text follows;
//   - flag 128: the channel hits name the previous item's channels, in
//     order (nil or not); each hit is then its rank and number only;
//   - VersionID form 3: as form 1 (the same millisecond), the difference
//     as 4 bytes little-endian, for a difference of 2^28 to 2^32 - 1.
//
// The rest is version 5's. The first item may set none of the three flags.
const traceBinaryV6 = 6

// traceBinaryV7 marks version 7: version 6 with a second flags byte after
// each item's first, for what the peers workload's traces (97 candidates
// each) still wrote out although a reader could tell it: 98 % of the items
// have their predecessor's action and id prefixes ("mem_", "ver_"), 99 %
// a final score that is the fused score plus the terms, rounded to four
// decimals, every item its position as its rank, and most the last trust:
//
//   - 1: MemoryID (a ULID id) has the previous item's prefix, which the
//     previous item also wrote as a ULID id; no name follows;
//   - 2: VersionID's prefix name is the previous item's; none follows;
//   - 4: Action is the previous item's; no name follows;
//   - 8: Final is finalOf(Fused, Terms), bit for bit; no number follows;
//   - 16: Trust is the last trust written; no number follows (version 6
//     writes the one-byte "same" number instead);
//   - 32: Rank is the item's position (1-based); no varint follows.
//
// The first item may set none of 1, 2 and 4; 16 needs a trust before it.
const traceBinaryV7 = 7

// Item flags of version 5.
const (
	v5Packed   = 1 << 0
	v5Used     = 1 << 1
	v5MemULID  = 1 << 2 // MemoryID: a prefix name, a time difference and 10 random bytes
	v5VerShift = 3      // two bits: how VersionID is written
	v5VerMask  = 3 << v5VerShift
)

// How version 5 writes a VersionID (the flags' bits 3 and 4).
const (
	v5VerFront   = 0 // a prefix name, then front-coded against MemoryID as in version 2
	v5VerDelta   = 1 // a prefix name, then a ULID of MemoryID's time: uvarint random difference
	v5VerULID    = 2 // a prefix name, then a ULID: time difference from MemoryID's, 10 random bytes
	v6VerDelta32 = 3 // version 6: as v5VerDelta, the difference as 4 bytes little-endian
)

// Item flags of version 6 (with version 5's).
const (
	v6SameTerms    = 1 << 5
	v6SameReason   = 1 << 6
	v6SameChannels = 1 << 7
)

// Item flags of version 7, in the second flags byte.
const (
	v7SameMemHead = 1 << 0
	v7SameVerHead = 1 << 1
	v7SameAction  = 1 << 2
	v7FinalOfSum  = 1 << 3
	v7SameTrust   = 1 << 4
	v7RankAtPos   = 1 << 5
	v7Known       = v7SameMemHead | v7SameVerHead | v7SameAction | v7FinalOfSum | v7SameTrust | v7RankAtPos
)

// finalOf is the final score a candidate usually has: its fused score plus
// its terms, in order, rounded to four decimals. Version 7 leaves out a
// Final that is exactly this. The conversions keep each step rounded to a
// float64, whatever the compiler could fuse.
func finalOf(fused float64, terms Terms) float64 {
	s := fused
	for _, t := range terms {
		s = float64(s + t.Value)
	}
	return math.Round(float64(s*1e4)) / 1e4
}

// maxTraceWords bounds the word table of one encoding.
const maxTraceWords = 4096

// v5Same is the number "equal to the last one written in its place".
const v5Same = 3

// compactState is what one version 5 encoding or decoding remembers.
type compactState struct {
	names traceNames
	// last numbers by place: trust, then per name table entry the last
	// term value and the last channel score under that name.
	trust             float64
	trustSet          bool
	terms, scores     [maxTraceNames]float64
	termSet, scoreSet uint64
	words             map[string]uint32 // encoding
	wordList          []string          // decoding
	prevTime          uint64            // the previous item's MemoryID time
	prevMem           string            // the previous item's MemoryID
	ids               map[string]int    // encoding: the ULID MemoryIDs so far, by item
	version           byte              // the version written or read: 5, 6 or 7
	chanIdx           []int             // the previous item's channel names' table indices
	// version 7: the previous item's id prefixes (memHeadOK: its
	// MemoryID was written as a ULID id)
	memHead, verHead string
	memHeadOK        bool
}

var compactStates = sync.Pool{New: func() any { return &compactState{words: make(map[string]uint32, 256), ids: make(map[string]int, 128)} }}

// AppendCompact appends the version 6 encoding of the items to b (see
// traceBinaryV6: version 5 below, and what repeats from the previous item
// not written again). DecodeTraceItems reads it back exactly.
func (ts TraceItems) AppendCompact(b []byte) []byte { return ts.appendCompact(b, traceBinaryV7) }

// appendCompact writes version 7, 6 or 5 (the earlier ones: the stored
// fixtures' bytes, for the tests).
//
// Version 5, after the version byte, a nil flag and the item count, per item:
//
//	flags        byte: 1 packed, 2 used, 4 MemoryID is a ULID id,
//	             bits 3-4 how VersionID is written
//	MemoryID     a ULID id: its prefix as a name, a varint time difference
//	             from the previous item's MemoryID time, 10 random bytes;
//	             otherwise front-coded against the previous item's
//	VersionID    its first 4 bytes as a name; then as flagged: front-coded
//	             against MemoryID past its first 4 (as version 2); a
//	             uvarint difference of its random bits from MemoryID's
//	             (same time); or a time difference and 10 random bytes
//	Channels     list length (0 nil, else 1+n); per hit a name, a varint
//	             rank and a number (place: the channel's last score)
//	Fused        number
//	Terms        list length; per term a name and a number (place: the
//	             term's last value)
//	Final        number
//	Rank         varint difference from the item's position (1-based)
//	Tokens       varint
//	Trust        number (place: the last trust)
//	Action       name
//	Reason       text
//	Explanation  text
//
// Names and numbers are those of version 2, plus the number 3 (varint):
// the last value written in the number's place. A text is a uvarint word
// count (0 for ""), then per word (the text split at every space) a word
// (see appendWord); the word table holds at most maxTraceWords.
func (ts TraceItems) appendCompact(b []byte, version byte) []byte {
	b = append(b, version)
	if ts == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(ts)))
	s := compactStates.Get().(*compactState)
	s.reset()
	s.version = version
	for i := range ts {
		var prev *TraceItem
		if i > 0 {
			prev = &ts[i-1]
		}
		b = s.appendItem(b, &ts[i], prev, i)
	}
	s.reset() // drop the references into the items' strings
	compactStates.Put(s)
	return b
}

func (s *compactState) reset() {
	clear(s.names.list)
	s.names.list = s.names.list[:0]
	s.trustSet, s.termSet, s.scoreSet = false, 0, 0
	clear(s.words)
	clear(s.ids)
	s.wordList = s.wordList[:0]
	s.prevTime, s.prevMem = 0, ""
	s.version = 0
	s.chanIdx = s.chanIdx[:0]
	s.memHead, s.verHead, s.memHeadOK = "", "", false
}

func (s *compactState) appendItem(b []byte, t, prev *TraceItem, i int) []byte {
	var flags byte
	if s.version >= traceBinaryV6 && prev != nil {
		if sameTerms(t.Terms, prev.Terms) {
			flags |= v6SameTerms
		}
		if t.Reason == prev.Reason {
			flags |= v6SameReason
		}
		if sameChannelNames(t.Channels, prev.Channels) {
			flags |= v6SameChannels
		}
	}
	if t.Packed {
		flags |= v5Packed
	}
	if t.Used {
		flags |= v5Used
	}
	memHead, memID, memOK := parseULIDID(t.MemoryID)
	if memOK {
		flags |= v5MemULID
	}
	verHead, verID, verOK := parseULIDID(t.VersionID)
	verHow, delta := v5VerFront, uint64(0)
	if verOK {
		verHow = v5VerULID
		if memOK && verID.time() == memID.time() {
			if d, ok := verID.randomAfter(memID); ok {
				verHow = v5VerDelta
				delta = d
				if s.version >= traceBinaryV6 && d >= 1<<28 && d < 1<<32 {
					verHow = v6VerDelta32
				}
			}
		}
	}
	flags |= byte(verHow) << v5VerShift
	b = append(b, flags)
	if verHow == v5VerFront {
		verHead = t.VersionID[:min(idHead, len(t.VersionID))]
	}
	var more byte
	if s.version >= traceBinaryV7 {
		if prev != nil && memOK && s.memHeadOK && memHead == s.memHead {
			more |= v7SameMemHead
		}
		if prev != nil && verHead == s.verHead {
			more |= v7SameVerHead
		}
		if prev != nil && t.Action == prev.Action {
			more |= v7SameAction
		}
		if sameNum(finalOf(t.Fused, t.Terms), t.Final) {
			more |= v7FinalOfSum
		}
		if s.trustSet && sameNum(t.Trust, s.trust) {
			more |= v7SameTrust
		}
		if t.Rank == i+1 {
			more |= v7RankAtPos
		}
		b = append(b, more)
		s.memHead, s.memHeadOK, s.verHead = memHead, memOK, verHead
	}

	if memOK {
		if more&v7SameMemHead == 0 {
			b = s.names.append(b, memHead)
		}
		b = s.appendULID(b, memID, s.prevTime)
		s.prevTime = memID.time()
		if _, ok := s.ids[t.MemoryID]; !ok {
			s.ids[t.MemoryID] = i
		}
	} else {
		b = appendFront(b, s.prevMem, t.MemoryID)
	}
	s.prevMem = t.MemoryID
	if more&v7SameVerHead == 0 {
		b = s.names.append(b, verHead)
	}
	switch verHow {
	case v5VerFront:
		b = appendFront(b, t.MemoryID[min(idHead, len(t.MemoryID)):], t.VersionID[len(verHead):])
	case v5VerDelta:
		b = binary.AppendUvarint(b, delta)
	case v6VerDelta32:
		b = binary.LittleEndian.AppendUint32(b, uint32(delta))
	case v5VerULID:
		var ref uint64
		if memOK {
			ref = memID.time()
		}
		b = s.appendULID(b, verID, ref)
	}

	if flags&v6SameChannels != 0 {
		// The names and their table indices are the previous item's.
		for j, h := range t.Channels {
			b = binary.AppendVarint(b, int64(h.Rank))
			b = appendPlaced(b, h.Score, &s.scores, &s.scoreSet, s.chanIdx[j])
		}
	} else {
		b = appendMapLen(b, t.Channels == nil, len(t.Channels))
		s.chanIdx = s.chanIdx[:0]
		for _, h := range t.Channels {
			var k int
			b, k = s.names.appendIndex(b, h.Channel)
			s.chanIdx = append(s.chanIdx, k)
			b = binary.AppendVarint(b, int64(h.Rank))
			b = appendPlaced(b, h.Score, &s.scores, &s.scoreSet, k)
		}
	}
	b = appendNum(b, t.Fused)
	// The same terms as the previous item's leave every term's last
	// value as it is: the previous item wrote these very values.
	if flags&v6SameTerms == 0 {
		b = appendMapLen(b, t.Terms == nil, len(t.Terms))
		for _, term := range t.Terms {
			var k int
			b, k = s.names.appendIndex(b, term.Name)
			b = appendPlaced(b, term.Value, &s.terms, &s.termSet, k)
		}
	}
	if more&v7FinalOfSum == 0 {
		b = appendNum(b, t.Final)
	}
	if more&v7RankAtPos == 0 {
		b = binary.AppendVarint(b, int64(t.Rank)-int64(i+1))
	}
	b = binary.AppendVarint(b, int64(t.Tokens))
	switch {
	case more&v7SameTrust != 0:
	case s.trustSet && sameNum(t.Trust, s.trust):
		b = binary.AppendVarint(b, v5Same)
	default:
		b = appendNum(b, t.Trust)
		s.trust, s.trustSet = t.Trust, true
	}
	if more&v7SameAction == 0 {
		b = s.names.append(b, string(t.Action))
	}
	if flags&v6SameReason == 0 {
		b = s.appendText(b, t.Reason)
	}
	return s.appendText(b, t.Explanation)
}

// sameTerms reports whether two term lists are the same, nil-ness and
// every value's bits included (so that -0 and NaN read back as written).
func sameTerms(a, b Terms) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !sameNum(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// sameChannelNames reports whether two hit lists name the same channels in
// the same order, nil-ness included.
func sameChannelNames(a, b ChannelHits) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i].Channel != b[i].Channel {
			return false
		}
	}
	return true
}

// sameNum reports whether two numbers have the same bits (NaN included).
func sameNum(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// appendPlaced writes v as a number of place k of last (k < 0: no place).
func appendPlaced(b []byte, v float64, last *[maxTraceNames]float64, set *uint64, k int) []byte {
	if k < 0 {
		return appendNum(b, v)
	}
	if *set&(1<<k) != 0 && sameNum(last[k], v) {
		return binary.AppendVarint(b, v5Same)
	}
	last[k] = v
	*set |= 1 << k
	return appendNum(b, v)
}

// placedNum reads a number of place k of last.
func (r *binReader) placedNum(last *[maxTraceNames]float64, set *uint64, k int) float64 {
	x := r.varint()
	if x == v5Same {
		if k < 0 || *set&(1<<k) == 0 {
			r.fail("number")
			return 0
		}
		return last[k]
	}
	v := r.numOf(x)
	if k >= 0 {
		last[k] = v
		*set |= 1 << k
	}
	return v
}

// appendULID writes an id's time as a varint difference from ref, then its
// 10 random bytes.
func (s *compactState) appendULID(b []byte, u ulid128, ref uint64) []byte {
	b = binary.AppendVarint(b, int64(u.time()-ref))
	return append(b, u[6:]...)
}

func (r *binReader) ulid(ref uint64) (u ulid128) {
	t := ref + uint64(r.varint())
	if t >= 1<<48 {
		r.fail("id time")
		return u
	}
	if len(r.b) < 10 {
		r.fail("id")
		return u
	}
	for i := 0; i < 6; i++ {
		u[i] = byte(t >> (40 - 8*i))
	}
	copy(u[6:], r.b[:10])
	r.b = r.b[10:]
	return u
}

// appendText writes s as words.
func (s *compactState) appendText(b []byte, text string) []byte {
	if text == "" {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(strings.Count(text, " ")+1))
	for {
		w, rest, more := strings.Cut(text, " ")
		b = s.appendWord(b, w)
		if !more {
			return b
		}
		text = rest
	}
}

// A word of a text is a uvarint: 0, then a string, for a word that joins
// the table; 1, then a uvarint item index and a string, for an earlier
// item's MemoryID followed by that string ("same text as mem_…, packed");
// i+2 for the i-th word of the table.
const (
	v5WordNew = 0
	v5WordID  = 1
	v5WordRef = 2
)

func (s *compactState) appendWord(b []byte, w string) []byte {
	if i, ok := s.words[w]; ok {
		return binary.AppendUvarint(b, uint64(i)+v5WordRef)
	}
	if u := strings.IndexByte(w, '_'); u >= 0 && len(w) >= u+27 {
		if j, ok := s.ids[w[:u+27]]; ok {
			b = binary.AppendUvarint(append(b, v5WordID), uint64(j))
			return appendStr(b, w[u+27:])
		}
	}
	if len(s.words) < maxTraceWords {
		s.words[w] = uint32(len(s.words))
	}
	return appendStr(append(b, v5WordNew), w)
}

func (s *compactState) readText(r *binReader, buf *[]byte, items TraceItems) string {
	n := r.uvarint()
	if n == 0 {
		return ""
	}
	if n > uint64(len(r.b)) { // every word takes at least one byte
		r.fail("text")
		return ""
	}
	out := (*buf)[:0]
	for j := uint64(0); j < n && r.err == nil; j++ {
		if j > 0 {
			out = append(out, ' ')
		}
		switch i := r.uvarint(); {
		case i == v5WordNew:
			w := r.str()
			if len(s.wordList) < maxTraceWords {
				s.wordList = append(s.wordList, w)
			}
			out = append(out, w...)
		case i == v5WordID:
			k := r.uvarint()
			if k >= uint64(len(items)) {
				r.fail("word")
				return ""
			}
			out = append(out, items[k].MemoryID...)
			out = append(out, r.str()...)
		case i-v5WordRef < uint64(len(s.wordList)):
			out = append(out, s.wordList[i-v5WordRef]...)
		default:
			r.fail("word")
			return ""
		}
	}
	*buf = out
	return string(out)
}

// decodeV5 reads the items of a version 5, 6 or 7 encoding.
func decodeV5(r *binReader, ts TraceItems, version byte) error {
	var s compactState
	var buf []byte
	prev := ""
	v6 := version >= traceBinaryV6
	known := byte(v5Packed | v5Used | v5MemULID | v5VerMask)
	if v6 {
		known |= v6SameTerms | v6SameReason | v6SameChannels
	}
	for i := range ts {
		t := &ts[i]
		flags := r.byte()
		if flags&^known != 0 || (i == 0 && flags&(v6SameTerms|v6SameReason|v6SameChannels) != 0) ||
			(!v6 && (flags&v5VerMask)>>v5VerShift == v6VerDelta32) {
			r.fail("flags")
			return r.err
		}
		t.Packed, t.Used = flags&v5Packed != 0, flags&v5Used != 0
		var more byte
		memOK := flags&v5MemULID != 0
		if version >= traceBinaryV7 {
			more = r.byte()
			if more&^v7Known != 0 || (i == 0 && more&(v7SameMemHead|v7SameVerHead|v7SameAction) != 0) ||
				(more&v7SameMemHead != 0 && (!memOK || !s.memHeadOK)) || (more&v7SameTrust != 0 && !s.trustSet) {
				r.fail("flags")
				return r.err
			}
		}
		var memID ulid128
		if memOK {
			head := s.memHead
			if more&v7SameMemHead == 0 {
				head = s.names.read(r)
			}
			s.memHead = head
			memID = r.ulid(s.prevTime)
			s.prevTime = memID.time()
			t.MemoryID = head + memID.String()
		} else {
			t.MemoryID = r.front(prev)
		}
		prev = t.MemoryID
		s.memHeadOK = memOK
		head := s.verHead
		if more&v7SameVerHead == 0 {
			head = s.names.read(r)
		}
		s.verHead = head
		switch (flags & v5VerMask) >> v5VerShift {
		case v5VerFront:
			t.VersionID = head + r.front(t.MemoryID[min(idHead, len(t.MemoryID)):])
		case v5VerDelta:
			if !memOK {
				r.fail("version id")
				return r.err
			}
			v, ok := memID.plus(r.uvarint())
			if !ok {
				r.fail("version id")
				return r.err
			}
			t.VersionID = head + v.String()
		case v6VerDelta32:
			if !memOK || len(r.b) < 4 {
				r.fail("version id")
				return r.err
			}
			d := uint64(binary.LittleEndian.Uint32(r.b))
			r.b = r.b[4:]
			v, ok := memID.plus(d)
			if !ok || d < 1<<28 {
				// Form 1 writes a smaller difference: one value, one form.
				r.fail("version id")
				return r.err
			}
			t.VersionID = head + v.String()
		case v5VerULID:
			var ref uint64
			if memOK {
				ref = memID.time()
			}
			t.VersionID = head + r.ulid(ref).String()
		default:
			r.fail("flags")
			return r.err
		}
		if flags&v6SameChannels != 0 {
			if pc := ts[i-1].Channels; pc != nil {
				t.Channels = make(ChannelHits, len(pc))
				for j := range pc {
					rank := r.varint()
					t.Channels[j] = NamedChannelHit{Channel: pc[j].Channel, ChannelHit: ChannelHit{Rank: int(rank), Score: r.placedNum(&s.scores, &s.scoreSet, s.chanIdx[j])}}
				}
			}
		} else if m := r.mapLen(); m >= 0 {
			t.Channels = make(ChannelHits, 0, m)
			s.chanIdx = s.chanIdx[:0]
			for j := 0; j < m && r.err == nil; j++ {
				k, idx := s.names.readIndex(r)
				s.chanIdx = append(s.chanIdx, idx)
				rank := r.varint()
				t.Channels = append(t.Channels, NamedChannelHit{Channel: k, ChannelHit: ChannelHit{Rank: int(rank), Score: r.placedNum(&s.scores, &s.scoreSet, idx)}})
			}
		} else {
			s.chanIdx = s.chanIdx[:0]
		}
		t.Fused = r.num()
		if flags&v6SameTerms != 0 {
			t.Terms = slices.Clone(ts[i-1].Terms)
		} else if m := r.mapLen(); m >= 0 {
			t.Terms = make(Terms, 0, m)
			for j := 0; j < m && r.err == nil; j++ {
				k, idx := s.names.readIndex(r)
				t.Terms = append(t.Terms, Term{Name: k, Value: r.placedNum(&s.terms, &s.termSet, idx)})
			}
		}
		if more&v7FinalOfSum != 0 {
			t.Final = finalOf(t.Fused, t.Terms)
		} else {
			t.Final = r.num()
		}
		t.Rank = i + 1
		if more&v7RankAtPos == 0 {
			t.Rank = int(r.varint() + int64(i+1))
		}
		t.Tokens = int(r.varint())
		if more&v7SameTrust != 0 {
			t.Trust = s.trust
		} else if x := r.varint(); x == v5Same {
			if !s.trustSet {
				r.fail("number")
			}
			t.Trust = s.trust
		} else {
			t.Trust = r.numOf(x)
			s.trust, s.trustSet = t.Trust, true
		}
		if more&v7SameAction != 0 {
			t.Action = ts[i-1].Action
		} else {
			t.Action = Action(s.names.read(r))
		}
		if flags&v6SameReason != 0 {
			t.Reason = ts[i-1].Reason
		} else {
			t.Reason = s.readText(r, &buf, ts[:i+1])
		}
		t.Explanation = s.readText(r, &buf, ts[:i+1])
		if r.err != nil {
			return r.err
		}
	}
	return r.done()
}

// appendIndex is append that also returns the name's table index, or -1
// when the table is full and does not hold it.
func (t *traceNames) appendIndex(b []byte, s string) ([]byte, int) {
	for i, x := range t.list {
		if x == s {
			return binary.AppendUvarint(b, uint64(i)+1), i
		}
	}
	i := -1
	if len(t.list) < maxTraceNames {
		i = len(t.list)
		t.list = append(t.list, s)
	}
	return appendStr(append(b, 0), s), i
}

// readIndex is read that also returns the name's table index (-1: none).
func (t *traceNames) readIndex(r *binReader) (string, int) {
	i := r.uvarint()
	if i == 0 {
		s := r.str()
		if len(t.list) < maxTraceNames {
			t.list = append(t.list, s)
			return s, len(t.list) - 1
		}
		return s, -1
	}
	if i > uint64(len(t.list)) {
		r.fail("name")
		return "", -1
	}
	return t.list[i-1], int(i - 1)
}

// ulid128 is a ULID's 16 bytes: a 48-bit millisecond time, big-endian,
// then 80 random bits.
type ulid128 [16]byte

// crockford is the lowercase Crockford base32 alphabet of ids.New.
const crockford = "0123456789abcdefghjkmnpqrstvwxyz"

var crockfordValue = func() (v [256]byte) {
	for i := range v {
		v[i] = 0xff
	}
	for i := 0; i < len(crockford); i++ {
		v[crockford[i]] = byte(i)
	}
	return v
}()

// parseULIDID splits an id made by ids.New ("mem_" and 26 characters) into
// its prefix and ULID. ok only when the ULID's String gives the very same
// characters back, so the id is rebuilt exactly.
func parseULIDID(id string) (head string, u ulid128, ok bool) {
	if len(id) < 27 || id[len(id)-27] != '_' {
		return "", u, false
	}
	head, s := id[:len(id)-26], id[len(id)-26:]
	if s[0] > '7' {
		return "", u, false
	}
	// 26 digits of 5 bits hold 130 bits; the first digit's top 2 are 0.
	// The digits are read into three words, each in one register: the
	// first 13 (63 bits), the 14th, the last 12 (60 bits); a character
	// outside the alphabet (value 0xff) sets a bit no digit has.
	_ = s[25]
	var a, c uint64
	var bad byte
	for i := 0; i < 13; i++ {
		v := crockfordValue[s[i]]
		bad |= v
		a = a<<5 | uint64(v)
	}
	m := crockfordValue[s[13]]
	bad |= m
	for i := 14; i < 26; i++ {
		v := crockfordValue[s[i]]
		bad |= v
		c = c<<5 | uint64(v)
	}
	if bad >= 32 {
		return "", u, false
	}
	hi := a<<1 | uint64(m)>>4
	lo := uint64(m&15)<<60 | c
	binary.BigEndian.PutUint64(u[:8], hi)
	binary.BigEndian.PutUint64(u[8:], lo)
	return head, u, true
}

// String is the ULID's 26 lowercase characters, as ids.New writes them.
func (u ulid128) String() string {
	hi, lo := binary.BigEndian.Uint64(u[:8]), binary.BigEndian.Uint64(u[8:])
	var s [26]byte
	for i := 25; i >= 0; i-- {
		s[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(s[:])
}

func (u ulid128) time() uint64 {
	return uint64(u[0])<<40 | uint64(u[1])<<32 | uint64(u[2])<<24 | uint64(u[3])<<16 | uint64(u[4])<<8 | uint64(u[5])
}

// random returns the 80 random bits as their top 16 and bottom 64.
func (u ulid128) random() (hi uint16, lo uint64) {
	return binary.BigEndian.Uint16(u[6:8]), binary.BigEndian.Uint64(u[8:])
}

// randomAfter returns u's random bits less ref's, when u's are not smaller
// and the difference fits 64 bits.
func (u ulid128) randomAfter(ref ulid128) (uint64, bool) {
	uh, ul := u.random()
	rh, rl := ref.random()
	d := ul - rl
	borrow := uint16(0)
	if ul < rl {
		borrow = 1
	}
	if uh-rh-borrow != 0 || uh < rh || (uh == rh && ul < rl) {
		return 0, false
	}
	return d, true
}

// plus returns u with d added to its random bits (ok false on overflow).
func (u ulid128) plus(d uint64) (ulid128, bool) {
	hi, lo := u.random()
	sum := lo + d
	if sum < lo {
		if hi == math.MaxUint16 {
			return u, false
		}
		hi++
	}
	binary.BigEndian.PutUint16(u[6:8], hi)
	binary.BigEndian.PutUint64(u[8:], sum)
	return u, true
}
