package memory

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Version 7 round-trips every item exactly: the stored fixtures' items
// (real candidates, unusual numbers and ids, more names than the table
// holds), used or not, nil and empty lists, NaN.
func TestTraceItemsCompactExact(t *testing.T) {
	for _, used := range []bool{false, true} {
		items := fixtureItems(t, used)
		b := items.AppendCompact([]byte("prefix"))
		if !bytes.HasPrefix(b, []byte("prefix")) || b[len("prefix")] != traceBinaryV7 {
			t.Fatalf("not appended as version 7: %x", b[:8])
		}
		got, err := DecodeTraceItems(b[len("prefix"):])
		if err != nil {
			t.Fatal(err)
		}
		if !sameItems(got, items) {
			t.Fatalf("round trip:\n got %#v\nwant %#v", got, items)
		}
	}
	for _, items := range []TraceItems{nil, {}, {{}}, {{Channels: ChannelHits{}, Terms: Terms{}, Explanation: " "}}} {
		got, err := DecodeTraceItems(items.AppendCompact(nil))
		if err != nil || !reflect.DeepEqual(got, items) {
			t.Fatalf("%#v: got %#v, %v", items, got, err)
		}
	}
	nan := TraceItems{{Fused: math.NaN(), Trust: math.NaN()}, {Trust: math.NaN()}}
	got, err := DecodeTraceItems(nan.AppendCompact(nil))
	if err != nil || !math.IsNaN(got[0].Fused) || !math.IsNaN(got[1].Trust) {
		t.Fatalf("NaN: %v %v", got, err)
	}
}

// Random items of many shapes round-trip; the encoding is the same
// whichever encoding ran before it (the pooled state is reset).
func TestTraceItemsCompactRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	id := func(prefix string) string {
		switch r.IntN(6) {
		case 0:
			return prefix + fmt.Sprint(r.IntN(100))
		case 1:
			return ""
		}
		var u ulid128
		for i := range u {
			u[i] = byte(r.Uint32())
		}
		u[0] &= 0x7f // any 48-bit time
		return prefix + u.String()
	}
	num := func() float64 {
		switch r.IntN(5) {
		case 0:
			return float64(r.IntN(20000)-10000) / 1e4
		case 1:
			return r.NormFloat64()
		case 2:
			return 0.5
		}
		return float64(r.IntN(3)) / 100
	}
	words := []string{"found", "by", "lexical", "#3", "", "(cosine", "0.75);", "x"}
	text := func() string {
		n := r.IntN(6)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[r.IntN(len(words))]
		}
		return strings.Join(ws, " ")
	}
	for round := 0; round < 200; round++ {
		items := make(TraceItems, r.IntN(40))
		for i := range items {
			it := &items[i]
			it.MemoryID = id("mem_")
			it.VersionID = id("ver_")
			if r.IntN(3) == 0 && len(it.MemoryID) == 30 {
				// made in the same millisecond, as one write's ids are
				u, _ := parseID(it.MemoryID)
				v, _ := u.plus(uint64(r.Uint32()))
				it.VersionID = "ver_" + v.String()
			}
			for range r.IntN(3) {
				it.Channels = append(it.Channels, NamedChannelHit{Channel: words[r.IntN(3)], ChannelHit: ChannelHit{Rank: r.IntN(60), Score: num()}})
			}
			for range r.IntN(4) {
				it.Terms = append(it.Terms, Term{Name: words[r.IntN(4)], Value: num()})
			}
			it.Fused, it.Final, it.Trust = num(), num(), num()
			switch r.IntN(4) {
			case 0, 1: // what version 7 leaves out, and near misses of it
				it.Final = finalOf(it.Fused, it.Terms)
			case 2:
				it.Final = math.Nextafter(finalOf(it.Fused, it.Terms), 2)
			}
			it.Rank, it.Tokens = i+1+r.IntN(2), r.IntN(100)
			it.Action, it.Packed, it.Used = []Action{ActionHint, ActionHint, ActionFollow}[r.IntN(3)], r.IntN(2) == 0, r.IntN(9) == 0
			it.Reason, it.Explanation = text(), text()
			if j := r.IntN(i + 1); r.IntN(4) == 0 {
				// an id of this item or an earlier one, as a reason names it
				it.Reason += " same text as " + items[j].MemoryID + ", packed"
			}
			if i == 0 {
				continue
			}
			// What version 6 leaves out: the previous item's terms,
			// reason or channel names, and near misses of each.
			prev := &items[i-1]
			if r.IntN(2) == 0 {
				it.Trust = prev.Trust
			}
			switch r.IntN(4) {
			case 0:
				it.Terms = slices.Clone(prev.Terms)
			case 1:
				it.Terms = slices.Clone(prev.Terms)
				if len(it.Terms) > 0 {
					k := r.IntN(len(it.Terms))
					it.Terms[k].Value = []float64{math.Copysign(0, -1), 0, math.NaN(), it.Terms[k].Value + 1}[r.IntN(4)]
				} else if it.Terms == nil {
					it.Terms = Terms{}
				}
			}
			if r.IntN(2) == 0 {
				it.Reason = prev.Reason
			}
			if r.IntN(2) == 0 {
				it.Channels = nil
				if prev.Channels != nil {
					it.Channels = ChannelHits{}
				}
				for _, h := range prev.Channels {
					it.Channels = append(it.Channels, NamedChannelHit{Channel: h.Channel, ChannelHit: ChannelHit{Rank: r.IntN(60), Score: num()}})
				}
				if r.IntN(4) == 0 && len(it.Channels) > 0 {
					it.Channels[0].Channel = words[r.IntN(3)]
				}
			}
		}
		for _, v := range []byte{traceBinaryV5, traceBinaryV6, traceBinaryV7} {
			b := items.appendCompact(nil, v)
			got, err := DecodeTraceItems(b)
			if err != nil || !sameItems(got, items) {
				t.Fatalf("round %d (version %d): %v\n got %#v\nwant %#v", round, v, err, got, items)
			}
			if again := items.appendCompact(nil, v); !bytes.Equal(again, b) {
				t.Fatalf("round %d: a second encoding differs", round)
			}
		}
	}
}

