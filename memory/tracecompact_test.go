package memory

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Version 5 round-trips every item exactly: the stored fixtures' items
// (real candidates, unusual numbers and ids, more names than the table
// holds), used or not, nil and empty lists, NaN.
func TestTraceItemsCompactExact(t *testing.T) {
	for _, used := range []bool{false, true} {
		items := fixtureItems(t, used)
		b := items.AppendCompact([]byte("prefix"))
		if !bytes.HasPrefix(b, []byte("prefix")) || b[len("prefix")] != traceBinaryV5 {
			t.Fatalf("not appended as version 5: %x", b[:8])
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
			it.Rank, it.Tokens = i+1+r.IntN(2), r.IntN(100)
			it.Action, it.Packed, it.Used = ActionHint, r.IntN(2) == 0, r.IntN(9) == 0
			it.Reason, it.Explanation = text(), text()
			if j := r.IntN(i + 1); r.IntN(4) == 0 {
				// an id of this item or an earlier one, as a reason names it
				it.Reason += " same text as " + items[j].MemoryID + ", packed"
			}
		}
		b := items.AppendCompact(nil)
		got, err := DecodeTraceItems(b)
		if err != nil || !sameItems(got, items) {
			t.Fatalf("round %d: %v\n got %#v\nwant %#v", round, err, got, items)
		}
		if again := items.AppendCompact(nil); !bytes.Equal(again, b) {
			t.Fatalf("round %d: a second encoding differs", round)
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
	good := fixtureItems(t, true).AppendCompact(nil)
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
		{traceBinaryV5, 1, 1, 3 << v5VerShift},                         // unknown version id form
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

// The version 5 fixture was written by AppendCompact: the encoding does
// not change under rows already written.
func TestTraceItemsCompactStable(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "trace_items_v5.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fixtureItems(t, true).AppendCompact(nil); !bytes.Equal(got, want) {
		t.Fatal("AppendCompact no longer writes the stored fixture's bytes")
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
