package memory

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
)

// appendBinaryV1 is version 1 of the encoding, as stores wrote it before
// version 2: what databases hold must keep reading.
func appendBinaryV1(ts TraceItems, b []byte) []byte {
	b = append(b, traceBinaryV1)
	if ts == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(ts)))
	f := func(b []byte, v float64) []byte { return binary.LittleEndian.AppendUint64(b, math.Float64bits(v)) }
	for i := range ts {
		t := &ts[i]
		b = appendStr(b, t.MemoryID)
		b = appendStr(b, t.VersionID)
		b = appendMapLen(b, t.Channels == nil, len(t.Channels))
		for _, h := range t.Channels {
			b = appendStr(b, h.Channel)
			b = binary.AppendVarint(b, int64(h.Rank))
			b = f(b, h.Score)
		}
		b = f(b, t.Fused)
		b = appendMapLen(b, t.Terms == nil, len(t.Terms))
		for _, term := range t.Terms {
			b = appendStr(b, term.Name)
			b = f(b, term.Value)
		}
		b = f(b, t.Final)
		b = binary.AppendVarint(b, int64(t.Rank))
		b = binary.AppendVarint(b, int64(t.Tokens))
		b = f(b, t.Trust)
		b = appendStr(b, string(t.Action))
		if t.Packed {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		b = appendStr(b, t.Reason)
		b = appendStr(b, t.Explanation)
	}
	return b
}

// Every value survives version 2 bit for bit: numbers that are not four
// decimals, negative zero, non-finite values, ids of any shape, more names
// than the table holds; and version 1 encodings still decode to the same.
func TestTraceItemsBinaryV2Exact(t *testing.T) {
	nums := []float64{0, math.Copysign(0, -1), 0.725, -0.03, 1.0 / 3, 0.1 + 0.2, 1e300, -1e-300, 4503599627370.4961,
		math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64, 123456.7891, -7}
	var items TraceItems
	for i, x := range nums {
		items = append(items, TraceItem{
			MemoryID: "mem_01m92jtf8kn32fcp40m24wcdvd", VersionID: "ver_01m92jtf8kn32fcp40m3d1d5ph",
			Channels: ChannelHits{{Channel: "semantic", ChannelHit: ChannelHit{Rank: i, Score: x}}},
			Fused:    x, Terms: Terms{{Name: fmt.Sprintf("term%d", i%3), Value: -x}}, Final: x, Trust: x,
			Rank: i + 1, Tokens: -i, Action: ActionFollow, Reason: "ranked",
		})
	}
	// ids unlike each other and unlike the usual shape
	items = append(items,
		TraceItem{MemoryID: "", VersionID: ""},
		TraceItem{MemoryID: "m", VersionID: "ver_"},
		TraceItem{MemoryID: "mem_日本", VersionID: "v\xff_日本x"},
		TraceItem{MemoryID: "mem_01m92jtf8kn32fcp40m24wcdvd", VersionID: "ver_01m92jtf8kn32fcp40m24wcdvd"},
	)
	// more distinct reasons than the name table holds, then repeats
	for i := 0; i < 2*maxTraceNames; i++ {
		items = append(items, TraceItem{MemoryID: fmt.Sprint("mem_", i), VersionID: fmt.Sprint("ver_", i), Reason: fmt.Sprint("reason ", i%(maxTraceNames+10)), Action: ActionIgnore})
	}
	b := items.AppendBinary(nil)
	got, err := DecodeTraceItems(b)
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b TraceItems) bool {
		// reflect.DeepEqual fails on NaN and does not tell -0 from 0
		return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b) && reflect.DeepEqual(a, b) && signs(a) == signs(b)
	}
	if !same(got, items) {
		t.Fatalf("round trip:\n got %#v\nwant %#v", got, items)
	}
	zipped, _ := items.AppendCompressed([]byte("prefix"), nil)
	if z, err := DecodeTraceItems(zipped[len("prefix"):]); err != nil || !same(z, items) {
		t.Fatalf("version 4 (deflated): %v\n got %#v", err, z)
	}
	old, err := DecodeTraceItems(appendBinaryV1(items, nil))
	if err != nil || !same(old, items) {
		t.Fatalf("version 1: %v\n got %#v", err, old)
	}
	nan, err := DecodeTraceItems(TraceItems{{Fused: math.NaN()}}.AppendBinary(nil))
	if err != nil || !math.IsNaN(nan[0].Fused) {
		t.Fatalf("NaN: %v %v", nan, err)
	}
}

func signs(ts TraceItems) string {
	s := ""
	for _, t := range ts {
		s += fmt.Sprint(math.Signbit(t.Fused), math.Signbit(t.Final), math.Signbit(t.Trust))
	}
	return s
}

// A typical trace (benchItems) takes a third of version 1's bytes or less.
func TestTraceItemsBinaryV2Smaller(t *testing.T) {
	items := benchItems()
	for i := range items {
		// ids of one write share their time and counter, as ids.New makes them
		items[i].MemoryID = fmt.Sprintf("mem_01m92jtf8kn32fcp40m%07d", i)
		items[i].VersionID = fmt.Sprintf("ver_01m92jtf8kn32fcp40m%07d", i+1)
	}
	v1, v2 := len(appendBinaryV1(items, nil)), len(items.AppendBinary(nil))
	if v2*3 > v1 {
		t.Fatalf("version 2 takes %d bytes, version 1 %d", v2, v1)
	}
	t.Logf("%d items: version 1 %d bytes, version 2 %d", len(items), v1, v2)
}