func parseID(id string) (ulid128, bool) {
	_, u, ok := parseULIDID(id)
	return u, ok
}

// Only ids that ids.New could have made are taken apart, and they come
// back character for character.
func TestULIDIDs(t *testing.T) {
	for _, id := range []string{"mem_01m92jtf8kn32fcp40m24wcdvd", "ver_7zzzzzzzzzzzzzzzzzzzzzzzzz", "ret_00000000000000000000000000", "_01m92jtf8kn32fcp40m24wcdvd"} {
		head, u, ok := parseULIDID(id)
		if !ok || head+u.String() != id {
			t.Errorf("%s: %v %q", id, ok, head+u.String())
		}
	}
	for _, id := range []string{"mem_01M92JTF8KN32FCP40M24WCDVD", "mem_81m92jtf8kn32fcp40m24wcdvd", "mem_01m92jtf8kn32fcp40m24wcdvu",
		"mem_01m92jtf8kn32fcp40m24wcdv", "01m92jtf8kn32fcp40m24wcdvdx", "mem-01m92jtf8kn32fcp40m24wcdvd", ""} {
		if _, _, ok := parseULIDID(id); ok {
			t.Errorf("%s: taken as a ULID id", id)
		}
	}
	u, _ := parseID("mem_01m92jtf8kn32fcp40m24wcdvd")
	v, ok := u.plus(math.MaxUint64)
	if d, ok2 := v.randomAfter(u); !ok || !ok2 || d != math.MaxUint64 {
		t.Fatalf("difference %d %v %v", d, ok, ok2)
	}
	if _, ok := u.randomAfter(v); ok {
		t.Fatal("a smaller random part has a difference")
	}
	max, _ := parseID("mem_7zzzzzzzzzzzzzzzzzzzzzzzzz")
	if _, ok := max.plus(1); ok {
		t.Fatal("overflow not reported")
	}
}

// Damaged version 5 input is an error wrapping ErrBadTraceItems, never a
// panic: every truncation, and random bytes flipped.
func TestTraceItemsCompactCorrupt(t *testing.T) {
	for _, v := range []byte{traceBinaryV5, traceBinaryV6, traceBinaryV7} {
		testCompactCorrupt(t, fixtureItems(t, true).appendCompact(nil, v))
	}
	// One item of version 6 that takes its predecessor's terms, reason
	// or channels, and a 4-byte difference of form 1's range.
	ulidItem := []byte{1, 1, v5MemULID | v6VerDelta32<<v5VerShift, 0, 4, 'm', 'e', 'm', '_', 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 4, 'v', 'e', 'r', '_'}
	for _, b := range [][]byte{
		{traceBinaryV6, 1, 1, v6SameTerms},
		{traceBinaryV6, 1, 1, v6SameReason},
		{traceBinaryV6, 1, 1, v6SameChannels},
		{traceBinaryV5, 1, 1, v6SameTerms},
		{traceBinaryV5, 1, 1, v6VerDelta32 << v5VerShift},
		append(append([]byte{traceBinaryV6}, ulidItem...), 0xff, 0xff, 0xff, 0x0f), // fits form 1's 4 bytes
		append(append([]byte{traceBinaryV5}, ulidItem...), 0, 0, 0, 0x10),
		append(append([]byte{traceBinaryV6}, ulidItem...), 0, 0),
		// Version 7: a first item that claims its predecessor's prefixes
		// or action, the last trust before any, an unknown flag, a memory
		// prefix after an item whose MemoryID was no ULID id.
		{traceBinaryV7, 1, 1, 0, v7SameMemHead},
		{traceBinaryV7, 1, 1, 0, v7SameVerHead},
		{traceBinaryV7, 1, 1, 0, v7SameAction},
		{traceBinaryV7, 1, 1, 0, v7SameTrust},
		{traceBinaryV7, 1, 1, 0, 1 << 6},
		{traceBinaryV7, 1, 1, v5MemULID, v7SameMemHead},
	} {
		if _, err := DecodeTraceItems(b); !errors.Is(err, ErrBadTraceItems) {
			t.Errorf("%x: %v", b, err)
		}
	}
}