// Corrupt version 2 input is an error, never a panic or a wrong value.
func TestTraceItemsBinaryV2Corrupt(t *testing.T) {
	good := TraceItems{{MemoryID: "mem_1", VersionID: "ver_1", Reason: "ranked"}, {MemoryID: "mem_12", VersionID: "ver_12", Reason: "ranked"}}.AppendBinary(nil)
	for n := 0; n < len(good); n++ {
		if _, err := DecodeTraceItems(good[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	// a name reference past the table, a shared prefix longer than its reference
	for _, b := range [][]byte{
		{traceBinaryVersion, 1, 1, 0, 0, 9},
		{traceBinaryVersion, 1, 1, 5, 0},
		{traceBinaryVersion, 1, 1, 0, 0, 0, 0, 3, 0, 0, 3},
	} {
		if _, err := DecodeTraceItems(b); err == nil {
			t.Fatalf("%v: no error", b)
		}
	}
}

// Items an answer used (POST /v1/agent/respond) round-trip in version 3;
// a trace with none is written in version 2, exactly as before.
func TestTraceItemsBinaryUsed(t *testing.T) {
	items := TraceItems{
		{MemoryID: "mem_1", VersionID: "ver_1", Packed: true, Used: true, Reason: "ranked", Rank: 1},
		{MemoryID: "mem_2", VersionID: "ver_2", Packed: true, Reason: "ranked", Rank: 2},
		{MemoryID: "mem_3", VersionID: "ver_3", Reason: "limit reached", Rank: 3},
	}
	b := items.AppendBinary(nil)
	if b[0] != traceBinaryV3 {
		t.Fatalf("version %d with a used item, want %d", b[0], traceBinaryV3)
	}
	back, err := DecodeTraceItems(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, items) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", back, items)
	}
	items[0].Used = false
	plain := items.AppendBinary(nil)
	if plain[0] != traceBinaryVersion {
		t.Fatalf("version %d without a used item, want %d", plain[0], traceBinaryVersion)
	}
	back, err = DecodeTraceItems(plain)
	if err != nil || !reflect.DeepEqual(back, items) {
		t.Fatalf("round trip without used: %v\n got %+v\nwant %+v", err, back, items)
	}
	items[0].Used = true
	z, _ := items.AppendCompressed(nil, nil)
	back, err = DecodeTraceItems(z)
	if err != nil || !reflect.DeepEqual(back, items) {
		t.Fatalf("deflated round trip with used: %v\n got %+v\nwant %+v", err, back, items)
	}
}

// Version 4 is version 2 deflated: smaller on a real-sized trace, and
// damaged or foreign deflated bytes are an error, never a panic.
func TestTraceItemsDeflated(t *testing.T) {
	items := benchItems()
	for i := range items {
		items[i].MemoryID = fmt.Sprintf("mem_01m92jtf8kn32fcp40m%07d", i)
		items[i].VersionID = fmt.Sprintf("ver_01m92jtf8kn32fcp40m%07d", i+1)
	}
	v2 := items.AppendBinary(nil)
	v3, scratch := items.AppendCompressed(nil, make([]byte, 0, 16))
	if len(v3)*3 > len(v2)*2 || string(scratch) != string(v2) {
		t.Fatalf("version 4 takes %d bytes, version 2 %d", len(v3), len(v2))
	}
	t.Logf("%d items: version 2 %d bytes, version 4 %d", len(items), len(v2), len(v3))
	if got, err := DecodeTraceItems(v3); err != nil || len(got) != len(items) || got[7].MemoryID != items[7].MemoryID {
		t.Fatalf("round trip: %v", err)
	}
	for n := 1; n < len(v3); n++ {
		if _, err := DecodeTraceItems(v3[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	notV2 := append([]byte{traceBinaryDeflated}, deflate(t, appendBinaryV1(items, nil))...)
	for _, b := range [][]byte{{traceBinaryDeflated}, {traceBinaryDeflated, 0xff, 0xff}, notV2} {
		if _, err := DecodeTraceItems(b); !errors.Is(err, ErrBadTraceItems) {
			t.Errorf("%x: %v, want ErrBadTraceItems", b[:min(len(b), 8)], err)
		}
	}
}

func deflate(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func BenchmarkTraceItemsCompressed(b *testing.B) {
	items := benchItems()
	for i := range items {
		items[i].MemoryID = fmt.Sprintf("mem_01m92jtf8kn32fcp40m%07d", i)
		items[i].VersionID = fmt.Sprintf("ver_01m92jtf8kn32fcp40m%07d", i+1)
	}
	var out, scratch []byte
	b.ReportAllocs()
	for b.Loop() {
		out, scratch = items.AppendCompressed(out[:0], scratch)
	}
	b.ReportMetric(float64(len(out)), "bytes")
}