func testCompactCorrupt(t *testing.T, good []byte) {
	t.Helper()
	for n := 0; n < len(good); n++ {
		if _, err := DecodeTraceItems(good[:n]); !errors.Is(err, ErrBadTraceItems) {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		b := bytes.Clone(good)
		for range 1 + r.IntN(4) {
			b[1+r.IntN(len(b)-1)] = byte(r.Uint32())
		}
		if _, err := DecodeTraceItems(b); err != nil && !errors.Is(err, ErrBadTraceItems) {
			t.Fatal(err)
		}
	}
	for _, b := range [][]byte{
		{traceBinaryV5, 1, 1, 0xff},                                    // unknown flags
		{traceBinaryV5, 1, 1, v5VerDelta << v5VerShift, 0, 0, 0, 0, 0}, // a difference without a ULID memory id
	} {
		if _, err := DecodeTraceItems(b); !errors.Is(err, ErrBadTraceItems) {
			t.Errorf("%x: %v", b, err)
		}
	}
}

// On the real candidates of the stored fixture, version 5 is smaller than
// version 2 (it is not deflated: version 4 stays smaller).
func TestTraceItemsCompactSize(t *testing.T) {
	items := fixtureItems(t, false)[:30]
	v2, v4 := len(items.AppendBinary(nil)), 0
	z, _ := items.AppendCompressed(nil, nil)
	v4 = len(z)
	v5 := len(items.AppendCompact(nil))
	t.Logf("%d real items: version 2 %d bytes, version 4 %d, version 5 %d", len(items), v2, v4, v5)
	if v5*4 > v2*3 {
		t.Fatalf("version 5 takes %d bytes, version 2 %d", v5, v2)
	}
}

// The version 5, 6 and 7 fixtures were written by appendCompact: the
// encodings do not change under rows already written.
func TestTraceItemsCompactStable(t *testing.T) {
	for _, c := range []struct {
		file    string
		version byte
	}{{"trace_items_v5.bin", traceBinaryV5}, {"trace_items_v6.bin", traceBinaryV6}, {"trace_items_v7.bin", traceBinaryV7}} {
		want, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := fixtureItems(t, true).appendCompact(nil, c.version); !bytes.Equal(got, want) {
			t.Fatalf("appendCompact no longer writes %s's bytes", c.file)
		}
	}
}

func BenchmarkTraceItemsCompact(b *testing.B) {
	items := benchItems()
	for i := range items {
		items[i].MemoryID = fmt.Sprintf("mem_01m92jtf8kn32fcp40m%07d", i)
		items[i].VersionID = fmt.Sprintf("ver_01m92jtf8kn32fcp40m%07d", i+1)
	}
	var out []byte
	b.ReportAllocs()
	for b.Loop() {
		out = items.AppendCompact(out[:0])
	}
	b.ReportMetric(float64(len(out)), "bytes")
}

// parseULIDSlow is parseULIDID as it was first written: every digit
// checked, then all 26 shifted through two words. The faster one must
// agree with it on every input.
func parseULIDSlow(id string) (head string, u ulid128, ok bool) {
	if len(id) < 27 || id[len(id)-27] != '_' {
		return "", u, false
	}
	head, s := id[:len(id)-26], id[len(id)-26:]
	if s[0] > '7' {
		return "", u, false
	}
	var x [26]byte
	for i := 0; i < 26; i++ {
		c := crockfordValue[s[i]]
		if c == 0xff {
			return "", u, false
		}
		x[i] = c
	}
	var hi, lo uint64
	for i := 0; i < 26; i++ {
		hi = hi<<5 | lo>>59
		lo = lo<<5 | uint64(x[i])
	}
	binary.BigEndian.PutUint64(u[:8], hi)
	binary.BigEndian.PutUint64(u[8:], lo)
	return head, u, true
}

// The word-at-a-time parse gives the digit-at-a-time one's answer on ids
// of every digit, on ids with one character outside the alphabet at each
// place, and on random bytes.
func TestParseULIDIDSameAsSlow(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	check := func(id string) {
		t.Helper()
		h1, u1, ok1 := parseULIDID(id)
		h2, u2, ok2 := parseULIDSlow(id)
		if h1 != h2 || u1 != u2 || ok1 != ok2 {
			t.Fatalf("%q: %q %x %v, want %q %x %v", id, h1, u1, ok1, h2, u2, ok2)
		}
		if ok1 && h1+u1.String() != id {
			t.Fatalf("%q: reads back as %q", id, h1+u1.String())
		}
	}
	const odd = "ILOUilou!-_ \x00\xff{`/:@[Z"
	for range 20000 {
		b := []byte("ver_")
		b = append(b, crockford[r.IntN(8)])
		for range 25 {
			b = append(b, crockford[r.IntN(32)])
		}
		check(string(b))
		at := 4 + r.IntN(26)
		b[at] = odd[r.IntN(len(odd))]
		check(string(b))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		check(string(b))
	}
	for _, id := range []string{"mem_7zzzzzzzzzzzzzzzzzzzzzzzzz", "mem_00000000000000000000000000", "x_0000000000000z000000000000", "mem_0000000000000g000000000000"} {
		check(id)
	}
}

// BenchmarkParseULIDID parses a trace's worth of ids (a memory's and a
// version's for each of 100 candidates) with the word-at-a-time parse and
// with the digit-at-a-time one.
func BenchmarkParseULIDID(b *testing.B) {
	ids := make([]string, 200)
	for i := range ids {
		ids[i] = fmt.Sprintf("mem_01m92jtf8kn32fcp40m%07d", i)
	}
	for _, arm := range []struct {
		name  string
		parse func(string) (string, ulid128, bool)
	}{{"words", parseULIDID}, {"digits", parseULIDSlow}} {
		b.Run(arm.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				for _, id := range ids {
					if _, u, ok := arm.parse(id); ok {
						n += int(u[15])
					}
				}
			}
			_ = n
		})
	}
}
